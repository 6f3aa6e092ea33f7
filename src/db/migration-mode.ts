import { type Kysely, sql } from 'kysely';

/**
 * Migration mode (docs/security.md "The database enforces the ledger"): lets the rest of the current
 * transaction change the append-only money records (`ledger_postings`, `disbursement_approvals`,
 * `audit_events`) and balances, for a member of the tables' owner role only. A migration that must
 * rewrite one calls this first, inside its transaction (Kysely runs each migration in one on
 * PostgreSQL and PGlite); the setting ends with the transaction. An application role calling it
 * gains nothing.
 */
export async function enterMigrationMode(db: Kysely<any>): Promise<void> {
  await sql`select set_config('payouts.migration', 'on', true)`.execute(db);
}
