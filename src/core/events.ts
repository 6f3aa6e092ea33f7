/** The event outbox (spec "Events"; docs/architecture.md "Outboxes"): the one module that writes `events`. */
import { type Insertable, type RawBuilder, sql } from 'kysely';
import type { DomainEvent } from '../domain/domain-events';
import { eventObjectData } from '../domain/event-objects';
import { newId } from '../domain/ids';
import { recordPayoutEvent } from './metrics/registry';
import type { DbOrTx } from '../db/schema';
import type { EventsTable } from '../db/tables/payouts';
import { columnList, columnsAndValues } from './sql-rows';

/** A domain event for the outbox (spec "Events"), built by src/domain/domain-events.ts. */
export type EventInput = DomainEvent;

/** Writes an event in the caller's transaction (docs/architecture.md "Money rules", rule 3); null when `dedupeKey` exists. */
export async function emitEvent(tx: DbOrTx, e: EventInput): Promise<string | null> {
  const values = eventValues(e);
  const rows = await insertEventValuesQuery(tx, values).execute();
  if (rows.length) eventWritten(e);
  return rows.length ? values.id : null;
}

const insertEventValuesQuery = (db: DbOrTx, values: Insertable<EventsTable>) =>
  db
    .insertInto('events')
    .values(values)
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returning('id');

/** The insert of `e` as a query to embed in a larger statement; call {@link eventWritten} when it returned a row. */
export function eventInsertQuery(db: DbOrTx, e: EventInput) {
  return insertEventValuesQuery(db, eventValues(e));
}

/** A CTE body inserting the event row `values` selected with `gate` appended; idempotent, returning `id`. */
export function eventInsertSelect(values: Insertable<EventsTable>, gate: RawBuilder<unknown>): RawBuilder<unknown> {
  const { columns, values: vals } = columnsAndValues(values);
  return sql`insert into events (${columns}) select ${vals}${gate} on conflict (dedupe_key) do nothing returning id`;
}

/** Inserts many complete `events` rows (a JSON array of {@link eventRow}s) in one statement; a duplicate dedupe key fails it. */
export async function insertEventRowsJson(tx: DbOrTx, json: string): Promise<void> {
  await sql`insert into events select (r).* from (
    select jsonb_populate_record(null::events, e) as r from jsonb_array_elements(${json}::jsonb) e) s`.execute(tx);
}

/** Inserts `events` rows of `columns` from a JSON array, skipping known dedupe keys; returns the keys written. */
export async function insertNewEventRowsJson(tx: DbOrTx, columns: readonly string[], json: string): Promise<Set<string>> {
  const cols = columnList(columns);
  const written = await sql<{ dedupe_key: string }>`
    insert into events (${cols}) select ${cols} from jsonb_populate_recordset(null::events, ${json}::jsonb)
    on conflict (dedupe_key) do nothing returning dedupe_key`.execute(tx);
  return new Set(written.rows.map((w) => w.dedupe_key));
}

/** Marks the events `ids` dispatched at `now`. */
export async function markEventsDispatched(db: DbOrTx, ids: string[], now: Date): Promise<void> {
  await db.updateTable('events').set({ dispatched_at: now }).where('id', 'in', ids).execute();
}

/** The `events` row of `e` with a new `evt_…` id, for a multi-write statement. */
export function eventValues(e: EventInput): Insertable<EventsTable> {
  return { ...eventRow(e), data: JSON.stringify(eventObjectData(e.object)) };
}

/** {@link eventValues} with `data` as JSON, for a jsonb-parameter insert; `at` dates the id and `created_at`. */
export function eventRow(e: EventInput, at?: Date): Omit<Insertable<EventsTable>, 'data'> & { data: Record<string, unknown> } {
  return {
    id: newId('evt', at?.getTime()),
    business_id: e.businessId,
    environment: e.environment,
    type: e.type,
    object_type: e.objectType,
    object_id: e.objectId,
    data: eventObjectData(e.object),
    data_format: 'domain',
    dedupe_key: e.dedupeKey,
    dispatched_at: null,
    ...(at ? { created_at: at } : {}),
  };
}

/** Counts a written event in the payout metrics. */
export function eventWritten(e: EventInput): void {
  if (e.object.object === 'payout') recordPayoutEvent(e.type, e.object.value.channel, e.environment);
}

/** Deletes up to `limit` dispatched events created before `cutoff`; never an undispatched one. */
export async function purgeDispatchedEvents(db: DbOrTx, cutoff: Date, limit: number): Promise<number> {
  const r = await db
    .deleteFrom('events')
    .where('id', 'in', (eb) => eb.selectFrom('events').select('id').where('created_at', '<', cutoff).where('dispatched_at', 'is not', null).limit(limit))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
