import { type Kysely, sql } from 'kysely';

/**
 * Live rates (issue #33; docs/rates.md): `fx_rate_observations` holds the latest accepted answer of
 * every rate source per pair (written only by src/core/rates/store.ts), read by every process into
 * its in-memory rate cache. Quotes, payouts and deposits record the rate they used: its source, its
 * as-of time, the time it stopped being usable, the reference rate before the spread and the spread
 * in basis points (all null in the sandbox and on rows from before this migration).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('fx_rate_observations')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('base', 'text', (c) => c.notNull())
    .addColumn('quote', 'text', (c) => c.notNull())
    .addColumn('bid', 'text', (c) => c.notNull())
    .addColumn('ask', 'text', (c) => c.notNull())
    .addColumn('as_of', 'timestamptz', (c) => c.notNull())
    .addColumn('fetched_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('fx_rate_observations_pkey', ['source', 'base', 'quote'])
    .execute();
  for (const table of ['quotes', 'payouts', 'deposits']) {
    await db.schema
      .alterTable(table)
      .addColumn('rate_source', 'text')
      .addColumn('rate_as_of', 'timestamptz')
      .addColumn('rate_usable_until', 'timestamptz')
      .addColumn('reference_rate', 'text')
      .addColumn('fx_spread_bps', 'integer')
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['quotes', 'payouts', 'deposits']) {
    await db.schema
      .alterTable(table)
      .dropColumn('rate_source')
      .dropColumn('rate_as_of')
      .dropColumn('rate_usable_until')
      .dropColumn('reference_rate')
      .dropColumn('fx_spread_bps')
      .execute();
  }
  await db.schema.dropTable('fx_rate_observations').execute();
}
