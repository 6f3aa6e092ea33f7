import { type Kysely, sql } from 'kysely';

/** Getting paid: virtual accounts, deposits, payment links and payment requests (docs/getting-paid.md). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('virtual_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('rail', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('details', 'jsonb', (c) => c.notNull())
    .addColumn('account_identifier', 'text', (c) => c.notNull())
    .addColumn('reference_required', 'boolean', (c) => c.notNull())
    .addColumn('label', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('virtual_accounts_identifier', ['environment', 'account_identifier'])
    .execute();
  await db.schema.createIndex('virtual_accounts_scope').on('virtual_accounts').columns(['business_id', 'environment', 'id']).execute();

  await db.schema
    .createTable('deposits')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('virtual_account_id', 'text')
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('rate', 'text', (c) => c.notNull())
    .addColumn('gross_amount', 'bigint', (c) => c.notNull())
    .addColumn('fee_fx_spread', 'bigint', (c) => c.notNull())
    .addColumn('fee_processing', 'bigint', (c) => c.notNull())
    .addColumn('fee_total', 'bigint', (c) => c.notNull())
    .addColumn('net_amount', 'bigint', (c) => c.notNull().check(sql`net_amount > 0`))
    .addColumn('reference', 'text')
    .addColumn('sender_name', 'text')
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('match_result', 'text')
    .addColumn('payment_request_id', 'text')
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .addColumn('credited_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    // The same transfer delivered twice is one deposit (credited once).
    .addUniqueConstraint('deposits_external', ['business_id', 'environment', 'source', 'external_id'])
    .execute();
  await db.schema.createIndex('deposits_scope').on('deposits').columns(['business_id', 'environment', 'id']).execute();
  // One deposit pays at most one request and a request is paid by at most one deposit.
  await sql`create unique index deposits_payment_request on deposits (payment_request_id) where payment_request_id is not null`.execute(db);

  await db.schema
    .createTable('payment_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('methods', 'jsonb', (c) => c.notNull())
    .addColumn('published', 'boolean', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payment_links_scope').on('payment_links').columns(['business_id', 'environment', 'id']).execute();

  await db.schema
    .createTable('payment_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('payment_link_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('reference_key', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('paid_at', 'timestamptz')
    .addColumn('deposit_id', 'text', (c) => c.unique())
    .addColumn('expired_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payment_requests_scope').on('payment_requests').columns(['business_id', 'environment', 'id']).execute();
  await sql`create index payment_requests_open on payment_requests (business_id, environment, currency, amount) where status = 'open'`.execute(db);
}
