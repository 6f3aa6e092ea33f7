import type { Kysely } from 'kysely';

/**
 * Screening cases (issue #52; docs/screening.md "Holding payouts"): one row per payout held for an
 * operator's decision (or refused by the system), written only by src/core/screening/cases.ts.
 * One case per payout (a name mismatch and a potential match share it); the queue reads by (status, opened_at).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('screening_cases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('subject_type', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('screening_id', 'text')
    .addColumn('hits', 'jsonb', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('opened_at', 'timestamptz', (c) => c.notNull())
    .addColumn('reviewer', 'text')
    .addColumn('reviewed_at', 'timestamptz')
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'timestamptz')
    .addColumn('decision_reason', 'text')
    .addUniqueConstraint('screening_cases_subject_key', ['subject_type', 'subject_id'])
    .execute();
  await db.schema.createIndex('screening_cases_queue_idx').on('screening_cases').columns(['status', 'opened_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('screening_cases').execute();
}
