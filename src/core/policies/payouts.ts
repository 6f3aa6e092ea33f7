/**
 * Key policies on a payout being accepted (POST /payouts, withdrawals, Surface C payouts — every
 * caller of createPayout): channels, per_payout_max, daily_budget, approval_threshold
 * (./policy.ts, ./daily-budget.ts, ./payout-approvals.ts). The one writer of `payout_approvals`. Runs inside the accepting transaction, so a
 * refused or rolled-back payout counts nothing against the budget.
 */
import { parseDuration } from '../../domain/durations';
import type { DbOrTx } from '../../db/schema';
import type { PayoutApprovalDecision } from '../../../workflows/payout.contract';
import type { Caller, Core } from '../context';
import { reserveDailyBudget } from './daily-budget';
import { checkStaticPolicy, keyPolicy } from './policy';

/** Wire names of the fields a policy can break on this request. */
export interface PolicyParams {
  channel: string;
  amount: string;
}

/** What acceptance must do: hold and wait for approval (timeout, ms), or go on at once (null). */
export interface PayoutGate {
  approval: { timeoutMs: number; expiresAt: Date } | null;
}

/**
 * Applies the caller's policy to a payout of `sourceAmount` (micro-USDC) on `channel`, in `tx`:
 * 403 policy_exceeded for a channel outside `channels` (param `params.channel`), a source amount
 * above `per_payout_max` or past the day's `daily_budget` (param `params.amount`; the budget is
 * counted here). Returns whether the payout must wait for approval (source amount strictly above
 * `approval_threshold`; timeout PAYOUT_APPROVAL_TIMEOUT).
 */
export async function applyPayoutPolicy(
  tx: DbOrTx,
  core: Core,
  caller: Caller,
  channel: string,
  sourceAmount: bigint,
  params: PolicyParams,
): Promise<PayoutGate> {
  const policy = keyPolicy(caller);
  if (!policy) return { approval: null };
  checkStaticPolicy(policy, channel, sourceAmount, params);
  const now = core.now();
  await reserveDailyBudget(tx, caller.keyId, policy, sourceAmount, now, params.amount);
  if (policy.approvalThreshold !== undefined && sourceAmount > policy.approvalThreshold) {
    const timeoutMs = parseDuration(core.config.PAYOUT_APPROVAL_TIMEOUT);
    return { approval: { timeoutMs, expiresAt: new Date(now.getTime() + timeoutMs) } };
  }
  return { approval: null };
}

/** Records that payout `payoutId` needs approval until `expiresAt` (in the accepting transaction). */
export async function recordApprovalRequired(tx: DbOrTx, caller: Caller, payoutId: string, expiresAt: Date): Promise<void> {
  await tx
    .insertInto('payout_approvals')
    .values({
      payout_id: payoutId,
      business_id: caller.businessId,
      environment: caller.environment,
      requested_by_key_id: caller.keyId,
      status: 'required',
      expires_at: expiresAt,
      decided_by_key_id: null,
      decided_at: null,
      reason: null,
    })
    .execute();
}

/**
 * Marks the approval of payout `d.payoutId` decided (`approved`, `rejected` or `expired`) at `now`;
 * only a `required` approval changes, so the first decision wins and a repeat is a no-op.
 */
export async function markApprovalDecided(db: DbOrTx, d: PayoutApprovalDecision, now: Date): Promise<void> {
  await db
    .updateTable('payout_approvals')
    .set({ status: d.decision, decided_by_key_id: d.keyId ?? null, decided_at: now, reason: d.reason ?? null })
    .where('payout_id', '=', d.payoutId)
    .where('status', '=', 'required')
    .execute();
}
