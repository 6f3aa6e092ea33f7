/** Surface A balance (documented extension: the spec shows no read of it). */
import { createRoute, z } from '@hono/zod-openapi';
import { getBalanceView } from '../../core/balance';
import { renderBalance } from '../../wire/surface-a/balance';
import type { SurfaceRouter } from '../surface';
import { AUTH_ERRORS, AmountSchema, errorResponses, jsonContent } from './schemas';

const Amount = AmountSchema.openapi({ description: 'USDC decimal string', example: '1250.50' });

export const BalanceSchema = z
  .object({
    object: z.literal('balance'),
    currency: z.literal('USDC'),
    available: Amount.openapi({ description: 'Spendable now' }),
    held: Amount.openapi({ description: 'Reserved by payouts in flight (amount + fees)' }),
    reserve: Amount.openapi({ description: 'Live card money held in the rolling reserve until its release date; not spendable (docs: Rolling reserve)' }),
  })
  .openapi('Balance');

/** Response body of `GET /balance` (and of `POST /sandbox/fund`). */
export type BalanceResponse = z.infer<typeof BalanceSchema>;

const getBalanceRoute = createRoute({
  operationId: 'getBalance',
  method: 'get',
  path: '/balance',
  tags: ['Balance'],
  summary: 'Get the balance (extension)',
  responses: {
    200: { description: 'The balance of this business in this environment', content: jsonContent(BalanceSchema) },
    ...errorResponses(AUTH_ERRORS),
  },
});

/** Registers `GET /balance` on a Surface A router. */
export function registerBalanceRoutes(app: SurfaceRouter): void {
  app.openapi(getBalanceRoute, async (c) => c.json(renderBalance(await getBalanceView(c.get('core'), c.get('caller'))), 200));
}
