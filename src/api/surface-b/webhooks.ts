/** Surface B webhook endpoints with the caller's own secret (spec "Events, Surface B"; docs/surface-b.md). */
import { createRoute, z } from '@hono/zod-openapi';
import { createWebhookEndpoint, deleteWebhookEndpoint, MAX_WEBHOOK_URL_LENGTH } from '../../core/webhooks';
import { MIN_SURFACE_B_SECRET_LENGTH, SURFACE_B_EVENT_TYPES, SURFACE_B_EVENT_WILDCARDS } from '../../domain/surface-b';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { COMMON_ERRORS, DateTimeSchema, errorResponses, IdempotencyKeyField, idempotencyKeyFromBody, idParam, jsonContent } from './schemas';

const EVENTS = `Event types: ${SURFACE_B_EVENT_TYPES.join(', ')}; or a wildcard: ${SURFACE_B_EVENT_WILDCARDS.join(', ')}.`;

const WebhookCreateSchema = z
  .object({
    url: z.string().max(MAX_WEBHOOK_URL_LENGTH).openapi({
      format: 'uri',
      description: 'HTTPS address receiving the events (sandbox: http to localhost / 127.0.0.0/8 / [::1] too)',
      example: 'https://example.com/hooks/claims',
    }),
    events: z.array(z.string()).min(1).openapi({ description: EVENTS, example: ['disbursement.*', 'deposit.credited'] }),
    secret: z.string().openapi({
      description: `Your signing secret (${MIN_SURFACE_B_SECRET_LENGTH} to 256 characters): X-Service-Signature = sha256=<hex HMAC-SHA256 of the raw body with it>`,
      example: 'my-very-long-signing-secret',
    }),
    idempotencyKey: IdempotencyKeyField,
  })
  .openapi('WebhookCreate');

const WebhookSchema = z
  .object({
    id: z.string().openapi({ example: 'we_01k0000000000000000000000' }),
    url: z.string(),
    events: z.array(z.string()),
    createdAt: DateTimeSchema,
  })
  .openapi('WebhookEndpoint', { description: 'The secret is never returned (you chose it)' });

/** Request body of `POST /webhooks`. */
export type WebhookCreateBody = z.infer<typeof WebhookCreateSchema>;
/** Response body of `POST /webhooks`. */
export type WebhookResponse = z.infer<typeof WebhookSchema>;

const createWebhookRoute = createRoute({
  operationId: 'createWebhookEndpoint',
  method: 'post',
  path: '/webhooks',
  tags: ['Webhooks'],
  summary: 'Register a webhook endpoint',
  description:
    'Each event is POSTed as {id, type, createdAt, data: {id, status, recipientPhone, amountUsd, reference, payoutMethod, deliveredAt}} with ' +
    'X-Service-Signature: sha256=<hex HMAC-SHA256 of the raw body with your secret> (compare in constant time). Answer 2xx within 10 s; ' +
    'otherwise attempts follow at +5 min, +30 min, +2 h and +12 h (five in all).',
  middleware: [idempotency('B', { keyFrom: idempotencyKeyFromBody })] as const,
  request: { body: { required: true, content: jsonContent(WebhookCreateSchema) } },
  responses: {
    201: { description: 'The endpoint', content: jsonContent(WebhookSchema) },
    ...errorResponses({ 400: 'validation_error (url, events.<i>, secret)', ...COMMON_ERRORS, 409: 'idempotency_conflict' }),
  },
});

const deleteWebhookRoute = createRoute({
  method: 'delete',
  path: '/webhooks/{id}',
  operationId: 'deleteWebhook',
  tags: ['Webhooks'],
  summary: 'Delete a webhook endpoint',
  description:
    'The endpoint receives nothing more and its secret signs nothing more, at once: deliveries still being retried for it are given up ' +
    'before their next attempt (docs/webhooks.md "Deleting an endpoint").',
  request: { params: z.object({ id: idParam('id', 'we_01k0000000000000000000000') }) },
  responses: {
    204: { description: 'Deleted' },
    ...errorResponses({ ...COMMON_ERRORS, 404: 'not_found: no such endpoint in this business and environment' }),
  },
});

/** Registers Surface B's `POST /webhooks` and `DELETE /webhooks/{id}`. */
export function registerWebhookRoutes(app: SurfaceRouter): void {
  app.openapi(deleteWebhookRoute, async (c) => {
    await deleteWebhookEndpoint(c.get('core'), c.get('caller'), c.req.valid('param').id, 'B');
    return c.body(null, 204);
  });

  app.openapi(createWebhookRoute, async (c) => {
    const b = c.req.valid('json');
    const ep = await createWebhookEndpoint(c.get('core'), c.get('caller'), { url: b.url, events: b.events, secret: b.secret }, 'B');
    return c.json({ id: ep.id, url: ep.url, events: ep.events, createdAt: ep.createdAt.toISOString() }, 201);
  });
}
