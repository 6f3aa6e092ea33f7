import type { EventDataFormat } from '../domain/event-objects';
import { newId } from '../domain/ids';
import { recordPayoutEvent } from './metrics/registry';
import type { DbOrTx, Environment } from '../db/schema';

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
  const rows = await tx
    .insertInto('events')
    .values(values)
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returning('id')
    .execute();
  if (rows.length) eventWritten(e);
  return rows.length ? values.id : null;
}

/**
 * The `events` row of `e` with a new `evt_…` id, for a caller that writes it in a statement of its
 * own (the one-statement payout accept, src/core/payouts/accept.ts; insert it with
 * `on conflict (dedupe_key) do nothing` and call {@link eventWritten} when it was written).
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
