import type { Kysely } from 'kysely';

/**
 * Saved recipients' last screening (issue #52; docs/screening.md "Saved recipients"): one row per
 * recipient, written only by src/core/screening/recipient-screening.ts. `versions_key` names the
 * list versions used, so a list change finds the recipients to screen again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('recipient_screenings')
    .addColumn('recipient_id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('screening_id', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('versions_key', 'text', (c) => c.notNull())
    .addColumn('screened_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('recipient_screenings').execute();
}
