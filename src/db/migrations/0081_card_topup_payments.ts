import type { Kysely } from 'kysely';

/**
 * Live card top-ups (issue #53; docs/surface-b.md "Card top-ups"): a Surface B card top-up in the
 * live environment is paid through a card payment (`card_payments`, one Checkout Session); the
 * top-up links to it. Its status then reads from the card payment (pending, completed, cancelled,
 * expired, failed). Sandbox top-ups keep `card_payment_id` null.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('card_topups').addColumn('card_payment_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('card_topups').dropColumn('card_payment_id').execute();
}
