import { type Kysely, sql } from 'kysely';

/** Quotes and saved recipients. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('quotes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('source_amount', 'bigint', (c) => c.notNull())
    .addColumn('destination_amount', 'bigint', (c) => c.notNull())
    .addColumn('destination_currency', 'text', (c) => c.notNull())
    .addColumn('rate', 'text', (c) => c.notNull())
    .addColumn('fee_provider', 'bigint', (c) => c.notNull())
    .addColumn('fee_service', 'bigint', (c) => c.notNull())
    .addColumn('fee_fx_spread', 'bigint', (c) => c.notNull())
    .addColumn('fee_total', 'bigint', (c) => c.notNull())
    .addColumn('fixed_side', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('recipients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('country', 'text')
    .addColumn('currency', 'text')
    .addColumn('name', 'text')
    .addColumn('kind', 'text')
    .addColumn('external_id', 'text')
    .addColumn('details', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('missing_fields', 'jsonb', (c) => c.notNull())
    .addColumn('channels', 'jsonb', (c) => c.notNull())
    .addColumn('deleted_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('recipients_scope')
    .on('recipients')
    .columns(['business_id', 'environment', 'id'])
    .execute();
}
