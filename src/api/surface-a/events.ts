import { createRoute, z } from '@hono/zod-openapi';
import { getEvent, listEvents } from '../../core/event-log';
import { SURFACE_A_EVENT_TYPES, SURFACE_A_EVENT_WILDCARDS } from '../../domain/webhook-events';
import type { SurfaceRouter } from '../surface';
import { AUTH_ERRORS, DateTimeSchema, errorResponses, idParam, jsonContent, listEnvelope, pageQuery } from './schemas';

/**
 * Surface A events API (docs/webhooks.md "Events API"): `GET /events` and `GET /events/{id}`, the
 * envelopes webhook deliveries were signed over. A thin adapter over src/core/event-log.ts.
 */

const EventEnvelope = z
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

const EventListSchema = listEnvelope(EventEnvelope).openapi('EventList');

const TimeQuery = (what: string) =>
  z.string().optional().openapi({ format: 'date-time', description: `ISO 8601 date-time; ${what}` });

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
      type: z.string().optional().openapi({ description: `Event type or wildcard: ${SURFACE_A_EVENT_WILDCARDS.join(', ')}`, example: 'payout.*' }),
      created_after: TimeQuery('events created at or after it'),
      created_before: TimeQuery('events created before it'),
    }),
  },
  responses: {
    200: { description: 'List envelope of events', content: jsonContent(EventListSchema) },
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
    200: { description: 'The event', content: jsonContent(EventEnvelope) },
    ...errorResponses({ ...AUTH_ERRORS, 404: 'not_found: no such event in this business and environment, or past retention' }),
  },
});

/** Response body of `GET /events/{id}`. */
export type EventResponse = z.infer<typeof EventEnvelope>;

/** Registers `GET /events` and `GET /events/{id}` on the Surface A app. */
export function registerEventRoutes(app: SurfaceRouter): void {
  app.openapi(listEventsRoute, async (c) => c.json(await listEvents(c.get('core'), c.get('caller'), c.req.valid('query')), 200));
  app.openapi(getEventRoute, async (c) => c.json(await getEvent(c.get('core'), c.get('caller'), c.req.valid('param').id), 200));
}
