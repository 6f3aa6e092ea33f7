import { type Kysely, sql } from 'kysely';

/**
 * Batch disbursements (docs/disbursements.md): disbursements, their items and approvals. Also replaces the
 * one-payout-per-item index of payouts with one payout per item ATTEMPT
 * (`payouts.disbursement_attempt`): retry-failed gives a failed item a new attempt with a new
 * payout, and never a second payout for the same attempt.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('disbursements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('revision_id', 'text', (c) => c.notNull())
    .addColumn('revision_number', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('revision_created_by_key_id', 'text')
    .addColumn('approved_revision_id', 'text')
    .addColumn('launched_revision_id', 'text')
    .addColumn('created_by_key_id', 'text', (c) => c.notNull())
    .addColumn('submitted_by_key_id', 'text')
    .addColumn('submitted_at', 'timestamptz')
    .addColumn('launched_by_key_id', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('item_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('retry_round', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_rejection_reason', 'text')
    .addColumn('rejected_at', 'timestamptz')
    .addColumn('launched_at', 'timestamptz')
    .addColumn('paused_at', 'timestamptz')
    .addColumn('completed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('disbursements_scope')
    .on('disbursements')
    .columns(['business_id', 'environment', 'id'])
    .execute();
  // A retried create with the same Idempotency-Key finds the disbursement it made.
  await sql`create unique index disbursements_idempotency on disbursements (business_id, environment, idempotency_key) where idempotency_key is not null`.execute(
    db,
  );

  await db.schema
    .createTable('disbursement_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('disbursement_id', 'text', (c) => c.notNull().references('disbursements.id'))
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('row_number', 'integer')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('input', 'jsonb', (c) => c.notNull())
    .addColumn('channel', 'text')
    .addColumn('source_amount', 'bigint', (c) => c.check(sql`source_amount > 0`))
    .addColumn('recipient_id', 'text')
    .addColumn('recipient', 'jsonb')
    .addColumn('recipient_type', 'text')
    .addColumn('recipient_key', 'text')
    .addColumn('reference', 'text')
    .addColumn('memo', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('review_reasons', 'jsonb', (c) => c.notNull())
    .addColumn('destination_amount', 'bigint')
    .addColumn('destination_currency', 'text')
    .addColumn('rate', 'text')
    .addColumn('fee_provider', 'bigint')
    .addColumn('fee_service', 'bigint')
    .addColumn('fee_fx_spread', 'bigint')
    .addColumn('fee_total', 'bigint')
    .addColumn('debit_total', 'bigint')
    .addColumn('payout_id', 'text')
    .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('claim_seq', 'integer')
    .addColumn('failure_code', 'text')
    .addColumn('failure_message', 'text')
    .addColumn('corrected', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('disbursement_items_seq', ['disbursement_id', 'seq'])
    .execute();
  await db.schema
    .createIndex('disbursement_items_status')
    .on('disbursement_items')
    .columns(['disbursement_id', 'status', 'seq'])
    .execute();
  await db.schema
    .createIndex('disbursement_items_page')
    .on('disbursement_items')
    .columns(['disbursement_id', 'id'])
    .execute();
  await db.schema
    .createIndex('disbursement_items_recipient')
    .on('disbursement_items')
    .columns(['disbursement_id', 'recipient_key'])
    .execute();
  await db.schema
    .createIndex('disbursement_items_claim')
    .on('disbursement_items')
    .columns(['disbursement_id', 'claim_seq'])
    .execute();

  await db.schema
    .createTable('disbursement_approvals')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('disbursement_id', 'text', (c) => c.notNull().references('disbursements.id'))
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('revision_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull().check(sql`decision in ('approve','reject')`))
    .addColumn('reason', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // The same key approving a revision twice counts once.
  await sql`create unique index disbursement_approvals_once on disbursement_approvals (disbursement_id, revision_id, key_id) where decision = 'approve'`.execute(
    db,
  );

  // One payout per item attempt (retry-failed makes attempt n+1 with a new payout).
  await sql`alter table payouts add column if not exists disbursement_attempt integer`.execute(db);
  await sql`drop index if exists payouts_disbursement_item`.execute(db);
  await sql`create unique index payouts_disbursement_item_attempt on payouts (disbursement_item_id, disbursement_attempt) where disbursement_item_id is not null`.execute(
    db,
  );
  await sql`create index if not exists payouts_disbursement on payouts (disbursement_id) where disbursement_id is not null`.execute(
    db,
  );
}
