import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { fieldValidationError, notFound, validationError } from '../domain/errors';
import { isSurfaceCEventPattern, SURFACE_C_EVENT_WILDCARDS, surfaceCCoreTypes, surfaceCEventType } from '../domain/surface-c';
import { isValidEventPattern, matchesEventPattern, type OutboxEvent, SURFACE_A_EVENT_WILDCARDS, surfaceACoreTypes } from '../domain/webhook-events';
import type { Database } from '../db/schema';
import { readStoredEvent, surfaceBSelectors } from '../wire/events';
import { type Caller, type Core, readsOf } from './context';
import { paginate, type Page } from './paging';
import { isSurfaceBEventPattern, SURFACE_B_EVENT_RULES, SURFACE_B_EVENT_WILDCARDS, surfaceBEventType } from '../domain/surface-b';
import { scoped } from './tenancy';

/** The events API (docs/webhooks.md "Events API"): the events a surface receives; the surface renders their envelope. */

/** Days an event stays listed (docs/webhooks.md "Retention"); the retention job deletes older rows. */
export const EVENT_RETENTION_DAYS = 30;

const asDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));

export type EventSurface = 'A' | 'B' | 'C';

type EventRow = { id: string; type: string; created_at: unknown; data: Record<string, unknown>; data_format: string };
type EventsWhere = (eb: ExpressionBuilder<Database, 'events'>, pattern?: string) => Expression<SqlBool>;

/** Surface B's rules whose name matches `pattern`, as SQL over the stored jsonb. */
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

const SURFACES: { [S in EventSurface]: { valid: (p: string) => boolean; wildcards: readonly string[]; where: EventsWhere; receives: (e: OutboxEvent) => boolean } } = {
  A: {
    valid: isValidEventPattern,
    wildcards: SURFACE_A_EVENT_WILDCARDS,
    where: (eb, pattern) => eb('type', 'in', surfaceACoreTypes(pattern)),
    receives: () => true,
  },
  B: {
    valid: isSurfaceBEventPattern,
    wildcards: SURFACE_B_EVENT_WILDCARDS,
    where: surfaceBWhere,
    receives: (e) => surfaceBEventType(e.type, surfaceBSelectors(e)) !== null,
  },
  C: {
    valid: isSurfaceCEventPattern,
    wildcards: SURFACE_C_EVENT_WILDCARDS,
    where: (eb, pattern) => eb('type', 'in', surfaceCCoreTypes(pattern)),
    receives: (e) => surfaceCEventType(e.type) !== null,
  },
};

const toOutboxEvent = (row: EventRow): OutboxEvent => readStoredEvent({ id: row.id, type: row.type, createdAt: asDate(row.created_at), format: row.data_format, data: row.data });

/** `GET /events` filters: `type` a surface event name or wildcard; times ISO 8601 date-times as sent. */
export interface EventFilter {
  limit: number;
  cursor?: string;
  type?: string;
  createdAfter?: string;
  createdBefore?: string;
}

function parseTime(value: string | undefined, key: 'createdAfter' | 'createdBefore'): Date | undefined {
  if (value === undefined) return undefined;
  const d = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(d.getTime())) {
    throw fieldValidationError(key, (name) => `${name} must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z`);
  }
  return d;
}

/** The `[after, before)` window of a filter, clipped to retention; 400 with the param named. */
export function eventWindow(core: Core, f: { createdAfter?: string; createdBefore?: string }): { after: Date; before?: Date } {
  const after = parseTime(f.createdAfter, 'createdAfter');
  const before = parseTime(f.createdBefore, 'createdBefore');
  const retained = new Date(core.now().getTime() - EVENT_RETENTION_DAYS * 86_400_000);
  return { after: after && after > retained ? after : retained, before };
}

/**
 * The caller's events that `surface`'s endpoints receive (core types), newest first, last {@link EVENT_RETENTION_DAYS}
 * days. 400 validation_error (`type`, `createdAfter`, `createdBefore`, `cursor`, in the surface's spelling).
 */
export async function listEvents(core: Core, caller: Caller, f: EventFilter, surface: EventSurface = 'A'): Promise<Page<OutboxEvent>> {
  const s = SURFACES[surface];
  if (f.type !== undefined && !s.valid(f.type)) {
    throw validationError('type', `'${f.type}' is not an event type of this surface or a wildcard (${s.wildcards.join(', ')})`);
  }
  const { after, before } = eventWindow(core, f);
  let q = scoped(readsOf(core), caller)
    .selectFrom('events')
    .select(['id', 'type', 'created_at', 'data', 'data_format'])
    .where((eb) => s.where(eb, f.type))
    .where('created_at', '>=', after);
  if (before) q = q.where('created_at', '<', before);
  const { rows, nextCursor } = await paginate(q, 'id', f);
  return { data: rows.map(toOutboxEvent).filter(s.receives), nextCursor };
}

/** One event `surface`'s endpoints receive; 404 not_found when unknown, another tenant's, not received or past retention. */
export async function getEvent(core: Core, caller: Caller, id: string, surface: EventSurface = 'A'): Promise<OutboxEvent> {
  const s = SURFACES[surface];
  const row = await scoped(core.db, caller)
    .selectFrom('events')
    .select(['id', 'type', 'created_at', 'data', 'data_format'])
    .where('id', '=', id)
    .where((eb) => s.where(eb))
    .where('created_at', '>=', eventWindow(core, {}).after)
    .executeTakeFirst();
  const event = row ? toOutboxEvent(row) : null;
  if (!event || !s.receives(event)) throw notFound('event', id);
  return event;
}
