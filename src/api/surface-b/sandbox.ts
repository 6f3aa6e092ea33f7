/**
 * Surface B `POST /sandbox/fund` (spec "Endpoints", Surface B): credits the sandbox balance with
 * `amountUsd` (1 USD = 1 USDC; the same balance Surface A uses). 404 `not_found` on the live base.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { fundSandbox } from '../../core/balance';
import { amountInputPattern } from '../../domain/money';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { AmountUsdSchema, LedgerUsdSchema, COMMON_ERRORS, errorResponses, IdempotencyKeyField, idempotencyKeyFromBody, jsonContent } from './schemas';

const FundSchema = z.object({ amountUsd: AmountUsdSchema.regex(new RegExp(amountInputPattern(2)), 'must be a USD amount such as "1000.00" (at most 12 digits before the point)'), idempotencyKey: IdempotencyKeyField }).openapi('SandboxFund');
const BalanceSchema = z
  .object({
    availableUsd: LedgerUsdSchema.openapi({ description: 'Spendable now' }),
    heldUsd: LedgerUsdSchema.openapi({ description: 'Held for disbursements not yet delivered, expired or cancelled' }),
    currency: z.literal('USD'),
  })
  .openapi('Balance');

/** Response body of `POST /sandbox/fund`. */
export type BalanceResponse = z.infer<typeof BalanceSchema>;

const fundRoute = createRoute({
  operationId: 'fundSandboxBalance',
  method: 'post',
  path: '/sandbox/fund',
  tags: ['Sandbox'],
  summary: 'Credit the sandbox balance',
  middleware: [idempotency('B', { keyFrom: idempotencyKeyFromBody })] as const,
  request: { body: { required: true, content: jsonContent(FundSchema) } },
  responses: {
    200: { description: 'The balance after the credit', content: jsonContent(BalanceSchema) },
    ...errorResponses({ 400: 'validation_error (amountUsd)', ...COMMON_ERRORS, 404: 'not_found (live base address)' }),
  },
});

/** Registers `POST /sandbox/fund`. */
export function registerSandboxRoutes(app: SurfaceRouter): void {
  app.openapi(fundRoute, async (c) => {
    const b = c.req.valid('json');
    const key = c.get('idempotencyKey');
    const balance = await fundSandbox(c.get('core'), c.get('caller'), b.amountUsd, {
      param: 'amountUsd',
      ...(key ? { idempotencyKey: key } : {}),
    });
    return c.json({ availableUsd: balance.available, heldUsd: balance.held, currency: 'USD' as const }, 200);
  });
}
