/**
 * Surface B refunds of card top-ups (docs/surface-b.md "Card top-ups", docs/getting-paid.md
 * "Refunds"): a thin adapter over src/core/cards/refunds.ts.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { listCardTopupRefunds, refundCardTopup } from '../../core/cards/refunds';
import type { SurfaceRouter } from '../surface';
import { idempotency } from '../middleware/idempotency';
import { COMMON_ERRORS, DateTimeSchema, errorResponses, IdempotencyKeyField, idempotencyKeyFromBody, idParam, jsonContent } from './schemas';

const CardRefundSchema = z
  .object({
    id: z.string().openapi({ example: 'cref_01k0000000000000000000000' }),
    topupId: z.string().nullable().openapi({ example: 'ctu_01k0000000000000000000000' }),
    amountUsd: z.string().openapi({ example: '20.00', description: 'Returned to the card, USD' }),
    debitedUsd: z.string().openapi({
      example: '19.200000',
      description: "Debited from the balance, USD (= USDC): the top-up's credited share of amountUsd, rounded up; the card fee is not returned",
    }),
    status: z.enum(['pending', 'succeeded', 'failed']).openapi({
      description: 'pending (live: the card processor has not confirmed yet), succeeded, or failed (the debit is credited back)',
    }),
    failureReason: z.string().nullable(),
    createdAt: DateTimeSchema,
    updatedAt: DateTimeSchema,
  })
  .openapi('CardRefund');

const CardRefundCreateSchema = z
  .object({
    amountUsd: z.string().optional().openapi({ example: '20.00', description: 'Default: all that is left to refund of the top-up' }),
    idempotencyKey: IdempotencyKeyField,
  })
  .openapi('CardRefundCreate');

/** Response body of `POST /funding/card/{id}/refunds`. */
export type CardRefundResponse = z.infer<typeof CardRefundSchema>;

const topupParam = z.object({ id: idParam('id', 'ctu_01k0000000000000000000000') });

const createRefundRoute = createRoute({
  operationId: 'createCardTopupRefund',
  method: 'post',
  path: '/funding/card/{id}/refunds',
  tags: ['Funding'],
  summary: 'Refund a card top-up (all or part)',
  description:
    'Debits the balance first (the credited share of amountUsd), then returns amountUsd to the card. Sandbox: succeeded at once. Live: pending until the ' +
    'card processor confirms; a failed refund credits the debit back. Refunds of a top-up add up to at most its amount.',
  middleware: [idempotency('B', { keyFrom: idempotencyKeyFromBody })] as const,
  request: { params: topupParam, body: { required: false, content: jsonContent(CardRefundCreateSchema) } },
  responses: {
    201: { description: 'The refund', content: jsonContent(CardRefundSchema) },
    ...errorResponses({
      400: 'validation_error (amountUsd malformed); amount_out_of_range (amountUsd above what is left to refund)',
      ...COMMON_ERRORS,
      402: 'insufficient_balance (the available balance does not cover the debit; nothing is refunded)',
      404: 'not_found (no card top-up with this id)',
      409: 'invalid_state (the top-up is not completed, is already fully refunded, or its deposit is not credited yet)',
    }),
  },
});

const listRefundsRoute = createRoute({
  operationId: 'listCardTopupRefunds',
  method: 'get',
  path: '/funding/card/{id}/refunds',
  tags: ['Funding'],
  summary: 'Refunds of a card top-up',
  request: { params: topupParam },
  responses: {
    200: { description: 'The refunds, newest first', content: jsonContent(z.object({ data: z.array(CardRefundSchema) }).openapi('CardRefundList')) },
    ...errorResponses({ ...COMMON_ERRORS, 404: 'not_found (no card top-up with this id)' }),
  },
});

/** Registers Surface B's card refund operations. */
export function registerCardRefundRoutes(app: SurfaceRouter): void {
  app.openapi(createRefundRoute, async (c) => {
    const b = (c.req.valid('json') ?? {}) as { amountUsd?: string };
    return c.json(await refundCardTopup(c.get('core'), c.get('caller'), c.req.valid('param').id, { amountUsd: b.amountUsd }), 201);
  });
  app.openapi(listRefundsRoute, async (c) => {
    return c.json({ data: await listCardTopupRefunds(c.get('core'), c.get('caller'), c.req.valid('param').id) }, 200);
  });
}
