/**
 * The daily budget of a key (docs/getting-paid.md "Key policies"): the source amounts (USDC, fees
 * not counted) of the money-moving requests the key had accepted in the current UTC day may not
 * pass `daily_budget`. Counted at acceptance (a payout that later fails, is canceled or rejected
 * still counts: the key spent that allowance). Exact under concurrency: one counter row per key and
 * UTC day, raised by a guarded `UPDATE … SET used = used + x WHERE used + x <= budget` inside the
 * transaction that accepts the payout; concurrent requests queue on the row lock and each re-checks
 * the sum after the previous one committed, and a rolled-back acceptance takes its amount with it.
 */
import { sql } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import { type KeyPolicy, policyExceeded, usdc } from './policy';

/** The UTC day of `now`, YYYY-MM-DD. */
export const utcDay = (now: Date) => now.toISOString().slice(0, 10);

/**
 * Adds `amount` (micro-USDC) to the key's use of its budget for the UTC day of `now`, inside the
 * caller's transaction. No-op without a daily_budget. Throws 403 policy_exceeded (param `param`)
 * when it would pass the budget; nothing is counted then.
 */
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
