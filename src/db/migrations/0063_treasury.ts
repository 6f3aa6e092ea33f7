import { type Kysely, sql } from 'kysely';

/**
 * The daily reconciliation of the platform's own settlement accounts (docs/treasury.md): the
 * bank's end-of-day statements (camt.053 for the EUR account, BAI2 for the USD account), their
 * entries with what each matched in our books, and the breaks found. src/core/treasury/ writes
 * all three tables.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('treasury_statements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('rail', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('rail_file_id', 'text', (c) => c.notNull().unique())
    .addColumn('statement_ref', 'text', (c) => c.notNull())
    .addColumn('sequence_number', 'bigint')
    .addColumn('statement_date', 'text', (c) => c.notNull())
    .addColumn('period_start', 'timestamptz')
    .addColumn('period_end', 'timestamptz', (c) => c.notNull())
    .addColumn('opening_minor', 'bigint', (c) => c.notNull())
    .addColumn('closing_minor', 'bigint', (c) => c.notNull())
    .addColumn('entries', 'integer', (c) => c.notNull())
    .addColumn('books_position_minor', 'bigint')
    .addColumn('in_transit_minor', 'bigint')
    .addColumn('reconciled_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('treasury_statements_ref', ['rail', 'account_id', 'statement_ref'])
    .execute();
  await db.schema.createIndex('treasury_statements_account').on('treasury_statements').columns(['rail', 'period_end']).execute();
  await db.schema
    .createTable('treasury_statement_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('statement_id', 'text', (c) => c.notNull().references('treasury_statements.id'))
    .addColumn('rail', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('credit_debit', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('type_code', 'text')
    .addColumn('reference', 'text')
    .addColumn('match_keys', 'jsonb', (c) => c.notNull())
    .addColumn('booked_on', 'text')
    .addColumn('description', 'text')
    .addColumn('matched_key', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('treasury_entries_statement').on('treasury_statement_entries').columns(['statement_id', 'position']).execute();
  await db.schema
    .createTable('treasury_breaks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('rail', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('break_key', 'text', (c) => c.notNull())
    .addColumn('statement_id', 'text')
    .addColumn('entry_id', 'text')
    .addColumn('reference', 'text')
    .addColumn('bank_amount_minor', 'bigint')
    .addColumn('books_amount_minor', 'bigint')
    .addColumn('difference_minor', 'bigint', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('opened_at', 'timestamptz', (c) => c.notNull())
    .addColumn('resolved_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('treasury_breaks_key', ['rail', 'kind', 'break_key'])
    .execute();
  await db.schema.createIndex('treasury_breaks_open').on('treasury_breaks').columns(['rail', 'status']).execute();
  await sql`alter table treasury_breaks add constraint treasury_breaks_kind check (kind in ('bank_only', 'books_only', 'amount_mismatch', 'balance_drift'))`.execute(db);
  await sql`alter table treasury_breaks add constraint treasury_breaks_status check (status in ('open', 'resolved'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('treasury_breaks').execute();
  await db.schema.dropTable('treasury_statement_entries').execute();
  await db.schema.dropTable('treasury_statements').execute();
}
