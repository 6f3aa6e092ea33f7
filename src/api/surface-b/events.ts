/**
 * Surface B events API (docs/surface-b.md "Events API"): each event in the very envelope its
 * endpoints are sent, whose JSON is the body `X-Service-Signature` signs; only B's events, B's names.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { getEvent, listEvents } from '../../core/event-log';
import { SURFACE_B_EVENT_TYPES, SURFACE_B_EVENT_WILDCARDS } from '../../domain/surface-b';
import { surfaceBEnvelope } from '../../wire/surface-b-envelope';
import { notFound } from '../../domain/errors';
import type { SurfaceRouter } from '../surface';
import { COMMON_ERRORS, DateTimeSchema, errorResponses, idParam, jsonContent, listOf, pageQuery } from './schemas';

const nullableString = z.string().nullable();

/** Spec "Envelope and events, Surface B": the data of a delivery. */
const EventData = z
  .object({
    id: z.string().openapi({ description: 'The disbursement (po_…) or deposit (dep_…)' }),
    status: z.string().openapi({ description: 'The disbursement status the event reports (pending, claimed, delivered, failed, expired, cancelled) or, for deposits, received / credited (credited on deposit.refunded, deposit.disputed, deposit.dispute_closed)' }),
    recipientPhone: nullableString,
    amountUsd: nullableString.openapi({ description: 'USD decimal string; for a deposit what the balance is credited' }),
    reference: nullableString,
    payoutMethod: nullableString,
    deliveredAt: nullableString.openapi({ format: 'date-time' }),
    recipientEmail: nullableString.optional().openapi({ description: 'Disbursement events: the recipient e-mail, or null' }),
    currency: nullableString.optional().openapi({ description: 'Deposit events: the currency that arrived' }),
    amount: nullableString.optional().openapi({ description: 'Deposit events: the amount that arrived, in currency' }),
    source: nullableString.optional().openapi({ description: 'Deposit events: virtual_account, crypto or card' }),
    refund: z
      .object({
        id: z.string().openapi({ example: 'cref_01k0000000000000000000000' }),
        status: z.string().openapi({ description: 'succeeded' }),
        amountUsd: z.string().openapi({ description: 'Returned to the card, USD' }),
        debitedUsd: z.string().openapi({ description: 'Debited from the balance, USD (= USDC)' }),
        createdAt: DateTimeSchema,
      })
      .optional()
      .openapi({ description: 'deposit.refunded: the card refund of the top-up (docs/getting-paid.md "Refunds")' }),
    dispute: z
      .object({
        id: z.string().openapi({ description: "The card processor's dispute id" }),
        status: z.string().openapi({ description: "The processor's status: needs_response, under_review, won, lost, ..." }),
        reason: nullableString,
        amount: z.string().openapi({ description: 'Disputed amount, in currency' }),
        fee: z.string().openapi({ description: 'The dispute fee, in currency' }),
        currency: z.string(),
        withdrawnUsd: z.string().openapi({ description: 'Taken from the balance (available, then the rolling reserve), USD (= USDC)' }),
        shortfallUsd: z.string().openapi({ description: 'What the balance did not cover; above zero, new disbursements answer 403 payouts_blocked until it is recovered' }),
        reinstatedUsd: z.string().openapi({ description: 'Given back to the balance (a won dispute)' }),
      })
      .optional()
      .openapi({ description: 'deposit.disputed, deposit.dispute_closed: the card dispute of the deposit (docs/getting-paid.md "Disputes")' }),
  })
  .openapi('EventData');

const EventSchema = z
  .object({
    id: z.string().openapi({ example: 'evt_01k0000000000000000000000' }),
    type: z.enum(SURFACE_B_EVENT_TYPES),
    createdAt: DateTimeSchema,
    data: EventData,
  })
  .openapi('Event', {
    description: 'The envelope exactly as webhook deliveries carry it: JSON.stringify of this object is the body X-Service-Signature signs.',
  });

const EventList = listOf(EventSchema).openapi('EventList');

const TimeQuery = (what: string) => z.string().optional().openapi({ format: 'date-time', description: `ISO 8601 date-time; ${what}` });

const listEventsRoute = createRoute({
  method: 'get',
  path: '/events',
  operationId: 'listEvents',
  tags: ['Events'],
  summary: 'List events',
  description:
    'Newest first, events of the last 30 days only (older events are deleted by the retention job), in the envelope Surface B endpoints ' +
    'receive. `type` takes an event type or a wildcard, the rule of webhook subscriptions.',
  request: {
    query: z.object({
      ...pageQuery,
      type: z.string().optional().openapi({
        description: `Event type (${SURFACE_B_EVENT_TYPES.join(', ')}) or wildcard (${SURFACE_B_EVENT_WILDCARDS.join(', ')})`,
        example: 'disbursement.*',
      }),
      createdAfter: TimeQuery('events created at or after it'),
      createdBefore: TimeQuery('events created before it'),
    }),
  },
  responses: {
    200: { description: 'A page of events', content: jsonContent(EventList) },
    ...errorResponses({ 400: 'validation_error (type, createdAfter, createdBefore, limit, after)', ...COMMON_ERRORS }),
  },
});

const getEventRoute = createRoute({
  method: 'get',
  path: '/events/{id}',
  operationId: 'getEvent',
  tags: ['Events'],
  summary: 'One event',
  description: 'The exact envelope its webhook deliveries were signed over (within the 30 days of retention).',
  request: { params: z.object({ id: idParam('id', 'evt_01k0000000000000000000000') }) },
  responses: {
    200: { description: 'The event', content: jsonContent(EventSchema) },
    ...errorResponses({ ...COMMON_ERRORS, 404: 'not_found: no such Surface B event in this business and environment, or past retention' }),
  },
});

/** Response body of `GET /events/{id}`. */
export type EventResponse = z.infer<typeof EventSchema>;
/** Response body of `GET /events`. */
export type EventListResponse = z.infer<typeof EventList>;

/** Registers Surface B's `GET /events` and `GET /events/{id}`. */
export function registerEventRoutes(app: SurfaceRouter): void {
  app.openapi(listEventsRoute, async (c) => {
    const q = c.req.valid('query');
    const page = await listEvents(
      c.get('core'),
      c.get('caller'),
      { limit: q.limit, cursor: q.after, type: q.type, createdAfter: q.createdAfter, createdBefore: q.createdBefore },
      'B',
    );
    return c.json({ data: page.data.flatMap((e) => surfaceBEnvelope(e) ?? []), nextCursor: page.nextCursor }, 200);
  });
  app.openapi(getEventRoute, async (c) => {
    const { id } = c.req.valid('param');
    const envelope = surfaceBEnvelope(await getEvent(c.get('core'), c.get('caller'), id, 'B'));
    if (!envelope) throw notFound('event', id);
    return c.json(envelope, 200);
  });
}
