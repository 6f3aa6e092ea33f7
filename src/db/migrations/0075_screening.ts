import { type Kysely, sql } from 'kysely';

/**
 * Sanctions screening (issue #52; docs/screening.md): `screening_list_versions` holds every loaded
 * version of each configured list (entries, content hash, publication time, last confirmed fetch),
 * written only by src/core/screening/lists.ts; `screenings` records every screening and the list
 * versions it used, written only by src/core/screening/screenings.ts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('screening_list_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('list', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('published_at', 'timestamptz')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('entry_count', 'integer', (c) => c.notNull())
    .addColumn('entries', 'jsonb', (c) => c.notNull())
    .addColumn('loaded_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('checked_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('screening_list_versions_list_sha256_key', ['list', 'sha256'])
    .execute();
  await db.schema.createIndex('screening_list_versions_current_idx').on('screening_list_versions').columns(['list', 'checked_at desc']).execute();
  await db.schema
    .createTable('screenings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('screened_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('subject_kind', 'text', (c) => c.notNull())
    .addColumn('subject_name', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('hits', 'jsonb', (c) => c.notNull())
    .addColumn('list_versions', 'jsonb', (c) => c.notNull())
    .addColumn('reference', 'text')
    .execute();
  await db.schema.createIndex('screenings_reference_idx').on('screenings').column('reference').where('reference', 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('screenings').execute();
  await db.schema.dropTable('screening_list_versions').execute();
}
