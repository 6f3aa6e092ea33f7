import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookEndpoints, MAX_WEBHOOK_URL_LENGTH } from '../../core/webhooks';
import { SURFACE_A_EVENT_TYPES, SURFACE_A_EVENT_WILDCARDS } from '../../domain/webhook-events';
import { idempotency } from '../middleware/idempotency';
import { pageQuery } from '../pagination';
import type { AppEnv } from '../types';
import { newSurfaceARouter } from './index';

/**
 * Surface A webhook endpoints (spec "Endpoints": GET/POST /webhooks, DELETE /webhooks/{id};
 * "Events"). A thin adapter over src/core/webhooks.ts.
 */

const ErrorBody = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      param: z.string().nullable(),
      request_id: z.string(),
    }),
  })
  .openapi('Error');

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ErrorBody } } });

const EVENTS_DESCRIPTION = `Event types to receive: ${SURFACE_A_EVENT_TYPES.join(', ')}; or a wildcard: ${SURFACE_A_EVENT_WILDCARDS.join(', ')}.`;

const WebhookEndpoint = z
  .object({
    id: z.string().openapi({ example: 'we_01j9z3k4m5n6p7q8r9s0t1v2w3' }),
    object: z.literal('webhook_endpoint'),
    url: z.string().openapi({ format: 'uri', example: 'https://example.com/hooks/payouts' }),
    events: z.array(z.string()).openapi({ description: EVENTS_DESCRIPTION, example: ['payout.*'] }),
    created_at: z.string().openapi({ format: 'date-time' }),
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
    headers: z.object({ 'Idempotency-Key': z.string().optional().openapi({ description: 'Makes a retried request safe' }) }),
    body: { required: true, content: { 'application/json': { schema: CreateWebhookBody } } },
  },
  responses: {
    201: { description: 'The endpoint, with its secret (shown this once)', content: { 'application/json': { schema: CreatedWebhookEndpoint } } },
    400: errorResponse('validation_error (param url, events or events.<i>)'),
    401: errorResponse('Missing, unknown or wrong-environment API key'),
    409: errorResponse('idempotency_conflict'),
  },
});

const listWebhooksRoute = createRoute({
  method: 'get',
  path: '/webhooks',
  tags: ['Webhooks'],
  summary: 'List webhook endpoints',
  description: 'Newest first. Secrets are not included.',
  request: { query: z.object(pageQuery) },
  responses: {
    200: {
      description: 'List envelope',
      content: {
        'application/json': {
          schema: z.object({ data: z.array(WebhookEndpoint), next_cursor: z.string().nullable() }).openapi('WebhookEndpointList'),
        },
      },
    },
    400: errorResponse('validation_error (limit, cursor)'),
    401: errorResponse('Missing, unknown or wrong-environment API key'),
  },
});

const deleteWebhookRoute = createRoute({
  method: 'delete',
  path: '/webhooks/{id}',
  tags: ['Webhooks'],
  summary: 'Delete a webhook endpoint',
  description: 'The endpoint receives nothing more; deliveries still being retried for it are given up.',
  request: { params: z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'we_01j9z3k4m5n6p7q8r9s0t1v2w3' }) }) },
  responses: {
    204: { description: 'Deleted' },
    401: errorResponse('Missing, unknown or wrong-environment API key'),
    404: errorResponse('not_found: no such endpoint in this business and environment'),
  },
});

/** The webhooks router (an OpenAPIHono from {@link newSurfaceARouter}). */
export function webhooksRouter(): OpenAPIHono<AppEnv> {
  const app = newSurfaceARouter();

  app.openapi(createWebhookRoute, async (c) => {
    const body = c.req.valid('json');
    const created = await createWebhookEndpoint(c.get('core'), c.get('caller'), body);
    return c.json(created, 201);
  });

  app.openapi(listWebhooksRoute, async (c) => {
    const page = c.req.valid('query');
    return c.json(await listWebhookEndpoints(c.get('core'), c.get('caller'), page), 200);
  });

  app.openapi(deleteWebhookRoute, async (c) => {
    await deleteWebhookEndpoint(c.get('core'), c.get('caller'), c.req.valid('param').id);
    return c.body(null, 204);
  });

  return app;
}

/** Mounts the webhooks router on the Surface A app (called from routes.ts). */
export function registerWebhookRoutes(app: OpenAPIHono<AppEnv>): void {
  app.route('/', webhooksRouter());
}
