import { type Kysely, sql } from 'kysely';

/** Key policies enforced (docs/getting-paid.md): the per-key daily budget counter and payout approvals. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('key_policy_usage')
    .addColumn('key_id', 'text', (c) => c.notNull())
    /** UTC day (YYYY-MM-DD). */
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('used', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`used >= 0`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('key_policy_usage_pk', ['key_id', 'day'])
    .execute();

  await db.schema
    .createTable('payout_approvals')
    .addColumn('payout_id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('requested_by_key_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('decided_by_key_id', 'text')
    .addColumn('decided_at', 'timestamptz')
    .addColumn('reason', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}
