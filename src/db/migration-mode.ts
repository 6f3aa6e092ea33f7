import { type Kysely, sql } from 'kysely';

/**
 * Lets the rest of the current transaction change append-only money records and balances, for the
 * tables' owner role only (docs/security.md "The database enforces the ledger"); ends with the transaction.
 */
export async function enterMigrationMode(db: Kysely<any>): Promise<void> {
  await sql`select set_config('payouts.migration', 'on', true)`.execute(db);
}
