/** The one writer of `disbursements` and `disbursement_items` (docs/architecture.md "Table owners"); one statement per function, in the caller's transaction. */
import { type Insertable, sql, type Updateable } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import type { DisbursementItemsTable, DisbursementsTable } from '../../db/tables/disbursements';
import type { Caller } from '../context';
import { retentionCutoff } from '../idempotency-retention';
import { scoped } from '../tenancy';

/** Inserts a new disbursement row; returns it. */
export async function insertDisbursement(tx: DbOrTx, row: Insertable<DisbursementsTable>) {
  return tx.insertInto('disbursements').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Updates disbursement `id` with `set`; returns the row after the update (throws if there is none). */
export async function updateDisbursement(tx: DbOrTx, id: string, set: Updateable<DisbursementsTable>) {
  return tx.updateTable('disbursements').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Inserts item rows in one statement (the caller chunks them: src/core/disbursements/review.ts). */
export async function insertDisbursementItems(tx: DbOrTx, rows: Insertable<DisbursementItemsTable>[]): Promise<void> {
  await tx.insertInto('disbursement_items').values(rows).execute();
}

/** Updates item `itemId` with `set`. */
export async function updateDisbursementItem(tx: DbOrTx, itemId: string, set: Updateable<DisbursementItemsTable>): Promise<void> {
  await tx.updateTable('disbursement_items').set(set).where('id', '=', itemId).execute();
}

/** The launch: every `ready` item of disbursement `disbursementId` becomes `pending`, attempt 1, at `now`. */
export async function queueReadyItems(tx: DbOrTx, disbursementId: string, now: Date): Promise<void> {
  await tx
    .updateTable('disbursement_items')
    .set({ status: 'pending', attempt: 1, updated_at: now })
    .where('disbursement_id', '=', disbursementId)
    .where('status', '=', 'ready')
    .execute();
}

/** retry-failed: items `itemIds` become `pending` again with the next attempt, their failure and payout cleared (one statement). */
export async function requeueItems(tx: DbOrTx, itemIds: string[], now: Date): Promise<void> {
  await tx
    .updateTable('disbursement_items')
    .set((eb) => ({
      status: 'pending',
      attempt: eb('attempt', '+', 1),
      payout_id: null,
      failure_code: null,
      failure_message: null,
      corrected: false,
      updated_at: now,
    }))
    .where('id', 'in', itemIds)
    .execute();
}

/** The claim step's launch of items: each becomes `launched` with its payout and the payout's amounts (one statement). */
export async function markItemsLaunched(tx: DbOrTx, launched: { itemId: string; payoutId: string }[], claimSeq: number, now: Date): Promise<void> {
  const values = sql.join(launched.map((l) => sql`(${l.itemId}, ${l.payoutId})`));
  await sql`
        update disbursement_items as i
        set status = 'launched', payout_id = v.payout_id, claim_seq = ${claimSeq}, debit_total = p.debit_total,
          fee_total = p.fee_total, destination_amount = p.destination_amount, rate = p.rate, updated_at = ${now}
        from (values ${values}) as v(item_id, payout_id), payouts p
        where i.id = v.item_id and p.id = v.payout_id`.execute(tx);
}

/** Retires `key` (renamed `<key>#retired:<id>`) on disbursements created before the retention cutoff; returns how many. */
export async function retireExpiredDisbursementIdempotencyKey(
  tx: DbOrTx,
  caller: Pick<Caller, 'businessId' | 'environment'>,
  key: string,
  now: Date,
): Promise<number> {
  const res = await scoped(tx, caller)
    .updateTable('disbursements')
    .set({ idempotency_key: sql<string>`idempotency_key || '#retired:' || id` })
    .where('idempotency_key', '=', key)
    .where('created_at', '<', retentionCutoff(now))
    .executeTakeFirst();
  return Number(res.numUpdatedRows ?? 0n);
}
