/**
 * Key policies on a disbursement launch (docs/getting-paid.md "Key policies"): the launching key's
 * `channels` and `per_payout_max` apply to every item being launched (param `items.<item id>.channel`
 * / `items.<item id>.source_amount`), and the items' source amounts together count against its
 * `daily_budget` (param `items`), all inside the launch transaction (refused: nothing held,
 * nothing counted). `approval_threshold` does not apply to items: a batch already waits for its
 * own approvals (business setting approvals_required, a key other than the submitter) before
 * launch. retry-failed re-sends items already counted at launch and counts nothing more.
 */
import type { DbOrTx } from '../../db/schema';
import type { Caller, Core } from '../context';
import { reserveDailyBudget } from './daily-budget';
import { checkStaticPolicy, keyPolicy } from './policy';

/** Applies the caller's policy to the `ready` items of disbursement `id` being launched (in `tx`). 403 policy_exceeded. */
export async function applyLaunchPolicy(tx: DbOrTx, core: Core, caller: Caller, id: string): Promise<void> {
  const policy = keyPolicy(caller);
  if (!policy) return;
  const items = await tx
    .selectFrom('disbursement_items')
    .select(['id', 'channel', 'source_amount'])
    .where('disbursement_id', '=', id)
    .where('status', '=', 'ready')
    .orderBy('seq')
    .execute();
  let total = 0n;
  for (const it of items) {
    const amount = it.source_amount ?? 0n;
    checkStaticPolicy(policy, it.channel ?? '', amount, { channel: `items.${it.id}.channel`, amount: `items.${it.id}.source_amount` });
    total += amount;
  }
  if (total > 0n) await reserveDailyBudget(tx, caller.keyId, policy, total, core.now(), 'items');
}
