/**
 * Items as given and their review: each item is checked and priced like a payout, and stored with
 * its review result (ready or needs_review with reasons) before anything is held.
 */
import type { Insertable } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import type { DisbursementItemsTable, ReviewReason } from '../../db/tables/disbursements';
import { channelAcceptsRecipientType, findChannel, RECIPIENT_TYPES, type RecipientType } from '../../domain/channels';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { DisbursementItemInput } from '../../domain/disbursements';
import { parseAmount, USDC } from '../../domain/money';
import type { InlineRecipient } from '../../domain/recipients';
import type { Caller, Core } from '../context';
import { type PayoutRequest, type PreparedPayout, preparePayout } from '../payouts';
import { type DisbursementItemRow, INSERT_CHUNK, str, usdc } from './shared';
import { insertDisbursementItems } from './disbursement-store';
import { scoped } from '../tenancy';

export type { DisbursementItemInput } from '../../domain/disbursements';

/** An item after review: what is stored. Amounts micro-USDC (destination: minor units of its currency). */
interface ReviewedItem {
  input: DisbursementItemInput;
  rowNumber: number | null;
  source: 'api' | 'csv';
  status: 'ready' | 'needs_review';
  reasons: ReviewReason[];
  channel: string | null;
  sourceAmount: bigint | null;
  recipientId: string | null;
  recipient: Record<string, unknown> | null;
  recipientType: string | null;
  recipientKey: string | null;
  reference: string | null;
  memo: string | null;
  prepared: PreparedPayout | null;
}

/** A draft to review: the input, where it came from, and reasons found before review (CSV errors). */
export interface Draft {
  input: DisbursementItemInput;
  rowNumber: number | null;
  source: 'api' | 'csv';
  /** Param prefix of review errors (`items.3.` for JSON items). */
  prefix: string;
  /** Reasons found while reading the row (CSV parse errors). */
  preReasons?: ReviewReason[];
  /** Choose the channel from a saved recipient's single channel when none is given (CSV import). */
  inferChannel?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** JSON with sorted keys: a stable identity for the duplicate_recipient warning. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

/** A review reason from anything preparePayout throws (unknown errors are bugs: re-thrown). */
function reasonOf(err: unknown): ReviewReason {
  if (err instanceof ApiError) return { code: err.code, message: err.message, param: err.param };
  throw err;
}

/** The PayoutRequest of an item input. Non-string values pass through for preparePayout to refuse. */
function payoutRequestOf(input: DisbursementItemInput, channel: string | null): PayoutRequest {
  const req: PayoutRequest = { channel: channel as string };
  if (input.recipientId !== undefined && input.recipientId !== null) req.recipientId = input.recipientId as string;
  if (input.recipient !== undefined && input.recipient !== null) req.recipient = input.recipient as InlineRecipient;
  if (input.sourceAmount !== undefined && input.sourceAmount !== null) req.sourceAmount = input.sourceAmount as string;
  if (input.reference !== undefined && input.reference !== null) req.reference = input.reference as string;
  if (input.memo !== undefined && input.memo !== null) req.memo = input.memo as string;
  return req;
}

/** The PayoutRequest of a stored item (its reviewed fields). */
export function itemRequest(it: DisbursementItemRow): PayoutRequest {
  return payoutRequestOf(
    {
      recipientId: it.recipient_id,
      recipient: it.recipient,
      sourceAmount: it.source_amount !== null ? usdc(it.source_amount) : undefined,
      reference: it.reference,
      memo: it.memo,
    },
    it.channel,
  );
}

type SavedRecipient = { id: string; type: string; details: Record<string, unknown>; status: string; channels: string[] };

/** Saved recipients named by the drafts, in ONE query (the review never queries per item). */
async function prefetchRecipients(db: DbOrTx, caller: Caller, drafts: Draft[]): Promise<Map<string, SavedRecipient>> {
  const ids = [...new Set(drafts.map((d) => d.input.recipientId).filter((v): v is string => typeof v === 'string' && v.length > 0))];
  const out = new Map<string, SavedRecipient>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await scoped(db, caller)
      .selectFrom('recipients')
      .select(['id', 'type', 'details', 'status', 'channels'])
      .where('deleted_at', 'is', null)
      .where('id', 'in', ids.slice(i, i + 1000))
      .execute();
    for (const r of rows) out.set(r.id, r as SavedRecipient);
  }
  return out;
}

/**
 * Reviews drafts before any money moves (spec "Disbursement" rule 1): each becomes `ready` (priced)
 * or `needs_review` with reasons ({code, message, param}, the ApiError preparePayout threw).
 */
