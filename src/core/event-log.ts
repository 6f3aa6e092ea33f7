import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { fieldValidationError, notFound, validationError } from '../domain/errors';
import { isSurfaceCEventPattern, SURFACE_C_EVENT_WILDCARDS, surfaceCCoreTypes, surfaceCEnvelope, type SurfaceCEnvelope } from '../domain/surface-c';
import { isValidEventPattern, matchesEventPattern, SURFACE_A_EVENT_WILDCARDS, surfaceACoreTypes, surfaceAEventType } from '../domain/webhook-events';
import type { Database } from '../db/schema';
import { surfaceASnapshot } from '../wire/events';
import type { Caller, Core } from './context';
import { paginate, type ListEnvelope } from './paging';
import { isSurfaceBEventPattern, SURFACE_B_EVENT_RULES, SURFACE_B_EVENT_WILDCARDS, surfaceBEnvelope, type SurfaceBEnvelope } from './webhooks-surface-b';

/**
 * The events API of Surfaces A, B and C (docs/webhooks.md "Events API"): the outbox read back, each
 * event in the very envelope its deliveries to an endpoint of that surface were signed over. The
 * envelope is not stored: it is rendered from the `events` row (src/wire/events.ts, either stored
 * form) by the surface's envelope function ({@link surfaceAEnvelope}, `surfaceBEnvelope`,
 * `surfaceCEnvelope`), the same functions the delivery attempt serializes (src/core/webhooks.ts),
 * so `JSON.stringify` of it gives the delivered body byte for byte. Each surface lists only the
 * events its endpoints receive, under its own names.
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

/** Surfaces with an events API; each lists the events its webhook endpoints receive. */
export type EventSurface = 'A' | 'B' | 'C';

/** The envelope each surface's endpoints receive (spec "Envelope", per surface). */
export interface SurfaceEnvelopes {
  A: SurfaceAEnvelope;
  B: SurfaceBEnvelope;
  C: SurfaceCEnvelope;
}

type EventRow = { id: string; type: string; created_at: unknown; data: Record<string, unknown>; data_format: string };
type EventsWhere = (eb: ExpressionBuilder<Database, 'events'>, pattern?: string) => Expression<SqlBool>;

/**
 * Surface B's names depend on the snapshot (src/core/webhooks-surface-b.ts): the rules whose name
 * matches `pattern`, each as SQL over the stored jsonb (`data->>'channel'`, `data->'failure'->>'code'`).
 */
const surfaceBWhere: EventsWhere = (eb, pattern) => {
  const rules = SURFACE_B_EVENT_RULES.filter((r) => pattern === undefined || matchesEventPattern(pattern, r.type));
  if (rules.length === 0) return sql<SqlBool>`false`;
  return eb.or(
    rules.map((r) => {
      const parts: Expression<SqlBool>[] = [eb('type', '=', r.core)];
      if (r.claimLinkOnly) parts.push(sql<SqlBool>`data->>'channel' = 'claim_link'`);
      if (r.claimExpired === true) parts.push(sql<SqlBool>`data->'failure'->>'code' = 'claim_expired'`);
      if (r.claimExpired === false) parts.push(sql<SqlBool>`coalesce(data->'failure'->>'code', '') <> 'claim_expired'`);
      return eb.and(parts);
    }),
  );
};

const SURFACES: { [S in EventSurface]: { valid: (p: string) => boolean; wildcards: readonly string[]; where: EventsWhere; envelope: (row: EventRow) => SurfaceEnvelopes[S] | null } } = {
  A: {
    valid: isValidEventPattern,
    wildcards: SURFACE_A_EVENT_WILDCARDS,
    where: (eb, pattern) => eb('type', 'in', surfaceACoreTypes(pattern)),
    envelope: (row) => surfaceAEnvelope({ id: row.id, type: surfaceAEventType(row.type) ?? row.type, created_at: asDate(row.created_at), data: surfaceASnapshot(row.data_format, row.data) }),
  },
  B: {
    valid: isSurfaceBEventPattern,
    wildcards: SURFACE_B_EVENT_WILDCARDS,
    where: surfaceBWhere,
    envelope: (row) => surfaceBEnvelope({ id: row.id, type: row.type, created_at: asDate(row.created_at), data: surfaceASnapshot(row.data_format, row.data) }),
  },
  C: {
    valid: isSurfaceCEventPattern,
    wildcards: SURFACE_C_EVENT_WILDCARDS,
    where: (eb, pattern) => eb('type', 'in', surfaceCCoreTypes(pattern)),
    envelope: (row) => surfaceCEnvelope({ id: row.id, type: row.type, created_at: asDate(row.created_at), data: surfaceASnapshot(row.data_format, row.data) }),
  },
};

