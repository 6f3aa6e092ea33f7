import { createRoute, z } from '@hono/zod-openapi';
import { listWebhookDeliveries, resendWebhookEvents, retryWebhookDelivery, WEBHOOK_DELIVERY_STATUSES } from '../../core/webhook-deliveries';
import { rotateWebhookSecret } from '../../core/webhooks';
import { renderRotatedWebhookEndpoint, renderWebhookDelivery, renderWebhookResend } from '../../wire/surface-a/webhooks';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { AUTH_ERRORS, DateTimeSchema, errorResponses, idempotencyHeaders, idParam, jsonContent, listEnvelope, pageQuery } from './schemas';

/** Surface A webhook deliveries, re-sends and secret rotation (docs/webhooks.md "Deliveries", "Secret rotation"). */

const Attempt = z
  .object({
    number: z.number().int().openapi({ description: '1-based, in time order across every run of the delivery' }),
    attempted_at: DateTimeSchema,
    http_status: z.number().int().nullable().openapi({ description: "The endpoint's HTTP status; null when it could not be reached" }),
    error: z.string().nullable().openapi({ description: 'Why the attempt failed (HTTP status, network error, timeout); null on a 2xx' }),
    duration_ms: z.number().int().openapi({ description: 'Milliseconds from sending to the answer or failure' }),
  })
  .openapi('WebhookDeliveryAttempt');

const Delivery = z
  .object({
    id: z.string().openapi({ example: 'whd_01j9z3k4m5n6p7q8r9s0t1v2w3' }),
    object: z.literal('webhook_delivery'),
    endpoint_id: z.string(),
    event_id: z.string().openapi({ description: 'The event sent (GET /events/{id} shows its envelope)' }),
    event_type: z.string().openapi({ example: 'payout.succeeded' }),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    attempts: z.array(Attempt),
    created_at: DateTimeSchema,
    completed_at: DateTimeSchema.nullable(),
  })
  .openapi('WebhookDelivery');

const DeliveryList = listEnvelope(Delivery).openapi('WebhookDeliveryList');

const ResendBody = z
  .object({
    created_after: z.string().openapi({ format: 'date-time', description: 'ISO 8601: events created at or after it (required)' }),
    created_before: z.string().optional().openapi({ format: 'date-time', description: 'ISO 8601: events created before it (default: now)' }),
  })
  .openapi('WebhookResendCreate');

const ResendResult = z
  .object({
    object: z.literal('webhook_resend'),
    endpoint_id: z.string(),
    resent: z.number().int().openapi({ description: 'Deliveries re-sent by this call' }),
    delivery_ids: z.array(z.string()),
    next_created_after: DateTimeSchema.nullable().openapi({
      description: 'When more than 1,000 events matched: call again with this created_after; null when the range is covered',
    }),
  })
  .openapi('WebhookResend');

const RotateBody = z
  .object({
    expire_previous_in: z.string().optional().openapi({
      description: 'ISO 8601 duration during which the previous secret still signs (second v1), PT0S to P7D; default PT24H',
      example: 'PT24H',
    }),
  })
  .openapi('WebhookSecretRotate');

const Rotated = z
  .object({
    id: z.string(),
    object: z.literal('webhook_endpoint'),
    url: z.string().openapi({ format: 'uri' }),
    events: z.array(z.string()),
    created_at: DateTimeSchema,
    secret: z.string().optional().openapi({
      description:
        'The new signing secret (whsec_…), returned once: an idempotent replay answers without it and says so in Secret-Omitted: secret.',
    }),
    previous_secret_expires_at: DateTimeSchema.openapi({ description: 'Until then deliveries also carry a signature made with the previous secret' }),
  })
  .openapi('RotatedWebhookEndpoint');

const endpointParam = { id: idParam('id', 'we_01j9z3k4m5n6p7q8r9s0t1v2w3') };
const NOT_FOUND = { 404: 'not_found: no such endpoint (param id) or delivery (param delivery_id) in this business and environment' };

