import { type Kysely, sql } from 'kysely';

/**
 * Events API, delivery retries and secret rotation (docs/webhooks.md):
 * - `webhook_endpoints.previous_secret` / `previous_secret_expires_at`: the secret a rotation
 *   replaced, still signing (a second `v1`) until it expires;
 * - `webhook_deliveries.retry_count`: how many manual re-sends (retry, resend) started a delivery
 *   workflow run of their own (workflow id `<delivery id>.r<n>`);
 * - `webhook_attempts.run`: '' for the delivery's first run, `r<n>` for a re-send's, so the attempts
 *   of several runs of one delivery keep distinct keys;
 * - an index for `GET /events` (business, environment, newest first).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_expires_at', 'timestamptz').execute();
  await db.schema
    .alterTable('webhook_deliveries')
    .addColumn('retry_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('webhook_attempts')
    .addColumn('run', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await sql`alter table webhook_attempts drop constraint webhook_attempts_pk`.execute(db);
  await sql`alter table webhook_attempts add constraint webhook_attempts_pk primary key (delivery_id, run, number)`.execute(db);
  await db.schema.createIndex('events_scope_id').on('events').columns(['business_id', 'environment', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute();
}
