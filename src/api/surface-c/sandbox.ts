/**
 * Sandbox-only Surface C operations (docs/surface-c.md; 404 under the live base): the messages the
 * sandbox notification provider recorded (newest first, unmasked), and `POST /sandbox/fund`.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { fundSandbox } from '../../core/balance';
import { renderBalance } from '../../wire/surface-a/balance';
import { listSandboxNotifications, NOTIFICATION_CHANNELS } from '../../core/notifications';
import { renderSandboxNotification } from '../../wire/surface-a/notifications';
import { ApiError } from '../../domain/errors';
import { AMOUNT_INPUT_PATTERN } from '../../domain/money';
import { amountTypeError } from '../errors';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import type { AppEnv } from '../types';
import { AUTH_ERRORS, DateTimeSchema, errorResponses, IDEMPOTENCY_DESCRIPTION, idempotencyHeaders, jsonContent, listEnvelope, pageQuery } from './schemas';

/** 404 not_found for these routes under the live base address. */
const sandboxOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get('environment') !== 'sandbox') throw new ApiError(404, 'not_found', `No route ${c.req.method} ${c.req.path}`, null);
  await next();
};

const SandboxNotification = z
  .object({
    id: z.string().openapi({ description: 'The sandbox provider\'s message id', example: 'msg_01k0000000000000000000000' }),
    object: z.literal('sandbox_notification'),
    notification_id: z.string().openapi({ description: 'The notification (and idempotency key) it was sent for', example: 'ntf_01k0000000000000000000000' }),
    payout_id: z.string(),
    channel: z.enum(NOTIFICATION_CHANNELS),
    destination: z.string(),
    language: z.enum(['en', 'es', 'pt']),
    subject: z.string().nullable().openapi({ description: 'E-mail subject; null for whatsapp and sms' }),
    body: z.string(),
    claim_url: z.string(),
    created_at: DateTimeSchema,
  })
  .openapi('SandboxNotification');

const listNotificationsRoute = createRoute({
  operationId: 'listSandboxNotifications',
  method: 'get',
  path: '/sandbox/notifications',
  tags: ['Sandbox'],
  summary: 'Read the notifications the sandbox recorded (sandbox only, extension)',
  middleware: [sandboxOnly] as const,
  request: { query: z.object({ payout_id: z.string().optional().openapi({ description: 'Only this payout\'s message' }), ...pageQuery }) },
  responses: {
    200: { description: 'List envelope, newest first', content: jsonContent(listEnvelope(SandboxNotification).openapi('SandboxNotificationList')) },
    ...errorResponses({ 400: 'validation_error (limit, cursor)', ...AUTH_ERRORS, 404: 'not_found under the live base address' }),
  },
});

const BalanceSchema = z
  .object({ object: z.literal('balance'), available: z.string(), held: z.string(), currency: z.string() })
  .openapi('SandboxBalance');

const fundRoute = createRoute({
  operationId: 'fundSandboxBalance',
  method: 'post',
  path: '/sandbox/fund',
  tags: ['Sandbox'],
  summary: 'Fund the sandbox balance (sandbox only, extension)',
  middleware: [sandboxOnly, idempotency('C')] as const,
  request: {
    headers: idempotencyHeaders(IDEMPOTENCY_DESCRIPTION),
    body: { required: true, content: jsonContent(z.object({ amount: z.string({ error: amountTypeError }).openapi({ description: 'USDC to credit: 1 to 12 digits, optionally a point and 1 to 6 digits', pattern: AMOUNT_INPUT_PATTERN, example: '1000.00' }) }).openapi('SandboxFund')) },
  },
  responses: {
    200: { description: 'The balance after funding', content: jsonContent(BalanceSchema) },
    ...errorResponses({ 400: 'validation_error (param amount)', ...AUTH_ERRORS, 404: 'not_found under the live base address' }),
  },
});

/** Registers the sandbox-only Surface C routes. */
export function registerSandboxRoutes(app: SurfaceRouter): void {
  app.openapi(listNotificationsRoute, async (c) => {
    const q = c.req.valid('query');
    const page = await listSandboxNotifications(c.get('core'), c.get('caller'), { payoutId: q.payout_id, limit: q.limit, cursor: q.cursor });
    return c.json({ data: page.data.map(renderSandboxNotification), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(fundRoute, async (c) => {
    const balance = await fundSandbox(c.get('core'), c.get('caller'), c.req.valid('json').amount, { idempotencyKey: c.get('idempotencyKey') });
    return c.json(renderBalance(balance), 200);
  });
}
