/** Surface B webhook deliveries, re-sends, catch-up and secret rotation in B's shapes (docs/webhooks.md "What each surface has"). */
import { createRoute, z } from '@hono/zod-openapi';
import {
  listWebhookDeliveries,
  MAX_RESEND_BATCH,
  resendWebhookEvents,
  retryWebhookDelivery,
  WEBHOOK_DELIVERY_STATUSES,
  type WebhookDelivery,
} from '../../core/webhook-deliveries';
import { DEFAULT_SECRET_OVERLAP, rotateWebhookSecret } from '../../core/webhooks';
import { MIN_SURFACE_B_SECRET_LENGTH } from '../../domain/surface-b';
import { SURFACE_B_PREVIOUS_SIGNATURE_HEADER, SURFACE_B_SIGNATURE_HEADER } from '../../core/webhook-signature';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { COMMON_ERRORS, DateTimeSchema, errorResponses, groupDigits, IdempotencyKeyField, idempotencyKeyFromBody, idParam, jsonContent, listOf, pageQuery } from './schemas';

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
    endpointId: d.endpointId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts.map((a) => ({ number: a.number, attemptedAt: a.attemptedAt.toISOString(), httpStatus: a.httpStatus, error: a.error, durationMs: a.durationMs })),
    createdAt: d.createdAt.toISOString(),
    completedAt: d.completedAt ? d.completedAt.toISOString() : null,
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

const ResendBody = z
  .object({
    createdAfter: z.string().openapi({ format: 'date-time', description: 'ISO 8601: events created at or after it (required)' }),
    createdBefore: z.string().optional().openapi({ format: 'date-time', description: 'ISO 8601: events created before it (default: now)' }),
    idempotencyKey: IdempotencyKeyField,
  })
  .openapi('WebhookResendCreate');

const ResendResult = z
  .object({
    endpointId: z.string(),
    resent: z.number().int().openapi({ description: 'Deliveries re-sent by this call' }),
    deliveryIds: z.array(z.string()),
    nextCreatedAfter: DateTimeSchema.nullable().openapi({
      description: `When more than ${groupDigits(MAX_RESEND_BATCH)} events matched: call again with this createdAfter; null when the range is covered`,
    }),
  })
  .openapi('WebhookResend');

const resendRoute = createRoute({
  method: 'post',
  path: '/webhooks/{id}/resend',
  operationId: 'resendWebhookEvents',
  tags: ['Webhooks'],
  summary: 'Re-send every unacknowledged event of a time range',
  description:
    'The catch-up after an outage: every event of [createdAfter, createdBefore) sent to this endpoint that never got a 2xx is sent again ' +
    `(same event id, signed with the endpoint's current secret(s)), oldest first, at most ${groupDigits(MAX_RESEND_BATCH)} per call, ` +
    'each through a new run of the durable delivery workflow (five attempts on the usual schedule).',
  middleware: [idempotency('B', { keyFrom: idempotencyKeyFromBody })] as const,
  request: { params: z.object(endpointParam), body: { required: true, content: jsonContent(ResendBody) } },
  responses: {
    202: { description: 'What was re-sent', content: jsonContent(ResendResult) },
    ...errorResponses({ 400: 'validation_error (createdAfter, createdBefore)', ...COMMON_ERRORS, 404: 'not_found', 409: 'idempotency_conflict' }),
  },
});

const RotateBody = z
  .object({
    secret: z.string().openapi({
      description: `Your new signing secret, ${MIN_SURFACE_B_SECRET_LENGTH} to 256 characters. Rotating to the secret already in use changes nothing.`,
      example: 'my-new-very-long-signing-secret',
    }),
    expirePreviousIn: z.string().optional().openapi({
      description: `ISO 8601 duration during which the previous secret still signs (in ${SURFACE_B_PREVIOUS_SIGNATURE_HEADER}), PT0S to P7D; default ${DEFAULT_SECRET_OVERLAP}`,
      example: 'PT24H',
    }),
    idempotencyKey: IdempotencyKeyField,
  })
  .openapi('WebhookSecretRotate');