/** Filters of `GET /events`; times are ISO 8601 strings as the query gave them. */
export interface EventFilter {
  limit: number;
  cursor?: string;
  /** An event type or wildcard of the surface (`payout.*`, `disbursement.*`, `*`), the rule of its webhook subscriptions. */
  type?: string;
  created_after?: string;
  created_before?: string;
}

function parseTime(value: string | undefined, key: 'createdAfter' | 'createdBefore'): Date | undefined {
  if (value === undefined) return undefined;
  const d = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(d.getTime())) {
    throw fieldValidationError(key, (name) => `${name} must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z`);
  }
  return d;
}

/** The `[after, before)` window of a filter, clipped to the retention window; 400 on a bad value (param named). */
export function eventWindow(core: Core, f: { created_after?: string; created_before?: string }): { after: Date; before?: Date } {
  const after = parseTime(f.created_after, 'createdAfter');
  const before = parseTime(f.created_before, 'createdBefore');
  const retained = new Date(core.now().getTime() - EVENT_RETENTION_DAYS * 86_400_000);
  return { after: after && after > retained ? after : retained, before };
}

/**
 * Lists the caller's events as endpoints of `surface` receive them (default Surface A), newest
 * first, in the List envelope (spec "List envelope"; docs/webhooks.md "Events API"). Only events of
 * the last {@link EVENT_RETENTION_DAYS} days; `created_after` inclusive, `created_before`
 * exclusive; `type` a type or wildcard of the surface. 400 validation_error with param `type`,
 * `created_after`, `created_before` or `cursor` (a surface renders the names in its own spelling).
 */
export async function listEvents<S extends EventSurface = 'A'>(
  core: Core,
  caller: Caller,
  f: EventFilter,
  surface: S = 'A' as S,
): Promise<ListEnvelope<SurfaceEnvelopes[S]>> {
  const s = SURFACES[surface];
  if (f.type !== undefined && !s.valid(f.type)) {
    throw validationError('type', `'${f.type}' is not an event type of this surface or a wildcard (${s.wildcards.join(', ')})`);
  }
  const { after, before } = eventWindow(core, f);
  let q = core.db
    .selectFrom('events')
    .select(['id', 'type', 'created_at', 'data', 'data_format'])
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .where((eb) => s.where(eb, f.type))
    .where('created_at', '>=', after);
  if (before) q = q.where('created_at', '<', before);
  const { rows, next_cursor } = await paginate(q, 'id', f);
  // The SQL filter is the envelope function's rules; the check below only guards against drift.
  const data = rows.map((r) => s.envelope(r) as SurfaceEnvelopes[S] | null).filter((e): e is SurfaceEnvelopes[S] => e !== null);
  return { data, next_cursor };
}

/**
 * One event of the caller's business and environment, in the envelope endpoints of `surface`
 * (default Surface A) were sent. 404 not_found for an unknown id, another tenant's, an event the
 * surface does not receive, or one past retention.
 */
export async function getEvent<S extends EventSurface = 'A'>(core: Core, caller: Caller, id: string, surface: S = 'A' as S): Promise<SurfaceEnvelopes[S]> {
  const s = SURFACES[surface];
  const row = await core.db
    .selectFrom('events')
    .select(['id', 'type', 'created_at', 'data', 'data_format'])
    .where('id', '=', id)
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .where((eb) => s.where(eb))
    .where('created_at', '>=', eventWindow(core, {}).after)
    .executeTakeFirst();
  const envelope = row ? (s.envelope(row) as SurfaceEnvelopes[S] | null) : null;
  if (!envelope) throw notFound('event', id);
  return envelope;
}
