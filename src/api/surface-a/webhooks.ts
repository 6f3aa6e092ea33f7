import { createRoute, z } from '@hono/zod-openapi';
import { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookEndpoints, MAX_WEBHOOK_URL_LENGTH } from '../../core/webhooks';
import { SURFACE_A_EVENT_TYPES, SURFACE_A_EVENT_WILDCARDS } from '../../domain/webhook-events';
import { renderCreatedWebhookEndpoint, renderWebhookEndpoint } from '../../wire/surface-a/webhooks';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { AUTH_ERRORS, DateTimeSchema, errorResponses, idempotencyHeaders, idParam, jsonContent, listEnvelope, pageQuery } from './schemas';

/** Surface A webhook endpoints (spec "Endpoints", "Events"), over src/core/webhooks.ts. */

const EVENTS_DESCRIPTION = `Event types to receive: ${SURFACE_A_EVENT_TYPES.join(', ')}; or a wildcard: ${SURFACE_A_EVENT_WILDCARDS.join(', ')}.`;

const WebhookEndpoint = z
  .object({
    id: z.string().openapi({ example: 'we_01j9z3k4m5n6p7q8r9s0t1v2w3' }),
    object: z.literal('webhook_endpoint'),
    url: z.string().openapi({ format: 'uri', example: 'https://example.com/hooks/payouts' }),
    events: z.array(z.string()).openapi({ description: EVENTS_DESCRIPTION, example: ['payout.*'] }),
    created_at: DateTimeSchema,
  })
  .openapi('WebhookEndpoint');

const CreatedWebhookEndpoint = WebhookEndpoint.extend({
  secret: z.string().optional().openapi({
    description:
      'Signing secret (whsec_…) of the Service-Signature header. Returned once, in the first response only: an idempotent ' +
      'replay (Idempotent-Replayed: true) answers without it and says so in the header Secret-Omitted: secret.',
    example: 'whsec_4mYk0tqg2m2Yw1ZzZtq3VJ8cWJ3n8j2x',
  }),
}).openapi('CreatedWebhookEndpoint');

const WebhookEndpointListSchema = listEnvelope(WebhookEndpoint).openapi('WebhookEndpointList');

const CreateWebhookBody = z
  .object({
    url: z.url().max(MAX_WEBHOOK_URL_LENGTH).openapi({
      format: 'uri',
      description: 'HTTPS address receiving the events; its host must resolve to public addresses only (no private, loopback, link-local, CGNAT, unique-local or metadata host; checked again at every delivery; redirects are not followed). In the sandbox, loopback receivers are allowed, also over http (localhost, 127.0.0.0/8, [::1]).',
      example: 'https://example.com/hooks/payouts',
    }),
    events: z.array(z.string()).min(1).openapi({ description: EVENTS_DESCRIPTION, example: ['payout.*', 'disbursement.completed'] }),
  })
  .openapi('WebhookEndpointCreate');

const createWebhookRoute = createRoute({
  operationId: 'createWebhookEndpoint',
  method: 'post',
  path: '/webhooks',
  tags: ['Webhooks'],
  summary: 'Register a webhook endpoint',
  description:
    'Deliveries are POSTed as {id, type, created_at, data: {object}} and signed: header Service-Signature = ' +
    't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the secret>. Reject timestamps older than 5 minutes. ' +
    'A non-2xx answer is retried with exponential backoff for 24 hours.',
  middleware: [idempotency('A', { secretFields: ['secret'] })] as const,
  request: {
    headers: idempotencyHeaders('Makes a retried request safe'),
    body: { required: true, content: jsonContent(CreateWebhookBody) },
  },
  responses: {
    201: { description: 'The endpoint, with its secret (shown this once)', content: jsonContent(CreatedWebhookEndpoint) },
    ...errorResponses({ 400: 'validation_error (param url, events or events.<i>)', ...AUTH_ERRORS, 409: 'idempotency_conflict' }),
  },
});

const listWebhooksRoute = createRoute({
  operationId: 'listWebhookEndpoints',
  method: 'get',
  path: '/webhooks',
  tags: ['Webhooks'],
  summary: 'List webhook endpoints',
  description: 'Newest first. Secrets are not included.',
  request: { query: z.object(pageQuery) },
  responses: {
    200: { description: 'List envelope', content: jsonContent(WebhookEndpointListSchema) },
    ...errorResponses({ 400: 'validation_error (limit, cursor)', ...AUTH_ERRORS }),
  },
});

const deleteWebhookRoute = createRoute({
  operationId: 'deleteWebhookEndpoint',
  method: 'delete',
  path: '/webhooks/{id}',
  tags: ['Webhooks'],
  summary: 'Delete a webhook endpoint',
  description: 'The endpoint receives nothing more; deliveries still being retried for it are given up.',
  request: { params: z.object({ id: idParam('id', 'we_01j9z3k4m5n6p7q8r9s0t1v2w3') }) },
  responses: {
    204: { description: 'Deleted' },
    ...errorResponses({ ...AUTH_ERRORS, 404: 'not_found: no such endpoint in this business and environment' }),
  },
});

/** Request body of `POST /webhooks`. */
export type WebhookEndpointCreateBody = z.infer<typeof CreateWebhookBody>;
/** Response body of `POST /webhooks` (with the signing secret, shown this once). */
export type CreatedWebhookEndpointResponse = z.infer<typeof CreatedWebhookEndpoint>;
/** Response body of `GET /webhooks`. */
export type WebhookEndpointListResponse = z.infer<typeof WebhookEndpointListSchema>;

/** Registers `POST /webhooks`, `GET /webhooks` and `DELETE /webhooks/{id}` on the Surface A app. */
export function registerWebhookRoutes(app: SurfaceRouter): void {
  app.openapi(createWebhookRoute, async (c) => {
    const body = c.req.valid('json');
    const created = await createWebhookEndpoint(c.get('core'), c.get('caller'), { url: body.url, events: body.events });
    return c.json(renderCreatedWebhookEndpoint(created), 201);
  });

  app.openapi(listWebhooksRoute, async (c) => {
    const page = await listWebhookEndpoints(c.get('core'), c.get('caller'), c.req.valid('query'));
    return c.json({ data: page.data.map(renderWebhookEndpoint), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(deleteWebhookRoute, async (c) => {
    await deleteWebhookEndpoint(c.get('core'), c.get('caller'), c.req.valid('param').id);
    return c.body(null, 204);
  });
}
