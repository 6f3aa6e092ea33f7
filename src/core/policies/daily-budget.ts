/**
 * A key's daily budget (docs/getting-paid.md "Key policies"): source amounts accepted in the UTC day,
 * raised by a guarded UPDATE on one counter row per key and day in the accepting transaction.
 */
import { sql } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import { type KeyPolicy, policyExceeded, usdc } from './policy';

export const utcDay = (now: Date) => now.toISOString().slice(0, 10);

/** Adds `amount` (micro-USDC) in the caller's transaction; throws 403 policy_exceeded (param `param`), counting nothing. */
export async function reserveDailyBudget(tx: DbOrTx, keyId: string, policy: KeyPolicy | null, amount: bigint, now: Date, param: string): Promise<void> {
  if (!policy || policy.dailyBudget === undefined) return;
  const budget = policy.dailyBudget;
  const day = utcDay(now);
  if (amount > budget) {
    throw policyExceeded(param, `This API key's daily_budget is ${usdc(budget)}; this request alone uses ${usdc(amount)}`);
  }
  await tx.insertInto('key_policy_usage').values({ key_id: keyId, day, used: 0n }).onConflict((oc) => oc.columns(['key_id', 'day']).doNothing()).execute();
  const res = await tx
    .updateTable('key_policy_usage')
    .set({ used: sql`used + ${amount}`, updated_at: now })
    .where('key_id', '=', keyId)
    .where('day', '=', day)
    .where(sql<boolean>`used + ${amount} <= ${budget}`)
    .executeTakeFirst();
  if (!res.numUpdatedRows) {
    const row = await tx.selectFrom('key_policy_usage').select('used').where('key_id', '=', keyId).where('day', '=', day).executeTakeFirst();
    const used = row?.used ?? 0n;
    throw policyExceeded(
      param,
      `This API key's daily_budget is ${usdc(budget)}; ${usdc(used)} is used today (UTC ${day}) and this request needs ${usdc(amount)}`,
    );
  }
}
