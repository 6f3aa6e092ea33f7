/** Key policies on a payout being accepted, inside the accepting transaction. Owns `payout_approvals`. */
import { parseDuration } from '../../domain/durations';
import type { DbOrTx } from '../../db/schema';
import type { PayoutApprovalDecision } from '../../../workflows/payout.contract';
import type { Caller, Core } from '../context';
import { reserveDailyBudget } from './daily-budget';
import { checkStaticPolicy, keyPolicy } from './policy';

export interface PolicyParams {
  channel: string;
  amount: string;
}

/** Hold and wait for approval (timeout, ms), or go on at once (null). */
export interface PayoutGate {
  approval: { timeoutMs: number; expiresAt: Date } | null;
}

/**
 * Applies the caller's policy to a payout of `sourceAmount` (micro-USDC): 403 policy_exceeded (param
 * `params.channel` / `params.amount`); returns whether it must wait for approval.
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

/** In the accepting transaction. */
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

/** Only a `required` approval changes: the first decision wins, a repeat is a no-op. */
export async function markApprovalDecided(db: DbOrTx, d: PayoutApprovalDecision, now: Date): Promise<void> {
  await db
    .updateTable('payout_approvals')
    .set({ status: d.decision, decided_by_key_id: d.keyId ?? null, decided_at: now, reason: d.reason ?? null })
    .where('payout_id', '=', d.payoutId)
    .where('status', '=', 'required')
    .execute();
}
