import { createRoute, z } from '@hono/zod-openapi';
import { getEvent, listEvents } from '../../core/event-log';
import { notFound } from '../../domain/errors';
import { SURFACE_C_EVENT_TYPES, SURFACE_C_EVENT_WILDCARDS, SURFACE_C_PAYOUT_STATUSES } from '../../domain/surface-c';
import { surfaceCEnvelope } from '../../wire/surface-c-envelope';
import { type OutboxEvent, SURFACE_A_EVENT_TYPES, SURFACE_A_EVENT_WILDCARDS } from '../../domain/webhook-events';
import { renderSurfaceAEvent } from '../../wire/surface-a/event-envelopes';
import type { SurfaceRouter } from '../surface';
import { AUTH_ERRORS, DateTimeSchema, errorResponses, idParam, jsonContent, listEnvelope, pageQuery } from './schemas';

/**
 * Events API of Surfaces A and C (docs/webhooks.md, docs/surface-c.md "Events API"): the envelopes
 * their webhook deliveries were signed over. C shares A's wire conventions, so one module serves both.
 */

const SurfaceAEvent = z
  .object({
    id: z.string().openapi({ example: 'evt_01j9z3k4m5n6p7q8r9s0t1v2w3' }),
    type: z.string().openapi({ description: `One of ${SURFACE_A_EVENT_TYPES.join(', ')}`, example: 'payout.succeeded' }),
    created_at: DateTimeSchema,
    data: z.object({ object: z.record(z.string(), z.unknown()).openapi({ description: 'The object as it was when the event happened' }) }),
  })
  .openapi('Event', {
    description:
      'The envelope exactly as webhook deliveries carry it: JSON.stringify of this object is the signed body of every delivery of the event.',
  });

/** Surface C's envelope (docs/surface-c.md "Webhooks"): the payout's id and Surface C status. */
const SurfaceCEvent = z
  .object({
    id: z.string().openapi({ example: 'evt_01j9z3k4m5n6p7q8r9s0t1v2w3' }),
    type: z.enum(SURFACE_C_EVENT_TYPES),
    created_at: DateTimeSchema,
    data: z.object({ object: z.object({ id: z.string(), object: z.literal('payout'), status: z.enum(SURFACE_C_PAYOUT_STATUSES) }) }),
  })
  .openapi('Event', {
    description:
      'The envelope exactly as Surface C webhook deliveries carry it: JSON.stringify of this object is the signed body of every delivery of the event.',
  });

const TimeQuery = (what: string) =>
  z.string().optional().openapi({ format: 'date-time', description: `ISO 8601 date-time; ${what}` });

/** The route definitions of one surface: Surface A's, or Surface C's envelope and event names. */
function routes(surface: 'A' | 'C') {
  const Event = surface === 'C' ? SurfaceCEvent : SurfaceAEvent;
  const wildcards = surface === 'C' ? SURFACE_C_EVENT_WILDCARDS : SURFACE_A_EVENT_WILDCARDS;
  const listEventsRoute = createRoute({
    method: 'get',
    path: '/events',
    operationId: 'listEvents',
    tags: ['Events'],
    summary: 'List events',
    description:
      'Newest first, events of the last 30 days only (older events are deleted by the retention job). ' +
      '`type` takes an event type or a wildcard, the rule of webhook subscriptions.',
    request: {
      query: z.object({
        ...pageQuery,
        type: z.string().optional().openapi({ description: `Event type or wildcard: ${wildcards.join(', ')}`, example: 'payout.*' }),
        created_after: TimeQuery('events created at or after it'),
        created_before: TimeQuery('events created before it'),
      }),
    },
    responses: {
      200: { description: 'List envelope of events', content: jsonContent(listEnvelope(Event).openapi('EventList')) },
      ...errorResponses({ 400: 'validation_error (param type, created_after, created_before, limit, cursor)', ...AUTH_ERRORS }),
    },
  });

  const getEventRoute = createRoute({
    method: 'get',
    path: '/events/{id}',
    operationId: 'getEvent',
    tags: ['Events'],
    summary: 'Retrieve an event',
    description: 'The exact envelope its webhook deliveries were signed over (within the 30 days of retention).',
    request: { params: z.object({ id: idParam('id', 'evt_01j9z3k4m5n6p7q8r9s0t1v2w3') }) },
    responses: {
      200: { description: 'The event', content: jsonContent(Event) },
      ...errorResponses({ ...AUTH_ERRORS, 404: 'not_found: no such event in this business and environment, or past retention' }),
    },
  });
  return { listEventsRoute, getEventRoute };
}

/** Response body of `GET /events/{id}` on Surface A. */
export type EventResponse = z.infer<typeof SurfaceAEvent>;
/** Response body of `GET /events/{id}` on Surface C. */
export type SurfaceCEventResponse = z.infer<typeof SurfaceCEvent>;

/** The envelope `surface`'s endpoints are sent (null only for an event the surface does not receive). */
const envelopeOf = (surface: 'A' | 'C', e: OutboxEvent) => (surface === 'C' ? surfaceCEnvelope(e) : renderSurfaceAEvent(e));

/** Registers `GET /events` and `GET /events/{id}` on the Surface A app, or on the Surface C app with `surface` 'C'. */
export function registerEventRoutes(app: SurfaceRouter, surface: 'A' | 'C' = 'A'): void {
  const { listEventsRoute, getEventRoute } = routes(surface);
  app.openapi(listEventsRoute, async (c) => {
    const q = c.req.valid('query');
    const filter = { limit: q.limit, cursor: q.cursor, type: q.type, createdAfter: q.created_after, createdBefore: q.created_before };
    const page = await listEvents(c.get('core'), c.get('caller'), filter, surface);
    return c.json({ data: page.data.flatMap((e) => envelopeOf(surface, e) ?? []), next_cursor: page.nextCursor }, 200);
  });
  app.openapi(getEventRoute, async (c) => {
    const { id } = c.req.valid('param');
    const envelope = envelopeOf(surface, await getEvent(c.get('core'), c.get('caller'), id, surface));
    if (!envelope) throw notFound('event', id);
    return c.json(envelope, 200);
  });
}
