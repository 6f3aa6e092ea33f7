import { type Kysely, sql } from 'kysely';

/**
 * Live notification providers (docs/notifications.md): one row per provider message of a
 * notification (`notification_messages`, recorded before the provider is called, so an unknown
 * outcome can be looked up instead of sent again; at most one per notification and channel), the
 * recipients who opted out of a channel on a destination (`notification_opt_outs`, Twilio's inbound
 * STOP), the provider callbacks already applied (`notification_callbacks`, a replay is refused), and
 * the notification's delivery outcome (`delivered_at`, `failure_code`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notification_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('notification_id', 'text', (c) => c.notNull().references('notifications.id'))
    .addColumn('payout_id', 'text', (c) => c.notNull())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('in_flight', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_attempt_at', 'timestamptz')
    .addColumn('provider_message_id', 'text')
    .addColumn('provider_status', 'text')
    .addColumn('failure_code', 'text')
    .addColumn('error', 'text')
    .addColumn('sent_at', 'timestamptz')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('failed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('notification_messages_channel_once').on('notification_messages').columns(['notification_id', 'channel']).unique().execute();
  await db.schema.createIndex('notification_messages_provider_id').on('notification_messages').columns(['provider', 'provider_message_id']).unique().execute();
  await db.schema.createIndex('notification_messages_pending').on('notification_messages').columns(['status', 'purpose']).execute();

  await db.schema
    .createTable('notification_opt_outs')
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('notification_opt_outs_pk', ['environment', 'channel', 'destination'])
    .execute();

  await db.schema
    .createTable('notification_callbacks')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema.alterTable('notifications').addColumn('delivered_at', 'timestamptz').execute();
  await db.schema.alterTable('notifications').addColumn('failure_code', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('notifications').dropColumn('failure_code').execute();
  await db.schema.alterTable('notifications').dropColumn('delivered_at').execute();
  await db.schema.dropTable('notification_callbacks').execute();
  await db.schema.dropTable('notification_opt_outs').execute();
  await db.schema.dropTable('notification_messages').execute();
}
