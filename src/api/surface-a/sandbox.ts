/**
 * Sandbox-only Surface A operations (extensions, documented). They exist only under the sandbox
 * base address; under the live one they answer 404 not_found like any unknown route.
 * - `POST /sandbox/fund` {amount}: credits the sandbox balance (funds are free), returns the balance.
 * - `POST /sandbox/payouts/{id}/claim` {method}: acts as the recipient of a claim-link payout
 *   (the workflow's `claim` Update); returns the payout. 409 invalid_state unless awaiting_claim.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { fundSandbox } from '../../core/balance';
import { CLAIM_METHODS, claimPayout } from '../../core/payouts';
import { ApiError } from '../../domain/errors';
import { idempotency } from '../middleware/idempotency';
import type { AppEnv } from '../types';
import { BalanceSchema } from './balance';
import { PayoutSchema } from './payouts';

const ErrorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), param: z.string().nullable(), request_id: z.string() }),
});
const error = (description: string) => ({ description, content: { 'application/json': { schema: ErrorBody } } });

/** 404 not_found for these routes under the live base address (checked before the body is read). */
export const sandboxOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get('environment') !== 'sandbox') throw new ApiError(404, 'not_found', `No route ${c.req.method} ${c.req.path}`, null);
  await next();
};

const fundRoute = createRoute({
  method: 'post',
  path: '/sandbox/fund',
  tags: ['Sandbox'],
  summary: 'Fund the sandbox balance (sandbox only, extension)',
  middleware: [sandboxOnly, idempotency('A')] as const,
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({ amount: z.string().openapi({ description: 'USDC to credit, up to 6 decimals', example: '1000.00' }) })
            .openapi('SandboxFund'),
        },
      },
    },
  },
  responses: {
    200: { description: 'The balance after funding', content: { 'application/json': { schema: BalanceSchema } } },
    400: error('validation_error (param amount)'),
    401: error('Missing, unknown or wrong-environment API key'),
    404: error('not_found under the live base address'),
  },
});

const claimRoute = createRoute({
  method: 'post',
  path: '/sandbox/payouts/{id}/claim',
  tags: ['Sandbox'],
  summary: 'Claim a claim-link payout as its recipient (sandbox only, extension)',
  middleware: [sandboxOnly] as const,
  request: {
    params: z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) }),
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({ method: z.enum(CLAIM_METHODS).openapi({ description: 'The payout method the recipient chooses' }) })
            .openapi('SandboxClaim'),
        },
      },
    },
  },
  responses: {
    200: { description: 'The payout after the claim (claimed or later)', content: { 'application/json': { schema: PayoutSchema } } },
    400: error('validation_error (param method)'),
    401: error('Missing, unknown or wrong-environment API key'),
    404: error('not_found'),
    409: error('invalid_state: the payout is not awaiting its claim'),
  },
});

/** Registers the sandbox-only routes on a Surface A router. */
export function registerSandboxRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(fundRoute, async (c) => {
    const body = c.req.valid('json');
    const balance = await fundSandbox(c.get('core'), c.get('caller'), body.amount, { idempotencyKey: c.get('idempotencyKey') });
    return c.json(balance, 200);
  });

  app.openapi(claimRoute, async (c) => {
    const payout = await claimPayout(c.get('core'), c.get('caller'), c.req.valid('param').id, c.req.valid('json').method);
    return c.json(payout as any, 200);
  });
}