const Rotated = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    createdAt: DateTimeSchema,
    previousSecretExpiresAt: DateTimeSchema.nullable().openapi({
      description: `Until then every delivery also carries ${SURFACE_B_PREVIOUS_SIGNATURE_HEADER}, made with the previous secret; null when no previous secret signs`,
    }),
  })
  .openapi('RotatedWebhookEndpoint', { description: 'The endpoint after the rotation; the secret is never returned (you chose it)' });

const rotateRoute = createRoute({
  method: 'post',
  path: '/webhooks/{id}/rotate-secret',
  operationId: 'rotateWebhookSecret',
  tags: ['Webhooks'],
  summary: "Rotate an endpoint's signing secret",
  description:
    `From now on ${SURFACE_B_SIGNATURE_HEADER} = sha256=<hex HMAC-SHA256 of the raw body with the new secret>. Until previousSecretExpiresAt ` +
    `every delivery also carries ${SURFACE_B_PREVIOUS_SIGNATURE_HEADER} = sha256=<the same with the previous secret>, so a receiver that ` +
    'accepts a delivery when either header verifies with the secret it holds loses nothing while it switches. Afterwards only the new one.',
  middleware: [idempotency('B', { keyFrom: idempotencyKeyFromBody })] as const,
  request: { params: z.object(endpointParam), body: { required: true, content: jsonContent(RotateBody) } },
  responses: {
    200: { description: 'The endpoint', content: jsonContent(Rotated) },
    ...errorResponses({ 400: 'validation_error (secret, expirePreviousIn)', ...COMMON_ERRORS, 404: 'not_found', 409: 'idempotency_conflict' }),
  },
});

/** Request body of `POST /webhooks/{id}/resend`. */
export type WebhookResendBody = z.infer<typeof ResendBody>;
/** Response body of `POST /webhooks/{id}/resend`. */
export type WebhookResendResponse = z.infer<typeof ResendResult>;
/** Request body of `POST /webhooks/{id}/rotate-secret`. */
export type WebhookSecretRotateBody = z.infer<typeof RotateBody>;
/** Response body of `POST /webhooks/{id}/rotate-secret`. */
export type RotatedWebhookEndpointResponse = z.infer<typeof Rotated>;

/** Registers Surface B's delivery list, retry, resend and rotate-secret operations. */
export function registerWebhookDeliveryRoutes(app: SurfaceRouter): void {
  app.openapi(listRoute, async (c) => {
    const q = c.req.valid('query');
    const page = await listWebhookDeliveries(c.get('core'), c.get('caller'), c.req.valid('param').id, { limit: q.limit, cursor: q.after, status: q.status }, 'B');
    return c.json({ data: page.data.map(view), nextCursor: page.nextCursor }, 200);
  });
  app.openapi(retryRoute, async (c) => {
    const { id, deliveryId } = c.req.valid('param');
    return c.json(view(await retryWebhookDelivery(c.get('core'), c.get('caller'), id, deliveryId, 'B')), 202);
  });
  app.openapi(resendRoute, async (c) => {
    const b = c.req.valid('json');
    const r = await resendWebhookEvents(c.get('core'), c.get('caller'), c.req.valid('param').id, { createdAfter: b.createdAfter, createdBefore: b.createdBefore }, 'B');
    return c.json({ endpointId: r.endpointId, resent: r.resent, deliveryIds: r.deliveryIds, nextCreatedAfter: r.nextCreatedAfter ? r.nextCreatedAfter.toISOString() : null }, 202);
  });
  app.openapi(rotateRoute, async (c) => {
    const b = c.req.valid('json');
    const r = await rotateWebhookSecret(c.get('core'), c.get('caller'), c.req.valid('param').id, { secret: b.secret, expirePreviousIn: b.expirePreviousIn }, 'B');
    const previousSecretExpiresAt = r.previousSecretExpiresAt ? r.previousSecretExpiresAt.toISOString() : null;
    return c.json({ id: r.id, url: r.url, events: r.events, createdAt: r.createdAt.toISOString(), previousSecretExpiresAt }, 200);
  });
}
