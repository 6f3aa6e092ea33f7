import { notFound, validationError } from '../domain/errors';
import { isValidEventPattern, surfaceACoreTypes, surfaceAEventType } from '../domain/webhook-events';
import type { Caller, Core } from './context';
import { paginate, type ListEnvelope } from './paging';

/**
 * The events API of Surface A (docs/webhooks.md "Events API"): the outbox read back, each event in
 * the very envelope its deliveries were signed over. The envelope is not stored: it is rebuilt from
 * the `events` row by {@link surfaceAEnvelope}, the same function the delivery attempt serializes
 * (src/core/webhooks.ts), from the same stored jsonb, so the object is identical field for field
 * and `JSON.stringify` of it gives the delivered body byte for byte.
 */

/** Days an event stays listed (docs/webhooks.md "Retention"); the retention job deletes older rows. */
export const EVENT_RETENTION_DAYS = 30;

/** Surface A envelope (spec "Envelope, Surface A"): `data.object` is the object's snapshot. */
export interface SurfaceAEnvelope {
  id: string;
  type: string;
  /** ISO 8601 UTC: when the event happened. */
  created_at: string;
  data: { object: Record<string, unknown> };
}

/** Builds the Surface A envelope of an outbox event (`type` is the Surface A name). */
export function surfaceAEnvelope(event: { id: string; type: string; created_at: Date; data: Record<string, unknown> }): SurfaceAEnvelope {
  return { id: event.id, type: event.type, created_at: event.created_at.toISOString(), data: { object: event.data } };
}

const asDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));

function toEnvelope(row: { id: string; type: string; created_at: unknown; data: Record<string, unknown> }): SurfaceAEnvelope {
  return surfaceAEnvelope({ id: row.id, type: surfaceAEventType(row.type) ?? row.type, created_at: asDate(row.created_at), data: row.data });
}

/** Filters of `GET /events`; times are ISO 8601 strings as the query gave them. */
export interface EventFilter {
  limit: number;
  cursor?: string;
  /** A Surface A event type or wildcard (`payout.*`, `*`), the rule of webhook subscriptions. */
  type?: string;
  created_after?: string;
  created_before?: string;
}

function parseTime(value: string | undefined, param: string): Date | undefined {
  if (value === undefined) return undefined;
  const d = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(d.getTime())) {
    throw validationError(param, `${param} must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z`);
  }
  return d;
}

/** The `[after, before)` window of a filter, clipped to the retention window; 400 on a bad value (param named). */
export function eventWindow(core: Core, f: { created_after?: string; created_before?: string }): { after: Date; before?: Date } {
  const after = parseTime(f.created_after, 'created_after');
  const before = parseTime(f.created_before, 'created_before');
  const retained = new Date(core.now().getTime() - EVENT_RETENTION_DAYS * 86_400_000);
  return { after: after && after > retained ? after : retained, before };
}

/**
 * Lists the caller's Surface A events, newest first, in the List envelope (spec "List envelope";
 * docs/webhooks.md "Events API"). Only events Surface A receives, of the last
 * {@link EVENT_RETENTION_DAYS} days; `created_after` inclusive, `created_before` exclusive.
 * 400 validation_error with param `type`, `created_after`, `created_before` or `cursor`.
 */
export async function listEvents(core: Core, caller: Caller, f: EventFilter): Promise<ListEnvelope<SurfaceAEnvelope>> {
  if (f.type !== undefined && !isValidEventPattern(f.type)) {
    throw validationError('type', `'${f.type}' is not a Surface A event type or wildcard (payout.*, *)`);
  }
  const { after, before } = eventWindow(core, f);
  let q = core.db
    .selectFrom('events')
    .select(['id', 'type', 'created_at', 'data'])
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .where('type', 'in', surfaceACoreTypes(f.type))
    .where('created_at', '>=', after);
  if (before) q = q.where('created_at', '<', before);
  const { rows, next_cursor } = await paginate(q, 'id', f);
  return { data: rows.map(toEnvelope), next_cursor };
}

/**
 * One event of the caller's business and environment, in the envelope its deliveries were signed
 * over. 404 not_found for an unknown id, another tenant's, a type Surface A does not receive, or an
 * event past retention.
 */
export async function getEvent(core: Core, caller: Caller, id: string): Promise<SurfaceAEnvelope> {
  const row = await core.db
    .selectFrom('events')
    .select(['id', 'type', 'created_at', 'data'])
    .where('id', '=', id)
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .where('type', 'in', surfaceACoreTypes())
    .where('created_at', '>=', eventWindow(core, {}).after)
    .executeTakeFirst();
  if (!row) throw notFound('event', id);
  return toEnvelope(row);
}
