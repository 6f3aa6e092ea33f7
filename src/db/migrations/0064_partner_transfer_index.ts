import { type Kysely, sql } from 'kysely';

/**
 * Payout partner transfers are found by the partner's transfer id (docs/rails.md "Payout partner":
 * each webhook and poll names the transfer), kept in rail_instructions.details.transfer_id: an
 * expression index on (rail, details->>'transfer_id') so a webhook finds its instruction without a
 * scan. Adds no table and no column.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists rail_instructions_partner_transfer on rail_instructions (rail, (details->>'transfer_id'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists rail_instructions_partner_transfer`.execute(db);
}
