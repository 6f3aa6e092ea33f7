/**
 * Idempotency-Key retention on the resources that carry their key (spec "Limits": Surface A keeps
 * idempotency 30 days; docs/getting-paid.md "Idempotency retention"). Payouts and disbursements
 * store the request's key under a unique index, so a process that dies between creating the
 * resource and completing the idempotency record cannot make a second one. That index must not
 * outlive the retention: a key older than 30 days starts a new payout or disbursement. Before such
 * a key is used again, the old resource's key is retired (renamed `<key>#retired:<id>`, kept for
 * operators): for a disbursement in the transaction that creates the new one, for a payout in the
 * statement that looks the key up after an accept refused by the key's unique index, before the
 * accept runs once more (src/core/payouts/accept.ts; retiring a key past its retention changes no
 * answer, so it needs no transaction with the new payout).
 */
import { sql } from 'kysely';
import type { DbOrTx } from '../db/schema';
import type { Caller } from './context';

/** Surface A's idempotency retention (spec "Limits"): 30 days, in ms. */
export const IDEMPOTENCY_KEY_RETENTION_MS = 30 * 24 * 3600 * 1000;

/** The oldest creation time a resource may have and still answer for its Idempotency-Key. */
export const retentionCutoff = (now: Date) => new Date(now.getTime() - IDEMPOTENCY_KEY_RETENTION_MS);

/**
 * Retires `key` on rows of `table` of the caller's business and environment created before the
 * retention cutoff (in the caller's transaction). Returns how many rows were retired.
 */
export async function retireExpiredIdempotencyKey(
  tx: DbOrTx,
  table: 'payouts' | 'disbursements',
  caller: Pick<Caller, 'businessId' | 'environment'>,
  key: string,
  now: Date,
): Promise<number> {
  const res = await tx
    .updateTable(table)
    .set({ idempotency_key: sql<string>`idempotency_key || '#retired:' || id` })
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .where('idempotency_key', '=', key)
    .where('created_at', '<', retentionCutoff(now))
    .executeTakeFirst();
  return Number(res.numUpdatedRows ?? 0n);
}
