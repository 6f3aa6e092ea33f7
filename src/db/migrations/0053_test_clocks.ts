import { type Kysely, sql } from 'kysely';

/**
 * Sandbox test clocks (docs/test-clocks.md): one row per advance of a sandbox business's clock.
 * The business's clock is the real time plus the sum of its advances.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('test_clock_advances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('by_ms', 'bigint', (c) => c.notNull())
    .addColumn('workflows_signaled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('test_clock_advances_scope').on('test_clock_advances').columns(['business_id', 'environment', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('test_clock_advances').execute();
}
