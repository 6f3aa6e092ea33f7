/**
 * Surface A balance (extension, documented: the spec funds and debits a balance but shows no read
 * operation). `GET /balance` -> `{object: 'balance', currency: 'USDC', available, held}`.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { getBalanceView } from '../../core/balance';
import type { AppEnv } from '../types';

const Amount = z.string().openapi({ description: 'USDC decimal string', example: '1250.50' });

/** Wire schema of the balance. */
export const BalanceSchema = z
  .object({
    object: z.literal('balance'),
    currency: z.literal('USDC'),
    available: Amount.openapi({ description: 'Spendable now' }),
    held: Amount.openapi({ description: 'Reserved by payouts in flight (amount + fees)' }),
  })
  .openapi('Balance');

const ErrorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), param: z.string().nullable(), request_id: z.string() }),
});

const getBalanceRoute = createRoute({
  method: 'get',
  path: '/balance',
  tags: ['Balance'],
  summary: 'Get the balance (extension)',
  responses: {
    200: { description: 'The balance of this business in this environment', content: { 'application/json': { schema: BalanceSchema } } },
    401: { description: 'Missing, unknown or wrong-environment API key', content: { 'application/json': { schema: ErrorBody } } },
  },
});

/** Registers `GET /balance` on a Surface A router. */
export function registerBalanceRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(getBalanceRoute, async (c) => c.json(await getBalanceView(c.get('core'), c.get('caller')), 200));
}
