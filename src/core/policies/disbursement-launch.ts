/** Key policies on a disbursement launch (docs/getting-paid.md "Key policies"), inside the launch transaction. */
import type { DbOrTx } from '../../db/schema';
import type { Caller, Core } from '../context';
import { reserveDailyBudget } from './daily-budget';
import { checkStaticPolicy, keyPolicy } from './policy';

/** Applies the caller's policy to the `ready` items of `id`: 403 policy_exceeded (param `items.<item id>.<field>`, or `items`). */
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
