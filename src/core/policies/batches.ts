/** Key policies on a batch accepted at once (docs/getting-paid.md "Key policies"); above `approval_threshold` is refused. */
import type { DbOrTx } from '../../db/schema';
import type { Caller, Core } from '../context';
import { reserveDailyBudget } from './daily-budget';
import { checkStaticPolicy, keyPolicy, policyExceeded, usdc } from './policy';

/** Source amount in micro-USDC; params are the entry's wire names. */
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
