/** Surface A withdrawals (spec "Withdrawal create body"); the result is a Payout. */
import { createRoute, z } from '@hono/zod-openapi';
import { createWithdrawal } from '../../core/funding/withdrawals';
import { renderPayout } from '../../wire/surface-a/payouts';
import { VIRTUAL_ACCOUNT_CURRENCIES } from '../../domain/funding';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { PayoutSchema } from './payouts';
import { AmountInputSchema, ErrorSchema, idempotencyHeaders, jsonContent } from './schemas';

const error = (description: string) => ({ description, content: jsonContent(ErrorSchema) });

const createDef = createRoute({
  operationId: 'createWithdrawal',
  method: 'post',
  path: '/withdrawals',
  tags: ['Withdrawals'],
  summary: 'Withdraw to your own bank account',
  description:
    'A payout on ach_usd (USD), sepa_eur (EUR) or spei_mxn (MXN) to payout_destination_id, a saved bank_account recipient of your business ' +
    'that the rail can pay. Runs as any payout (201 submitted, attempts 1). Needs a verified business.',
  middleware: [idempotency('A')] as const,
  request: {
    headers: idempotencyHeaders('Makes a retried request safe (30 days)'),
    body: {
      required: true,
      content: jsonContent(
        z
          .object({
            currency: z.enum(VIRTUAL_ACCOUNT_CURRENCIES),
            payout_destination_id: z.string().openapi({ example: 'rcp_01k0000000000000000000000' }),
            source_amount: AmountInputSchema.optional().openapi({ description: 'USDC to withdraw (fees on top); give this or destination_amount' }),
            destination_amount: AmountInputSchema.optional().openapi({ description: 'What arrives, in currency' }),
            reference: z.string().optional().openapi({ description: 'At most 140 characters' }),
          })
          .openapi('WithdrawalCreate'),
      ),
    },
  },
  responses: {
    201: { description: 'The payout, submitted', content: jsonContent(PayoutSchema) },
    400: error('validation_error (currency, payout_destination_id, source_amount, destination_amount, reference), amount_out_of_range'),
    401: error('Missing, unknown or wrong-environment API key'),
    402: error('insufficient_balance'),
    403: error('verification_required'),
    404: error('not_found (payout_destination_id)'),
    409: error('idempotency_conflict, idempotency_in_flight'),
    422: error('recipient_not_ready'),
  },
});

/** Registers POST /withdrawals. */
export function registerWithdrawalRoutes(app: SurfaceRouter): void {
  app.openapi(createDef, async (c) => {
    const b = c.req.valid('json');
    const input = { currency: b.currency, payoutDestinationId: b.payout_destination_id, sourceAmount: b.source_amount, destinationAmount: b.destination_amount, reference: b.reference };
    const payout = await createWithdrawal(c.get('core'), c.get('caller'), input, { idempotencyKey: c.get('idempotencyKey') });
    return c.json(renderPayout(payout), 201);
  });
}
