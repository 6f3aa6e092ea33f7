/** Editing one item of a drafting disbursement (spec PATCH /disbursements/{id}/items/{item_id}). */
import { assertCanApply, type DisbursementStatus, DRAFTING_STATUSES, itemStatus, LAUNCHED_STATUSES } from '../../domain/disbursement-state';
import { ApiError } from '../../domain/errors';
import type { Caller, Core } from '../context';
import { stableJson, reviewDrafts, reviewColumns } from './review';
import { usdc } from './shared';
import type { DisbursementItem, DisbursementItemInput, DisbursementItemPatch } from '../../domain/disbursements';
import { findRow, toDisbursementItem, getItemRow } from './read';
import { newRevision, recountDrafting } from './create';
import { updateDisbursement, updateDisbursementItem } from './disbursement-store';

/** The edit of `PATCH /disbursements/{id}/items/{item_id}`: only the fields present change. */
export type ItemPatch = DisbursementItemPatch;

/**
 * `PATCH /disbursements/{id}/items/{item_id}`: edits an item and reviews it again.
 * - While drafting or awaiting approval (needs_review / ready items): any field.
 * - Correction mode (processing, paused, completed_with_failures): failed items only; the item is
 *   marked corrected, so retry-failed retries it whatever its failure code.
 * A change to a money-critical field (channel, source_amount, recipient_id / recipient) creates a
 * new revision: approvals of older revisions no longer count (awaiting_approval / approved ->
 * awaiting_approval). Giving recipient clears recipient_id and back.
 * 404 not_found (`id` / `item_id`); 409 invalid_state (disbursement status, or an item that is not
 * editable now).
 */
export async function updateItem(core: Core, caller: Caller, id: string, itemId: string, patch: ItemPatch): Promise<DisbursementItem> {
  const current = await findRow(core.db, caller, id);
  const { item } = await getItemRow(core.db, current.id, itemId);
  const givenAmount = (item.input as Record<string, unknown>).source_amount;
  const input: DisbursementItemInput = {
    channel: item.channel ?? undefined,
    sourceAmount: item.source_amount !== null ? usdc(item.source_amount) : givenAmount,
    recipientId: item.recipient_id ?? undefined,
    recipient: item.recipient ?? undefined,
    reference: item.reference ?? undefined,
    memo: item.memo ?? undefined,
  };
  for (const k of ['channel', 'sourceAmount', 'reference', 'memo'] as const) {
    if (k in patch) input[k] = patch[k] === null ? undefined : patch[k];
  }
  if ('recipientId' in patch && patch.recipientId !== null && patch.recipientId !== undefined) {
    input.recipientId = patch.recipientId;
    if (!('recipient' in patch)) input.recipient = undefined;
  }
  if ('recipient' in patch && patch.recipient !== null && patch.recipient !== undefined) {
    input.recipient = patch.recipient;
    if (!('recipientId' in patch)) input.recipientId = undefined;
  }
  const [reviewed] = await reviewDrafts(core, caller, [{ input, rowNumber: item.row_number, source: item.source as 'api' | 'csv', prefix: '' }]);

  const moneyCritical =
    reviewed.channel !== item.channel ||
    reviewed.sourceAmount !== item.source_amount ||
    (reviewed.sourceAmount === null && input.sourceAmount !== givenAmount) ||
    reviewed.recipientId !== item.recipient_id ||
    stableJson(reviewed.recipient) !== stableJson(item.recipient);

  const now = core.now();
  return core.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    const status = row.status as DisbursementStatus;
    const fresh = await getItemRow(tx, row.id, itemId);
    const visible = itemStatus(fresh.item.status, fresh.payout?.status ?? null);
    const correction = (LAUNCHED_STATUSES as readonly string[]).includes(status);
    if (correction) {
      assertCanApply(status, 'correct_item');
      if (visible !== 'failed') {
        throw new ApiError(409, 'invalid_state', `Item ${itemId} is ${visible}; once launched only failed items can be corrected`, 'item_id', {
          status: visible,
        });
      }
    } else {
      assertCanApply(status, 'edit_item');
    }
    if (fresh.item.updated_at.getTime() !== item.updated_at.getTime()) {
      throw new ApiError(409, 'invalid_state', `Item ${itemId} changed while this edit was reviewed; send the edit again`, 'item_id');
    }
    const cols = reviewColumns(reviewed);
    await updateDisbursementItem(tx, itemId, {
      ...cols,
      ...(correction ? { corrected: true } : { status: reviewed.status }),
      updated_at: now,
    });
    const set: Record<string, unknown> = { updated_at: now };
    if (moneyCritical) Object.assign(set, newRevision(row, caller));
    if ((DRAFTING_STATUSES as readonly string[]).includes(status)) set.status = await recountDrafting(tx, row.id);
    else if (moneyCritical && (status === 'approved' || status === 'awaiting_approval')) set.status = 'awaiting_approval';
    await updateDisbursement(tx, row.id, set);
    return toDisbursementItem(await getItemRow(tx, row.id, itemId));
  });
}
