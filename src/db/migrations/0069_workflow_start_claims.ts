import { type Kysely, sql } from 'kysely';

/**
 * `workflow_starts.claimed_until`: the lease of the process that is making a recorded start
 * (src/core/workflow-starts.ts, docs/architecture.md "Outboxes"). A row whose lease has not run out
 * is left alone by every other process's sweep; a row whose claimer died is swept once the lease
 * ends. Null: never claimed (swept once older than the relay's grace period).
 *
 * `events_outbox_notify`: every INSERT statement into `events` notifies channel `payouts_outbox`
 * (once per statement and transaction), which wakes an idle relay (src/core/relay.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('workflow_starts').addColumn('claimed_until', 'timestamptz').execute();
  await sql`create or replace function outbox_notify() returns trigger language plpgsql as $$
    begin perform pg_notify('payouts_outbox', tg_table_name); return null; end $$`.execute(db);
  await sql`create trigger events_outbox_notify after insert on events for each statement execute function outbox_notify()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists events_outbox_notify on events`.execute(db);
  await sql`drop function if exists outbox_notify()`.execute(db);
  await db.schema.alterTable('workflow_starts').dropColumn('claimed_until').execute();
}
