/**
 * Payout approvals (key policy `approval_threshold`; docs/getting-paid.md "Key policies"). A payout
 * whose source amount is above its key's threshold is accepted `pending` with its funds held, and
 * its workflow waits (PAYOUT_APPROVAL_TIMEOUT, default P7D) for the `approve` or `reject` Update:
 * - POST /payouts/{id}/approve (extension): pending -> submitted, then the usual path;
 * - POST /payouts/{id}/reject {reason?} (extension): pending -> canceled, hold released;
 * - no decision in time: canceled, hold released (payout_approvals.status `expired`).
 * Approval rights: a key of the same business and environment with no policy (the owner key or
 * an unrestricted member key), never the key that created the payout (403
 * self_approval_forbidden); a key with a policy gets 403 permission_denied.
 */
import { ApiError } from '../../domain/errors';
import type { PayoutStatus } from '../../domain/payout-state';
import { approvePayoutWorkflow, rejectPayoutWorkflow } from '../../temporal/payout-gateway';
import type { PayoutApprovalDecision } from '../../../workflows/payout.contract';
import type { Caller, Core } from '../context';
import type { Payout } from '../../domain/payouts';
import { getPayout, getPayoutRow, runOnStartedWorkflow, transitionPayout } from '../payouts';
import { markApprovalDecided } from './payouts';

/** Largest rejection reason. */
export const MAX_REJECT_REASON = 500;

/**
 * The workflow's decision step (activity payoutApprovalDecide): marks the approval decided (first
 * decision wins; a repeat is a no-op) and moves the payout pending -> submitted (approved) or
 * pending -> canceled (rejected, expired), each idempotent. Returns the payout's status.
 */
export async function decidePayoutApproval(core: Core, d: PayoutApprovalDecision): Promise<{ status: PayoutStatus }> {
  await markApprovalDecided(core.db, d, core.now());
  const row = await core.db.selectFrom('payout_approvals').select('status').where('payout_id', '=', d.payoutId).executeTakeFirst();
  const to: PayoutStatus = (row?.status ?? d.decision) === 'approved' ? 'submitted' : 'canceled';
  const payout = await core.db.selectFrom('payouts').select('status').where('id', '=', d.payoutId).executeTakeFirstOrThrow();
  if (payout.status !== 'pending') return { status: payout.status as PayoutStatus };
  const updated = await transitionPayout(core, d.payoutId, to);
  return { status: updated.status as PayoutStatus };
}

async function checkDecider(core: Core, caller: Caller, id: string): Promise<void> {
  const payout = await getPayoutRow(core.db, caller, id);
  const approval = await core.db.selectFrom('payout_approvals').selectAll().where('payout_id', '=', id).executeTakeFirst();
  if (!approval || approval.status !== 'required' || payout.status !== 'pending') {
    throw new ApiError(409, 'invalid_state', `Payout ${id} is ${payout.status} and not awaiting approval`, null);
  }
  if (approval.requested_by_key_id === caller.keyId) {
    throw new ApiError(403, 'self_approval_forbidden', 'The key that created this payout cannot approve or reject it; use another key of the business', null);
  }
  if (caller.policy) {
    throw new ApiError(403, 'permission_denied', 'A key with a policy has no approval rights; use the owner key or a key without a policy', null);
  }
}

/** POST /payouts/{id}/approve: 404 not_found; 409 invalid_state; 403 self_approval_forbidden / permission_denied. Returns the payout (submitted or later). */
export async function approvePayout(core: Core, caller: Caller, id: string): Promise<Payout> {
  await checkDecider(core, caller, id);
  const outcome = await runOnStartedWorkflow(core, id, () => approvePayoutWorkflow(core.temporal, id, { keyId: caller.keyId }));
  if (outcome === 'refused') {
    const now = await getPayoutRow(core.db, caller, id);
    throw new ApiError(409, 'invalid_state', `Payout ${id} is ${now.status} and not awaiting approval`, null);
  }
  return getPayout(core, caller, id);
}

/** POST /payouts/{id}/reject {reason?}: as approve; the payout is canceled and its hold released. 400 validation_error (`reason`). */
export async function rejectPayout(core: Core, caller: Caller, id: string, reason?: string | null): Promise<Payout> {
  if (reason !== undefined && reason !== null && (typeof reason !== 'string' || reason.length > MAX_REJECT_REASON)) {
    throw new ApiError(400, 'validation_error', `reason must be a string of at most ${MAX_REJECT_REASON} characters`, 'reason');
  }
  await checkDecider(core, caller, id);
  const outcome = await runOnStartedWorkflow(core, id, () => rejectPayoutWorkflow(core.temporal, id, { keyId: caller.keyId, reason: reason ?? null }));
  if (outcome === 'refused') {
    const now = await getPayoutRow(core.db, caller, id);
    throw new ApiError(409, 'invalid_state', `Payout ${id} is ${now.status} and not awaiting approval`, null);
  }
  return getPayout(core, caller, id);
}
