import { type Kysely, sql } from 'kysely';

/**
 * The live ACH rail (docs/rails.md "ACH"): an instruction on a file rail is no longer always an
 * ISO 20022 credit transfer. rail_instructions keeps the EndToEndId (our reference, every rail),
 * makes the ISO-only UETR and IBAN optional, and gains the ACH trace number (unique per rail), the
 * rail's own creditor fields (`details`: routing and account number, account type, SEC code) and
 * when the instruction settles. rail_files records the ACH settlement window and settlement time.
 * Trace numbers come from one sequence, so they are never reused, across workers and restarts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table rail_instructions alter column uetr drop not null`.execute(db);
  await sql`alter table rail_instructions alter column creditor_iban drop not null`.execute(db);
  await db.schema
    .alterTable('rail_instructions')
    .addColumn('trace_number', 'text')
    .addColumn('details', 'jsonb')
    .execute();
  await db.schema.createIndex('rail_instructions_trace').unique().on('rail_instructions').columns(['rail', 'trace_number']).where(sql.ref('trace_number'), 'is not', null).execute();
  await db.schema
    .alterTable('rail_files')
    .addColumn('settlement_window', 'text')
    .addColumn('settles_at', 'timestamptz')
    .addColumn('settled_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('rail_files_settling').on('rail_files').columns(['rail', 'settles_at']).where(sql.ref('settled_at'), 'is', null).execute();
  // The 7-digit sequence part of ACH trace numbers (the ODFI's 8-digit routing prefix is the rest).
  await sql`create sequence if not exists ach_trace_seq minvalue 1 maxvalue 9999999 no cycle`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop sequence if exists ach_trace_seq`.execute(db);
  await db.schema.dropIndex('rail_files_settling').execute();
  await db.schema.alterTable('rail_files').dropColumn('settlement_window').dropColumn('settles_at').dropColumn('settled_at').execute();
  await db.schema.dropIndex('rail_instructions_trace').execute();
  await db.schema.alterTable('rail_instructions').dropColumn('trace_number').dropColumn('details').execute();
}
