/** Surface B `POST /sandbox/fund`: credits `amountUsd` (1 USD = 1 USDC) to the shared balance; 404 on live. */
import { createRoute, z } from '@hono/zod-openapi';
import { fundSandbox } from '../../core/balance';
import { amountInputPattern, formatAmount, parseAmount, USDC } from '../../domain/money';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { AmountUsdSchema, COMMON_ERRORS, errorResponses, IdempotencyKeyField, idempotencyKeyFromBody, jsonContent } from './schemas';

/** A balance in USD as Surface B shows it: two decimals (spec "Shared types": fiat takes two). */
const BalanceUsdSchema = z.string().openapi({ pattern: '^[0-9]+\\.[0-9]{2}$', example: '1947.77' });

/**
 * A USDC ledger figure (`"1947.775"`, up to 6 decimals) as USD with two decimals, rounded down to
 * the cent (docs/surface-b.md "Amounts": a balance never shows more than can be spent).
 */
export function usdCentsDown(usdc: string): string {
  return microUsdcAsUsd(parseAmount(usdc, USDC, { allowZero: true }));
}

/** Micro-USDC as USD with two decimals, rounded down to the cent (as {@link usdCentsDown}). */
export function microUsdcAsUsd(micro: bigint): string {
  return formatAmount(micro / 10_000n, 'USD');
}

const FundSchema = z.object({ amountUsd: AmountUsdSchema.regex(new RegExp(amountInputPattern(2)), 'must be a USD amount such as "1000.00" (at most 12 digits before the point)'), idempotencyKey: IdempotencyKeyField }).openapi('SandboxFund');
const BalanceSchema = z
  .object({
    availableUsd: BalanceUsdSchema.openapi({ description: 'Spendable now, in USD cents rounded down (the USDC ledger keeps 6 decimals: Surface A GET /balance)' }),
    heldUsd: BalanceUsdSchema.openapi({ description: 'Held for disbursements not yet delivered, expired or cancelled, in USD cents rounded down' }),
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
    return c.json({ availableUsd: microUsdcAsUsd(balance.available.minor), heldUsd: microUsdcAsUsd(balance.held.minor), currency: 'USD' as const }, 200);
  });
}
