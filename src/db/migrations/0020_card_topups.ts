import { type Kysely, sql } from 'kysely';

/**
 * Surface B card top-ups (`POST /funding/card`): a checkout the payer completes or cancels on the
 * sandbox checkout page; completion records a core deposit with source `card`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('card_topups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('success_url', 'text', (c) => c.notNull())
    .addColumn('cancel_url', 'text', (c) => c.notNull())
    .addColumn('deposit_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
}
