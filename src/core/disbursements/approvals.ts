/** Submitting, approving and rejecting a disbursement (spec "Disbursement status": awaiting_approval, approved, rejected). */
import { assertCanApply, DISBURSEMENT_EVENT_ON_ENTER, type DisbursementStatus, LAUNCHED_STATUSES, statusAfterApproval } from '../../domain/disbursement-state';
import { ApiError } from '../../domain/errors';
import type { Disbursement } from '../../domain/disbursements';
import type { Caller, Core } from '../context';
import { emitEvent } from '../events';
import type { DisbursementRow } from './shared';
import { itemAggregates, approvalsReceived, approvalsRequired, loadDisbursement, findRow } from './read';
import { newRevision, recountDrafting } from './create';
import { callerActor, recordAuditEvent } from '../audit';
import { updateDisbursement } from './disbursement-store';
import { disbursementAwaitingApprovalEvent } from '../../domain/domain-events';

/** 409 items_need_review: `count` items still need review before submit or launch. */
export const itemsNeedReview = (count: number) =>
  new ApiError(
    409,
    'items_need_review',
    `${count} item${count === 1 ? '' : 's'} need${count === 1 ? 's' : ''} review; fix or edit them (GET items?status=needs_review) first`,
    null,
    { needs_review: count },
  );

/**
 * `POST /disbursements/{id}/submit-for-approval`: records the submitting key (it may never approve)
 * and moves ready -> awaiting_approval, emitting disbursement.awaiting_approval in the same
 * transaction; with a business that requires no approvals, straight to approved (the event is
 * still emitted: every submit-for-approval emits it, its payload then shows status approved).
 * 409 items_need_review (needs_review), 409 invalid_state (no items, or any other status); 404.
 */
export async function submitForApproval(core: Core, caller: Caller, id: string): Promise<Disbursement> {
  return core.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    const status = row.status as DisbursementStatus;
    assertCanApply(status, 'submit');
    const agg = await itemAggregates(tx, id);
    if (agg.itemCount === 0) throw new ApiError(409, 'invalid_state', 'The disbursement has no items; add or import items first', null);
    if (agg.needsReview > 0) throw itemsNeedReview(agg.needsReview);
    const required = await approvalsRequired(tx, row.business_id);
    const now = core.now();
    const updated = await updateDisbursement(tx, id, {
        status: required === 0 ? 'approved' : 'awaiting_approval',
        approved_revision_id: required === 0 ? row.revision_id : row.approved_revision_id,
        submitted_by_key_id: caller.keyId,
        submitted_at: now,
        updated_at: now,
      });
    const wire = await loadDisbursement(tx, updated);
    await emitEvent(
      tx,
      disbursementAwaitingApprovalEvent({ businessId: row.business_id, environment: row.environment }, DISBURSEMENT_EVENT_ON_ENTER.awaiting_approval, wire, row.revision_id),
    );
    return wire;
  });
}

function assertCurrentRevision(row: DisbursementRow, revisionId: string): void {
  if (revisionId !== row.revision_id) {
    throw new ApiError(
      409,
      'stale_revision',
      `Revision ${revisionId} is not the current revision of disbursement ${row.id} (${row.revision_id}); review the changes and decide on the current revision`,
      'revision_id',
      { current_revision_id: row.revision_id },
    );
  }
}

/**
 * `POST /disbursements/{id}/approvals/{revision_id}/approve`: one key's approval of the current
 * revision (the same key twice counts once). Reaching the business's approvals_required moves
 * awaiting_approval -> approved. In correction mode it approves the correction revision.
 * 403 self_approval_forbidden for the submitting key; 409 stale_revision for another revision;
 * 409 items_need_review; 409 invalid_state (status, or nothing awaiting approval); 404.
 */
export async function approveDisbursement(core: Core, caller: Caller, id: string, revisionId: string): Promise<Disbursement> {
  return core.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    const status = row.status as DisbursementStatus;
    assertCanApply(status, 'approve');
    assertCurrentRevision(row, revisionId);
    if (row.submitted_by_key_id === caller.keyId) {
      throw new ApiError(
        403,
        'self_approval_forbidden',
        'The key that submitted this disbursement cannot approve it; approve with another key of the business',
        null,
      );
    }
    const launched = (LAUNCHED_STATUSES as readonly string[]).includes(status);
    if (launched && row.approved_revision_id === row.revision_id) {
      throw new ApiError(409, 'invalid_state', `Revision ${row.revision_id} is already approved; nothing awaits approval`, null, { status });
    }
    if (!launched) {
      const agg = await itemAggregates(tx, id);
      if (agg.needsReview > 0) throw itemsNeedReview(agg.needsReview);
    }
    await tx
      .insertInto('disbursement_approvals')
      .values({
        disbursement_id: id,
        business_id: row.business_id,
        environment: row.environment,
        revision_id: revisionId,
        key_id: caller.keyId,
        decision: 'approve',
        reason: null,
      })
      .onConflict((oc) => oc.columns(['disbursement_id', 'revision_id', 'key_id']).where('decision', '=', 'approve').doNothing())
      .execute();
    const received = await approvalsReceived(tx, id, revisionId);
    const required = await approvalsRequired(tx, row.business_id);
    const enough = received >= required;
    const updated = await updateDisbursement(tx, id, {
        status: statusAfterApproval(status, received, required),
        approved_revision_id: enough ? row.revision_id : row.approved_revision_id,
        updated_at: core.now(),
      });
    await recordAuditEvent(
      tx,
      { businessId: row.business_id, environment: row.environment, ...callerActor(caller), action: 'disbursement.approved', objectType: 'disbursement', objectId: id, before: { status: row.status, revision_id: revisionId, approved_revision_id: row.approved_revision_id }, after: { status: updated.status, approved_revision_id: updated.approved_revision_id, approvals_received: received, approvals_required: required } },
      core.now(),
    );
    return loadDisbursement(tx, updated);
  });
}

/**
 * `POST /disbursements/{id}/approvals/{revision_id}/reject` {reason?}: rejects the current
 * revision: back to drafting (needs_review / ready) with a new revision (the rejected one can no
 * longer be approved); the reason is recorded and shown in `rejection`. 409 stale_revision,
 * 409 invalid_state (not awaiting approval or approved); 404.
 */
export async function rejectDisbursement(
  core: Core,
  caller: Caller,
  id: string,
  revisionId: string,
  reason?: string | null,
): Promise<Disbursement> {
  return core.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    assertCanApply(row.status as DisbursementStatus, 'reject');
    assertCurrentRevision(row, revisionId);
    const text = typeof reason === 'string' && reason.trim() ? reason.trim().slice(0, 1000) : null;
    await tx
      .insertInto('disbursement_approvals')
      .values({
        disbursement_id: id,
        business_id: row.business_id,
        environment: row.environment,
        revision_id: revisionId,
        key_id: caller.keyId,
        decision: 'reject',
        reason: text,
      })
      .execute();
    const now = core.now();
    const updated = await updateDisbursement(tx, id, {
        status: await recountDrafting(tx, id),
        ...newRevision(row, caller),
        submitted_by_key_id: null,
        submitted_at: null,
        last_rejection_reason: text,
        rejected_at: now,
        updated_at: now,
      });
    await recordAuditEvent(
      tx,
      { businessId: row.business_id, environment: row.environment, ...callerActor(caller), action: 'disbursement.rejected', objectType: 'disbursement', objectId: id, before: { status: row.status, revision_id: revisionId }, after: { status: updated.status, revision_id: updated.revision_id, reason: text } },
      core.now(),
    );
    return loadDisbursement(tx, updated);
  });
}
