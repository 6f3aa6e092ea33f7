import { type Kysely, sql } from 'kysely';

/**
 * Surface B's claim flow over the core's claim-link payouts (src/core/claim-flow):
 * - `payouts.claim_started_at`: the recipient started the claim flow on the claim page (Surface B
 *   status `claimed`; event `payout.claim_started` -> `disbursement.claimed`);
 * - `payouts.cancel_requested_at`: a cancel (Surface B DELETE) is under way; the claim page refuses
 *   to start a claim from then on, so cancel and claim exclude each other row-atomically;
 * - `payouts.claim_batch_id` and `claim_batches`: a Surface B batch (`POST /disbursements/batch`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payouts').addColumn('claim_started_at', 'timestamptz').execute();
  await db.schema.alterTable('payouts').addColumn('cancel_requested_at', 'timestamptz').execute();
  await db.schema.alterTable('payouts').addColumn('claim_batch_id', 'text').execute();
  await sql`create index payouts_claim_batch on payouts (business_id, environment, claim_batch_id, id) where claim_batch_id is not null`.execute(db);
  await sql`create index payouts_claim_link on payouts (business_id, environment, id) where channel = 'claim_link'`.execute(db);

  await db.schema
    .createTable('claim_batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('batch_reference', 'text')
    .addColumn('note', 'text')
    .addColumn('entry_count', 'integer', (c) => c.notNull())
    .addColumn('total_amount', 'bigint', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index claim_batches_idempotency on claim_batches (business_id, environment, idempotency_key) where idempotency_key is not null`.execute(
    db,
  );
}
