import type { Kysely } from 'kysely';

/**
 * Fixed-window rate-limit counters (src/core/rate-limit): one row per limit key and window, bumped by
 * a single `INSERT ... ON CONFLICT DO UPDATE ... RETURNING` so every API process shares the count.
 * Rows of windows that have ended are pruned (pruneRateLimitCounters).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rate_limit_counters')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limit_counters_pk', ['key', 'window_start'])
    .execute();
  await db.schema.createIndex('rate_limit_counters_expires').on('rate_limit_counters').column('expires_at').execute();
}
