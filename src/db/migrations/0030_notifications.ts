import { type Kysely, sql } from 'kysely';

/**
 * Recipient notifications of claim-link payouts (docs/surface-c.md, Surface C): one `notifications` row per
 * notified payout (its channel, destination, language and delivery status), and the messages the
 * sandbox provider recorded instead of sending (`sandbox_notification_messages`, one per
 * notification: the unique notification_id is the provider's deduplication key).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('payout_id', 'text', (c) => c.notNull().unique())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('requested_language', 'text')
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider', 'text')
    .addColumn('provider_message_id', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('sent_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notifications_scope').on('notifications').columns(['business_id', 'environment', 'id']).execute();

  await db.schema
    .createTable('sandbox_notification_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('notification_id', 'text', (c) => c.notNull().unique())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('payout_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('claim_url', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('sandbox_notification_messages_scope')
    .on('sandbox_notification_messages')
    .columns(['business_id', 'environment', 'id'])
    .execute();
}