/** The route definitions; Surface C serves the same ones (its wire shapes are Surface A's, docs/surface-c.md). */
function routes(surface: 'A' | 'C') {
  const listDeliveriesRoute = createRoute({
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    tags: ['Webhooks'],
    summary: "List an endpoint's deliveries",
    description: 'Newest first, each with its attempts (time, HTTP status or network error, duration).',
    request: {
      params: z.object(endpointParam),
      query: z.object({ ...pageQuery, status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional() }),
    },
    responses: {
      200: { description: 'List envelope of deliveries', content: jsonContent(DeliveryList) },
      ...errorResponses({ 400: 'validation_error (param status, limit, cursor)', ...AUTH_ERRORS, ...NOT_FOUND }),
    },
  });

  const retryDeliveryRoute = createRoute({
    method: 'post',
    path: '/webhooks/{id}/deliveries/{delivery_id}/retry',
    operationId: 'retryWebhookDelivery',
    tags: ['Webhooks'],
    summary: 'Send a delivery again',
    description:
      'Re-sends the event (same event id) to the endpoint now, whatever the delivery status, through a new run of the durable ' +
      'delivery workflow (retried on failure like a first delivery), signed with the current secret(s). Answers 202 with the delivery, pending.',
    middleware: [idempotency(surface)] as const,
    request: {
      headers: idempotencyHeaders('Makes a retried request safe: a replay does not send again'),
      params: z.object({ ...endpointParam, delivery_id: idParam('delivery_id', 'whd_01j9z3k4m5n6p7q8r9s0t1v2w3') }),
    },
    responses: {
      202: { description: 'The delivery, pending again', content: jsonContent(Delivery) },
      ...errorResponses({ ...AUTH_ERRORS, ...NOT_FOUND, 409: 'idempotency_conflict' }),
    },
  });

  const resendRoute = createRoute({
    method: 'post',
    path: '/webhooks/{id}/resend',
    operationId: 'resendWebhookEvents',
    tags: ['Webhooks'],
    summary: 'Re-send every unacknowledged event of a time range',
    description:
      'The catch-up after an outage: every event of [created_after, created_before) sent to this endpoint that never got a 2xx ' +
      'is sent again (same event id), oldest first, at most 1,000 per call.',
    middleware: [idempotency(surface)] as const,
    request: {
      headers: idempotencyHeaders('Makes a retried request safe: a replay does not send again'),
      params: z.object(endpointParam),
      body: { required: true, content: jsonContent(ResendBody) },
    },
    responses: {
      202: { description: 'What was re-sent', content: jsonContent(ResendResult) },
      ...errorResponses({ 400: 'validation_error (param created_after, created_before)', ...AUTH_ERRORS, ...NOT_FOUND, 409: 'idempotency_conflict' }),
    },
  });

  const rotateRoute = createRoute({
    method: 'post',
    path: '/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    tags: ['Webhooks'],
    summary: "Rotate an endpoint's signing secret",
    description:
      'Returns the new secret once. Until previous_secret_expires_at every delivery carries two signatures, ' +
      'Service-Signature: t=<t>,v1=<new>,v1=<previous>; after it only the new one.',
    middleware: [idempotency(surface, { secretFields: ['secret'] })] as const,
    request: {
      headers: idempotencyHeaders('Makes a retried request safe'),
      params: z.object(endpointParam),
      body: { required: false, content: jsonContent(RotateBody) },
    },
    responses: {
      200: { description: 'The endpoint with its new secret (shown this once)', content: jsonContent(Rotated) },
      ...errorResponses({ 400: 'validation_error (param expire_previous_in)', ...AUTH_ERRORS, 404: 'not_found: no such endpoint', 409: 'idempotency_conflict' }),
    },
  });
  return { listDeliveriesRoute, retryDeliveryRoute, resendRoute, rotateRoute };
}

/** Response body of `GET /webhooks/{id}/deliveries`. */
export type WebhookDeliveryListResponse = z.infer<typeof DeliveryList>;
/** Response body of `POST /webhooks/{id}/rotate-secret`. */
export type RotatedWebhookEndpointResponse = z.infer<typeof Rotated>;

/** Registers the delivery operations on Surface A, or on Surface C with `surface` 'C'. */
export function registerWebhookDeliveryRoutes(app: SurfaceRouter, surface: 'A' | 'C' = 'A'): void {
  const { listDeliveriesRoute, retryDeliveryRoute, resendRoute, rotateRoute } = routes(surface);
  app.openapi(listDeliveriesRoute, async (c) => {
    const { id } = c.req.valid('param');
    const page = await listWebhookDeliveries(c.get('core'), c.get('caller'), id, c.req.valid('query'), surface);
    return c.json({ data: page.data.map(renderWebhookDelivery), next_cursor: page.nextCursor }, 200);
  });
  app.openapi(retryDeliveryRoute, async (c) => {
    const { id, delivery_id } = c.req.valid('param');
    return c.json(renderWebhookDelivery(await retryWebhookDelivery(c.get('core'), c.get('caller'), id, delivery_id, surface)), 202);
  });
  app.openapi(resendRoute, async (c) => {
    const { id } = c.req.valid('param');
    const b = c.req.valid('json');
    const r = await resendWebhookEvents(c.get('core'), c.get('caller'), id, { createdAfter: b.created_after, createdBefore: b.created_before }, surface);
    return c.json(renderWebhookResend(r), 202);
  });
  app.openapi(rotateRoute, async (c) => {
    const { id } = c.req.valid('param');
    const b = c.req.valid('json');
    const r = await rotateWebhookSecret(c.get('core'), c.get('caller'), id, { expirePreviousIn: b?.expire_previous_in }, surface);
    return c.json(renderRotatedWebhookEndpoint(r), 200);
  });
}
