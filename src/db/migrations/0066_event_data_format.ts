import type { Kysely } from 'kysely';

/**
 * `events.data_format`: how `events.data` is stored (docs/webhooks.md "Event data"). `surface_a`
 * (every row written before this migration): the object as Surface A renders it; `domain`: the
 * core's domain object (src/domain/event-objects.ts), rendered for each surface when it is
 * delivered or listed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('data_format', 'text', (c) => c.notNull().defaultTo('surface_a')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('data_format').execute();
}
