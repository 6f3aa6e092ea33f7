/**
 * Key policies on a batch accepted at once (Surface B `POST /disbursements/batch`, whose entries are
 * payouts written together; docs/getting-paid.md "Key policies"): `channels` and `per_payout_max`
 * per entry, the entries' total against `daily_budget`, in the batch's transaction. An entry above
 * `approval_threshold` is refused (403 policy_exceeded): batch entries are accepted `submitted`
 * together and cannot wait for approval one by one — send such a payment on its own.
 */
import type { DbOrTx } from '../../db/schema';
import type { Caller, Core } from '../context';
import { reserveDailyBudget } from './daily-budget';
import { checkStaticPolicy, keyPolicy, policyExceeded, usdc } from './policy';

/** One entry of a batch: its channel, source amount (micro-USDC) and the wire names of its fields. */
export interface BatchPolicyEntry {
  channel: string;
  sourceAmount: bigint;
  params: { channel: string; amount: string };
}

/** Applies the caller's policy to every entry and counts their total (param `totalParam`). 403 policy_exceeded. */
export async function applyBatchPolicy(tx: DbOrTx, core: Core, caller: Caller, entries: BatchPolicyEntry[], totalParam: string): Promise<void> {
  const policy = keyPolicy(caller);
  if (!policy) return;
  let total = 0n;
  for (const e of entries) {
    checkStaticPolicy(policy, e.channel, e.sourceAmount, e.params);
    if (policy.approvalThreshold !== undefined && e.sourceAmount > policy.approvalThreshold) {
      throw policyExceeded(
        e.params.amount,
        `This API key's approval_threshold is ${usdc(policy.approvalThreshold)}; a batch entry of ${usdc(e.sourceAmount)} would need approval — send it on its own`,
      );
    }
    total += e.sourceAmount;
  }
  if (total > 0n) await reserveDailyBudget(tx, caller.keyId, policy, total, core.now(), totalParam);
}