export async function reviewDrafts(core: Core, caller: Caller, drafts: Draft[]): Promise<ReviewedItem[]> {
  const saved = await prefetchRecipients(core.db, caller, drafts);
  const out: ReviewedItem[] = [];
  for (const d of drafts) {
    const input = d.input;
    const recipientId = str(input.recipientId);
    const savedRecipient = recipientId ? saved.get(recipientId) : undefined;
    let channel = str(input.channel);
    if (!channel && d.inferChannel && savedRecipient && savedRecipient.channels.length === 1) channel = savedRecipient.channels[0];
    const recipient = isObject(input.recipient) ? input.recipient : null;
    const reasons: ReviewReason[] = [...(d.preReasons ?? [])];
    let prepared: PreparedPayout | null = null;

    if (reasons.length === 0) {
      try {
        const def = channel ? findChannel(channel) : undefined;
        const fast =
          savedRecipient &&
          def &&
          input.recipient === undefined &&
          savedRecipient.status === 'ready' &&
          channelAcceptsRecipientType(def, savedRecipient.type as RecipientType) &&
          savedRecipient.channels.includes(def.id);
        const req = payoutRequestOf(input, channel);
        if (fast && savedRecipient) {
          // Same checks preparePayout makes for a saved recipient, done on the prefetched row.
          const inline = { ...savedRecipient.details, type: savedRecipient.type } as InlineRecipient;
          const p = await preparePayout(core, caller, { ...req, recipientId: undefined, recipient: inline }, { paramPrefix: d.prefix });
          prepared = { ...p, recipientId: savedRecipient.id, recipientType: savedRecipient.type as RecipientType, recipientDetails: savedRecipient.details };
        } else {
          prepared = await preparePayout(core, caller, req, { paramPrefix: d.prefix });
        }
      } catch (err) {
        reasons.push(reasonOf(err));
      }
    }

    let sourceAmount: bigint | null = prepared?.price.sourceAmount ?? null;
    if (sourceAmount === null && typeof input.sourceAmount === 'string') {
      try {
        sourceAmount = parseAmount(input.sourceAmount, USDC);
      } catch {
        sourceAmount = null;
      }
    }
    const rawType = savedRecipient?.type ?? (recipient && typeof recipient.type === 'string' ? recipient.type : null);
    const recipientType = prepared?.recipientType ?? (rawType && (RECIPIENT_TYPES as readonly string[]).includes(rawType) ? rawType : null);
    let recipientKey: string | null = null;
    if (recipientId) recipientKey = `id:${recipientId}`;
    else if (prepared) recipientKey = `${prepared.recipientType}:${stableJson(prepared.recipientDetails)}`;
    else if (recipient) recipientKey = `${String(recipient.type)}:${stableJson({ ...recipient, type: undefined })}`;

    out.push({
      input,
      rowNumber: d.rowNumber,
      source: d.source,
      status: reasons.length ? 'needs_review' : 'ready',
      reasons,
      channel,
      sourceAmount,
      recipientId,
      recipient,
      recipientType,
      recipientKey,
      reference: str(input.reference),
      memo: str(input.memo),
      prepared: reasons.length ? null : prepared,
    });
  }
  return out;
}

/** The item as given in its stored form (`disbursement_items.input`, snake_case keys, `extra` as given). */
function storedInput(input: DisbursementItemInput): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input.extra };
  const fields = { channel: input.channel, source_amount: input.sourceAmount, recipient_id: input.recipientId, recipient: input.recipient, reference: input.reference, memo: input.memo };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out;
}

/** Columns of `disbursement_items` a review sets. */
type ReviewColumns = Pick<
  Insertable<DisbursementItemsTable>,
  | 'input' | 'channel' | 'source_amount' | 'recipient_id' | 'recipient' | 'recipient_type' | 'recipient_key' | 'reference' | 'memo'
  | 'review_reasons' | 'destination_amount' | 'destination_currency' | 'rate' | 'fee_provider' | 'fee_service' | 'fee_fx_spread'
  | 'fee_total' | 'debit_total'
>;

/** The stored columns of a reviewed item (review fields only): a part of the item's row for its owner, disbursement-store.ts. */
export function reviewColumns(r: ReviewedItem): ReviewColumns {
  const p = r.prepared?.price;
  return {
    input: JSON.stringify(storedInput(r.input)),
    channel: r.channel,
    source_amount: r.sourceAmount,
    recipient_id: r.recipientId,
    recipient: r.recipient ? JSON.stringify(r.recipient) : null,
    recipient_type: r.recipientType,
    recipient_key: r.recipientKey,
    reference: r.reference,
    memo: r.memo,
    review_reasons: JSON.stringify(r.reasons),
    destination_amount: p?.destinationAmount ?? null,
    destination_currency: p?.destinationCurrency ?? null,
    rate: p?.rate ?? null,
    fee_provider: p?.fees.provider ?? null,
    fee_service: p?.fees.service ?? null,
    fee_fx_spread: p?.fees.fxSpread ?? null,
    fee_total: p?.fees.total ?? null,
    debit_total: p?.debitTotal ?? null,
  };
}

/** Inserts reviewed items after `firstSeq - 1`, in chunks of {@link INSERT_CHUNK} rows. */
export async function insertItems(tx: DbOrTx, caller: Caller, disbursementId: string, items: ReviewedItem[], firstSeq: number, now: Date) {
  for (let i = 0; i < items.length; i += INSERT_CHUNK) {
    const chunk = items.slice(i, i + INSERT_CHUNK);
    await insertDisbursementItems(
      tx,
      chunk.map((r, j) => ({
          id: newId('dsi'),
          disbursement_id: disbursementId,
          business_id: caller.businessId,
          environment: caller.environment,
          seq: firstSeq + i + j,
          row_number: r.rowNumber,
          source: r.source,
          ...reviewColumns(r),
          status: r.status,
          payout_id: null,
          attempt: 0,
          claim_seq: null,
          failure_code: null,
          failure_message: null,
          corrected: false,
          created_at: now,
          updated_at: now,
        })),
    );
  }
}
