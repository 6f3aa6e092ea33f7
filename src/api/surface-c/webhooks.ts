/**
 * Surface C webhook endpoints ("Events, Surface C"; docs/surface-c.md): Surface C event names and
 * envelope, signed like Surface A (the spec gives C no scheme) with the secret shown once.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookEndpoints, MAX_WEBHOOK_URL_LENGTH } from '../../core/webhooks';
import { SURFACE_C_EVENT_TYPES, SURFACE_C_EVENT_WILDCARDS } from '../../domain/surface-c';
import { renderCreatedWebhookEndpoint, renderWebhookEndpoint } from '../../wire/surface-a/webhooks';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { AUTH_ERRORS, DateTimeSchema, errorResponses, IDEMPOTENCY_DESCRIPTION, idempotencyHeaders, idParam, jsonContent, listEnvelope, pageQuery } from './schemas';

const EVENTS_DESCRIPTION = `Event types to receive: ${SURFACE_C_EVENT_TYPES.join(', ')}; or a wildcard: ${SURFACE_C_EVENT_WILDCARDS.join(', ')}.`;

const WebhookEndpoint = z
  .object({
    id: z.string().openapi({ example: 'we_01k0000000000000000000000' }),
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
  }),
}).openapi('CreatedWebhookEndpoint');

const CreateWebhookBody = z
  .object({
    url: z.url().max(MAX_WEBHOOK_URL_LENGTH).openapi({
      format: 'uri',
      description: 'HTTPS address receiving the events; its host must resolve to public addresses only (checked again at every delivery; redirects are not followed). In the sandbox, loopback receivers are allowed, also over http (localhost, 127.0.0.0/8, [::1]).',
    }),
    events: z.array(z.string()).min(1).openapi({ description: EVENTS_DESCRIPTION, example: ['payout.*'] }),
  })
  .openapi('WebhookEndpointCreate');

const createWebhookRoute = createRoute({
  operationId: 'createWebhookEndpoint',
  method: 'post',
  path: '/webhooks',
  tags: ['Webhooks'],
  summary: 'Register a webhook endpoint',
  description:
    'Deliveries are POSTed as {id, type, created_at, data: {object: {id, object, status}}} and signed like Surface A: header Service-Signature = ' +
    't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the secret> (Stripe\'s layout). Reject timestamps older than 5 minutes; ' +
    'deduplicate by the envelope id (Service-Event-Id). A non-2xx answer is retried with exponential backoff for 24 hours.',
  middleware: [idempotency('C', { secretFields: ['secret'] })] as const,
  request: { headers: idempotencyHeaders(IDEMPOTENCY_DESCRIPTION), body: { required: true, content: jsonContent(CreateWebhookBody) } },
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
  description: 'Surface C endpoints, newest first; secrets are not included.',
  request: { query: z.object(pageQuery) },
  responses: {
    200: { description: 'List envelope', content: jsonContent(listEnvelope(WebhookEndpoint).openapi('WebhookEndpointList')) },
    ...errorResponses({ 400: 'validation_error (limit, cursor)', ...AUTH_ERRORS }),
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
    ...errorResponses({ ...AUTH_ERRORS, 404: 'not_found: no such endpoint in this business and environment' }),
  },
});

/** Registers POST /webhooks, GET /webhooks and DELETE /webhooks/{id}. */
export function registerWebhookRoutes(app: SurfaceRouter): void {
  app.openapi(deleteWebhookRoute, async (c) => {
    await deleteWebhookEndpoint(c.get('core'), c.get('caller'), c.req.valid('param').id, 'C');
    return c.body(null, 204);
  });

  app.openapi(createWebhookRoute, async (c) => {
    const body = c.req.valid('json');
    const created = await createWebhookEndpoint(c.get('core'), c.get('caller'), { url: body.url, events: body.events }, 'C');
    return c.json(renderCreatedWebhookEndpoint(created), 201);
  });

  app.openapi(listWebhooksRoute, async (c) => {
    const page = await listWebhookEndpoints(c.get('core'), c.get('caller'), c.req.valid('query'), 'C');
    return c.json({ data: page.data.map(renderWebhookEndpoint), next_cursor: page.nextCursor }, 200);
  });
}
