import { type Kysely, sql } from 'kysely';

/** Balances, the ledger, payouts with their attempts, and the event outbox. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('balances')
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('available', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`available >= 0`))
    .addColumn('held', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`held >= 0`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('balances_pk', ['business_id', 'environment', 'currency'])
    .execute();

  await db.schema
    .createTable('ledger_postings')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('debit_account', 'text', (c) => c.notNull())
    .addColumn('credit_account', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('ledger_postings_key', ['business_id', 'environment', 'key'])
    .execute();

  await db.schema
    .createTable('payouts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('rail', 'text', (c) => c.notNull())
    .addColumn('recipient_id', 'text')
    .addColumn('recipient_type', 'text', (c) => c.notNull())
    .addColumn('recipient_details', 'jsonb', (c) => c.notNull())
    .addColumn('source_amount', 'bigint', (c) => c.notNull())
    .addColumn('source_currency', 'text', (c) => c.notNull())
    .addColumn('destination_amount', 'bigint', (c) => c.notNull())
    .addColumn('destination_currency', 'text', (c) => c.notNull())
    .addColumn('rate', 'text', (c) => c.notNull())
    .addColumn('fee_provider', 'bigint', (c) => c.notNull())
    .addColumn('fee_service', 'bigint', (c) => c.notNull())
    .addColumn('fee_fx_spread', 'bigint', (c) => c.notNull())
    .addColumn('fee_total', 'bigint', (c) => c.notNull())
    .addColumn('debit_total', 'bigint', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('memo', 'text')
    .addColumn('message', 'text')
    .addColumn('quote_id', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('estimated_arrival', 'timestamptz')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('provider_reference', 'text')
    .addColumn('failure_code', 'text')
    .addColumn('failure_message', 'text')
    .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('claim_token', 'text', (c) => c.unique())
    .addColumn('claimed_at', 'timestamptz')
    .addColumn('claim_method', 'text')
    .addColumn('claim_expires_at', 'timestamptz')
    .addColumn('receipt_token', 'text', (c) => c.notNull().unique())
    .addColumn('confirmed_received_at', 'timestamptz')
    .addColumn('disbursement_id', 'text')
    .addColumn('disbursement_item_id', 'text')
    .addColumn('created_by_key_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payouts_scope')
    .on('payouts')
    .columns(['business_id', 'environment', 'id'])
    .execute();
  // Never two payouts for one idempotency key (docs/architecture.md "Money rules", rule 5), even if a process dies mid-request.
  await sql`create unique index payouts_idempotency on payouts (business_id, environment, idempotency_key) where idempotency_key is not null`.execute(
    db,
  );
  await sql`create unique index payouts_disbursement_item on payouts (disbursement_item_id) where disbursement_item_id is not null`.execute(
    db,
  );

  await db.schema
    .createTable('payout_attempts')
    .addColumn('payout_id', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider_reference', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('completed_at', 'timestamptz')
    .addPrimaryKeyConstraint('payout_attempts_pk', ['payout_id', 'number'])
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('dispatched_at', 'timestamptz')
    .execute();
  await sql`create index events_undispatched on events (created_at) where dispatched_at is null`.execute(db);
  await db.schema.createIndex('events_object').on('events').columns(['object_id', 'created_at']).execute();
}
