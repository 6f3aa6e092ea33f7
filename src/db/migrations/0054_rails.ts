import { type Kysely, sql } from 'kysely';

/**
 * Live bank rails (docs/rails.md): the payment instructions handed to a rail, the files exchanged
 * with the bank, and the rail events read from them (matched to a payout or kept unmatched for
 * operators). A payout's failure keeps the rail's own reason code and whether a retry may help.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payouts')
    .addColumn('failure_retryable', 'boolean')
    .addColumn('failure_rail_reason_code', 'text')
    .execute();

  await db.schema
    .createTable('rail_files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('rail', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text')
    .addColumn('bytes', 'integer')
    .addColumn('content', 'text')
    .addColumn('transactions', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('control_sum_minor', 'bigint')
    .addColumn('execution_date', 'text')
    .addColumn('window_key', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('rail_files_name', ['rail', 'direction', 'name'])
    .execute();
  await db.schema.createIndex('rail_files_listing').on('rail_files').columns(['created_at', 'id']).execute();

  await db.schema
    .createTable('rail_instructions')
    .addColumn('payout_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('rail', 'text', (c) => c.notNull())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('end_to_end_id', 'text', (c) => c.notNull().unique())
    .addColumn('uetr', 'text', (c) => c.notNull().unique())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('creditor_name', 'text', (c) => c.notNull())
    .addColumn('creditor_iban', 'text', (c) => c.notNull())
    .addColumn('creditor_bic', 'text')
    .addColumn('remittance', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('rail_file_id', 'text')
    .addColumn('payment_information_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('rail_instructions_pk', ['payout_id', 'attempt'])
    .execute();
  await db.schema.createIndex('rail_instructions_queue').on('rail_instructions').columns(['rail', 'status', 'created_at']).execute();
  await db.schema.createIndex('rail_instructions_file').on('rail_instructions').column('rail_file_id').execute();

  await db.schema
    .createTable('rail_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('rail', 'text', (c) => c.notNull())
    .addColumn('rail_file_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payout_id', 'text')
    .addColumn('attempt', 'integer')
    .addColumn('deposit_id', 'text')
    .addColumn('end_to_end_id', 'text')
    .addColumn('uetr', 'text')
    .addColumn('reason_code', 'text')
    .addColumn('occurred_at', 'timestamptz')
    .addColumn('details', 'jsonb', (c) => c.notNull())
    .addColumn('dispatched_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('rail_events_payout').on('rail_events').columns(['payout_id', 'id']).execute();
  await db.schema.createIndex('rail_events_undispatched').on('rail_events').columns(['created_at']).where(sql.ref('dispatched_at'), 'is', null).execute();
  await db.schema.createIndex('rail_events_unmatched').on('rail_events').columns(['created_at']).where(sql.ref('payout_id'), 'is', null).where(sql.ref('deposit_id'), 'is', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rail_events').execute();
  await db.schema.dropTable('rail_instructions').execute();
  await db.schema.dropTable('rail_files').execute();
  await db.schema.alterTable('payouts').dropColumn('failure_retryable').dropColumn('failure_rail_reason_code').execute();
}
