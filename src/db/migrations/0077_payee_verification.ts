import { type Kysely, sql } from 'kysely';

/**
 * Verification of Payee on `sepa_eur` (issue #52; docs/payee-verification.md): `payee_verifications`
 * holds one rail answer per payout and the business's decision on it, written only by
 * src/core/payouts/payee-verification.ts; `businesses.verify_payee_batches` is the business's
 * batch opt-in (default true), written only by src/core/businesses.ts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payee_verifications')
    .addColumn('payout_id', 'text', (c) => c.primaryKey().references('payouts.id'))
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('name_returned', 'text')
    .addColumn('reason_code', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'timestamptz', (c) => c.notNull())
    .addColumn('answered_at', 'timestamptz', (c) => c.notNull())
    .addColumn('confirm_by', 'timestamptz')
    .addColumn('decision', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'timestamptz')
    .execute();
  await db.schema.alterTable('businesses').addColumn('verify_payee_batches', 'boolean', (c) => c.notNull().defaultTo(sql`true`)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('businesses').dropColumn('verify_payee_batches').execute();
  await db.schema.dropTable('payee_verifications').execute();
}
