/**
 * Sandbox-only Surface A operations (documented extensions; 404 not_found under the live base):
 * `POST /sandbox/fund` credits the balance; `POST /sandbox/payouts/{id}/claim` claims as the
 * recipient (409 invalid_state unless awaiting_claim).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { fundSandbox } from '../../core/balance';
import { renderBalance } from '../../wire/surface-a/balance';
import { CLAIM_METHODS, claimPayout } from '../../core/payouts';
import { renderPayout } from '../../wire/surface-a/payouts';
import { ApiError } from '../../domain/errors';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import type { AppEnv } from '../types';
import { BalanceSchema } from './balance';
import { PayoutSchema } from './payouts';
import { AmountInputSchema, AUTH_ERRORS, errorResponses, idParam, jsonContent } from './schemas';

/** 404 not_found for these routes under the live base address (checked before the body is read). */
export const sandboxOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get('environment') !== 'sandbox') throw new ApiError(404, 'not_found', `No route ${c.req.method} ${c.req.path}`, null);
  await next();
};

const SandboxFundSchema = z
  .object({ amount: AmountInputSchema.openapi({ description: 'USDC to credit, up to 6 decimals', example: '1000.00' }) })
  .openapi('SandboxFund');

const SandboxClaimSchema = z
  .object({ method: z.enum(CLAIM_METHODS).openapi({ description: 'The payout method the recipient chooses' }) })
  .openapi('SandboxClaim');

/** Request body of `POST /sandbox/fund`. */
export type SandboxFundBody = z.infer<typeof SandboxFundSchema>;
/** Request body of `POST /sandbox/payouts/{id}/claim`. */
export type SandboxClaimBody = z.infer<typeof SandboxClaimSchema>;

const fundRoute = createRoute({
  operationId: 'fundSandboxBalance',
  method: 'post',
  path: '/sandbox/fund',
  tags: ['Sandbox'],
  summary: 'Fund the sandbox balance (sandbox only, extension)',
  middleware: [sandboxOnly, idempotency('A')] as const,
  request: { body: { required: true, content: jsonContent(SandboxFundSchema) } },
  responses: {
    200: { description: 'The balance after funding', content: jsonContent(BalanceSchema) },
    ...errorResponses({ 400: 'validation_error (param amount)', ...AUTH_ERRORS, 404: 'not_found under the live base address' }),
  },
});

const claimRoute = createRoute({
  operationId: 'claimSandboxPayout',
  method: 'post',
  path: '/sandbox/payouts/{id}/claim',
  tags: ['Sandbox'],
  summary: 'Claim a claim-link payout as its recipient (sandbox only, extension)',
  middleware: [sandboxOnly] as const,
  request: {
    params: z.object({ id: idParam('id') }),
    body: { required: true, content: jsonContent(SandboxClaimSchema) },
  },
  responses: {
    200: { description: 'The payout after the claim (claimed or later)', content: jsonContent(PayoutSchema) },
    ...errorResponses({
      400: 'validation_error (param method)',
      ...AUTH_ERRORS,
      404: 'not_found',
      409: 'invalid_state: the payout is not awaiting its claim',
    }),
  },
});

/** Registers the sandbox-only routes on a Surface A router. */
export function registerSandboxRoutes(app: SurfaceRouter): void {
  app.openapi(fundRoute, async (c) => {
    const body = c.req.valid('json');
    const balance = await fundSandbox(c.get('core'), c.get('caller'), body.amount, { idempotencyKey: c.get('idempotencyKey') });
    return c.json(renderBalance(balance), 200);
  });

  app.openapi(claimRoute, async (c) => {
    const payout = await claimPayout(c.get('core'), c.get('caller'), c.req.valid('param').id, c.req.valid('json').method);
    return c.json(renderPayout(payout), 200);
  });
}
