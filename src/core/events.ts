/**
 * The event outbox (spec "Events"; docs/architecture.md "Outboxes"): the one module that writes
 * `events`. Callers compute an {@link EventInput} (its `data` included) and write it here, alone,
 * as part of a larger statement ({@link eventInsertQuery}, {@link eventInsertSelect}) or as many
 * rows in one statement ({@link insertEventRowsJson}, {@link insertNewEventRowsJson}).
 */
import { type RawBuilder, sql } from 'kysely';
import type { EventDataFormat } from '../domain/event-objects';
import { newId } from '../domain/ids';
import { recordPayoutEvent } from './metrics/registry';
import type { DbOrTx, Environment } from '../db/schema';
import { columnList, columnsAndValues } from './sql-rows';

/** A domain event to put in the outbox (spec "Events"). */
export interface EventInput {
  businessId: string;
  environment: Environment;
  /** Event type such as `payout.succeeded`, `disbursement.launched`. */
  type: string;
  /** `payout`, `disbursement`, `deposit`, ... */
  objectType: string;
  objectId: string;
  /**
   * The object when the event happened: with `dataFormat: 'domain'`, the domain object's JSON form
   * (src/domain/event-objects.ts `eventObjectData`); otherwise Surface A's rendering of it.
   * Each surface renders its payload from it when the event is delivered or listed.
   */
  data: Record<string, unknown>;
  /** How `data` is stored; default `surface_a`. */
  dataFormat?: EventDataFormat;
  /** Unique per emission (e.g. `payout:po_…:succeeded`): a retried activity emits once. */
  dedupeKey: string;
}

/**
 * Writes an event to the outbox in the caller's transaction (docs/architecture.md "Money rules", rule 3: the projection and the
 * event it emits commit together). Idempotent on `dedupeKey`. Returns the event id, or null when an
 * event with that key already existed. A payout event actually written is counted in
 * payouts_created_total / payouts_finished_total (src/core/metrics; counted at the write, so a
 * transaction rolled back afterwards over-counts by one: metrics are not the ledger).
 */
export async function emitEvent(tx: DbOrTx, e: EventInput): Promise<string | null> {
  const values = eventValues(e);
  const rows = await insertEventValuesQuery(tx, values).execute();
  if (rows.length) eventWritten(e);
  return rows.length ? values.id : null;
}

const insertEventValuesQuery = (db: DbOrTx, values: ReturnType<typeof eventValues>) =>
  db
    .insertInto('events')
    .values(values)
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returning('id');

/**
 * The insert of `e` (a new id, idempotent on `dedupeKey`, returning `id`) as a query to embed in a
 * larger statement (the payout transition's CTE, src/core/payouts/transitions.ts). Call
 * {@link eventWritten} when it returned a row.
 */
export function eventInsertQuery(db: DbOrTx, e: EventInput) {
  return insertEventValuesQuery(db, eventValues(e));
}

/**
 * The body of a CTE inserting the event row `values` (from {@link eventValues}) `select`ed with
 * `gate` appended (`from balance` in the one-statement accept, src/core/payouts/accept.ts, or
 * nothing), idempotent on the dedupe key, returning `id`.
 */
export function eventInsertSelect(values: ReturnType<typeof eventValues>, gate: RawBuilder<unknown>): RawBuilder<unknown> {
  const { columns, values: vals } = columnsAndValues(values);
  return sql`insert into events (${columns}) select ${vals}${gate} on conflict (dedupe_key) do nothing returning id`;
}

/**
 * Inserts many complete `events` rows in one statement: `json` is a JSON array of rows with every
 * column (expanded by jsonb_populate_recordset; Surface B's batch, src/core/claim-flow/batch.ts).
 * A duplicate dedupe key fails the statement.
 */
export async function insertEventRowsJson(tx: DbOrTx, json: string): Promise<void> {
  // A row without `data_format` is a Surface A snapshot (the column's default, which
  // jsonb_populate_record would otherwise leave null).
  await sql`insert into events select (r).* from (
    select jsonb_populate_record(null::events, '{"data_format":"surface_a"}'::jsonb || e) as r from jsonb_array_elements(${json}::jsonb) e) s`.execute(tx);
}

/**
 * Inserts many `events` rows of the given `columns` in one statement (`json`: a JSON array of
 * rows), skipping dedupe keys already written. Returns the dedupe keys written.
 */
export async function insertNewEventRowsJson(tx: DbOrTx, columns: readonly string[], json: string): Promise<Set<string>> {
  const cols = columnList(columns);
  const written = await sql<{ dedupe_key: string }>`
    insert into events (${cols}) select ${cols} from jsonb_populate_recordset(null::events, ${json}::jsonb)
    on conflict (dedupe_key) do nothing returning dedupe_key`.execute(tx);
  return new Set(written.rows.map((w) => w.dedupe_key));
}

/** Marks the events `ids` dispatched at `now` (the webhook dispatcher, src/core/webhooks.ts). */
export async function markEventsDispatched(db: DbOrTx, ids: string[], now: Date): Promise<void> {
  await db.updateTable('events').set({ dispatched_at: now }).where('id', 'in', ids).execute();
}

/**
 * The `events` row of `e` with a new `evt_…` id, for a statement of many writes (insert it with
 * {@link eventInsertSelect} or {@link insertNewEventRowsJson}; call {@link eventWritten} when it
 * was written).
 */
export function eventValues(e: EventInput) {
  return {
    id: newId('evt'),
    business_id: e.businessId,
    environment: e.environment,
    type: e.type,
    object_type: e.objectType,
    object_id: e.objectId,
    data: JSON.stringify(e.data) as any,
    data_format: e.dataFormat ?? 'surface_a',
    dedupe_key: e.dedupeKey,
    dispatched_at: null,
  };
}

/** Counts an event that was written (payout events feed payouts_created_total / payouts_finished_total). */
export function eventWritten(e: EventInput): void {
  if (e.objectType === 'payout') recordPayoutEvent(e.type, e.data.channel, e.environment);
}

/**
 * Deletes up to `limit` events dispatched and created before `cutoff` (data retention,
 * src/core/retention.ts). Undispatched events are never deleted. Returns how many went.
 */
export async function purgeDispatchedEvents(db: DbOrTx, cutoff: Date, limit: number): Promise<number> {
  const r = await db
    .deleteFrom('events')
    .where('id', 'in', (eb) => eb.selectFrom('events').select('id').where('created_at', '<', cutoff).where('dispatched_at', 'is not', null).limit(limit))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
