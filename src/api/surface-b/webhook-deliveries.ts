/**
 * Surface B webhook deliveries in Surface B's shapes (camelCase, `{data, nextCursor}` with `after`;
 * docs/webhooks.md "What each surface has"): list an endpoint's deliveries with their attempts,
 * and re-send one. A thin adapter over src/core/webhook-deliveries.ts with surface 'B'.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { listWebhookDeliveries, retryWebhookDelivery, WEBHOOK_DELIVERY_STATUSES, type WebhookDelivery } from '../../core/webhook-deliveries';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { COMMON_ERRORS, DateTimeSchema, errorResponses, IdempotencyKeyField, idempotencyKeyFromBody, idParam, jsonContent, listOf, pageQuery } from './schemas';

const Attempt = z
  .object({
    number: z.number().int(),
    attemptedAt: DateTimeSchema,
    httpStatus: z.number().int().nullable().openapi({ description: "The endpoint's HTTP status; null when it could not be reached" }),
    error: z.string().nullable(),
    durationMs: z.number().int(),
  })
  .openapi('WebhookDeliveryAttempt');

const Delivery = z
  .object({
    id: z.string().openapi({ example: 'whd_01k0000000000000000000000' }),
    endpointId: z.string(),
    eventId: z.string(),
    eventType: z.string().openapi({ example: 'disbursement.delivered' }),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    attempts: z.array(Attempt),
    createdAt: DateTimeSchema,
    completedAt: DateTimeSchema.nullable(),
  })
  .openapi('WebhookDelivery');

const DeliveryList = listOf(Delivery).openapi('WebhookDeliveryList');

function view(d: WebhookDelivery): z.infer<typeof Delivery> {
  return {
    id: d.id,
    endpointId: d.endpoint_id,
    eventId: d.event_id,
    eventType: d.event_type,
    status: d.status,
    attempts: d.attempts.map((a) => ({ number: a.number, attemptedAt: a.attempted_at, httpStatus: a.http_status, error: a.error, durationMs: a.duration_ms })),
    createdAt: d.created_at,
    completedAt: d.completed_at,
  };
}

const endpointParam = { id: idParam('id', 'we_01k0000000000000000000000') };

const listRoute = createRoute({
  method: 'get',
  path: '/webhooks/{id}/deliveries',
  operationId: 'listWebhookDeliveries',
  tags: ['Webhooks'],
  summary: "List an endpoint's deliveries",
  description: 'Newest first, each with its attempts (time, HTTP status or network error, duration).',
  request: { params: z.object(endpointParam), query: z.object({ ...pageQuery, status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional() }) },
  responses: {
    200: { description: 'A page of deliveries', content: jsonContent(DeliveryList) },
    ...errorResponses({ 400: 'validation_error (status, limit, after)', ...COMMON_ERRORS, 404: 'not_found' }),
  },
});

const RetryBody = z.object({ idempotencyKey: IdempotencyKeyField }).openapi('WebhookDeliveryRetry');

const retryRoute = createRoute({
  method: 'post',
  path: '/webhooks/{id}/deliveries/{deliveryId}/retry',
  operationId: 'retryWebhookDelivery',
  tags: ['Webhooks'],
  summary: 'Send a delivery again',
  description:
    'Re-sends the event (same id) now through a new run of the durable delivery workflow (five attempts on the usual schedule), ' +
    'signed with the endpoint secret. 202 with the delivery, pending.',
  middleware: [idempotency('B', { keyFrom: idempotencyKeyFromBody })] as const,
  request: {
    params: z.object({ ...endpointParam, deliveryId: idParam('deliveryId', 'whd_01k0000000000000000000000') }),
    body: { required: false, content: jsonContent(RetryBody) },
  },
  responses: {
    202: { description: 'The delivery, pending again', content: jsonContent(Delivery) },
    ...errorResponses({ ...COMMON_ERRORS, 404: 'not_found', 409: 'idempotency_conflict' }),
  },
});

/** Registers Surface B's `GET /webhooks/{id}/deliveries` and `POST /webhooks/{id}/deliveries/{deliveryId}/retry`. */
export function registerWebhookDeliveryRoutes(app: SurfaceRouter): void {
  app.openapi(listRoute, async (c) => {
    const q = c.req.valid('query');
    const page = await listWebhookDeliveries(c.get('core'), c.get('caller'), c.req.valid('param').id, { limit: q.limit, cursor: q.after, status: q.status }, 'B');
    return c.json({ data: page.data.map(view), nextCursor: page.next_cursor }, 200);
  });
  app.openapi(retryRoute, async (c) => {
    const { id, deliveryId } = c.req.valid('param');
    return c.json(view(await retryWebhookDelivery(c.get('core'), c.get('caller'), id, deliveryId, 'B')), 202);
  });
}
