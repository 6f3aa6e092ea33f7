import { type Kysely, sql } from 'kysely';

/**
 * Channels paused at runtime by an operator (`npm run admin -- channel pause <id>`; docs/operations.md
 * "Pausing a channel"): every API and worker process reads this table, so a pause takes effect
 * everywhere within seconds, without a restart. PAUSED_CHANNELS stays the start-up default.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('channel_pauses')
    .addColumn('channel', 'text', (c) => c.primaryKey())
    .addColumn('reason', 'text')
    .addColumn('paused_by', 'text', (c) => c.notNull())
    .addColumn('paused_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('channel_pauses').execute();
}
