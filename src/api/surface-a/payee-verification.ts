/**
 * Surface A Verification of Payee decisions (docs/payee-verification.md "Confirming or canceling"):
 * `POST /payouts/{id}/confirm-payee` and `POST /payouts/{id}/cancel` (only a payout awaiting its
 * payee confirmation). A thin adapter over src/core/payouts/updates.ts.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { cancelPayeeHold, confirmPayee } from '../../core/payouts';
import { renderPayout } from '../../wire/surface-a/payouts';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { PayoutSchema } from './payouts';
import { AUTH_ERRORS, errorResponses, idempotencyHeaders, idParam, jsonContent } from './schemas';

const params = z.object({ id: idParam('id', 'po_01k0000000000000000000000') });

const confirmDef = createRoute({
  operationId: 'confirmPayee',
  method: 'post',
  path: '/payouts/{id}/confirm-payee',
  tags: ['Payouts'],
  summary: 'Confirm the payee of a payout held by Verification of Payee (extension)',
  description:
    'A sepa_eur payout whose payee the bank answered a close match or no match waits (status submitted, payee_verification.status ' +
    'awaiting_confirmation, event payout.payee_confirmation_required) until payee_verification.confirm_by. Confirming sends it as typed; ' +
    'the business bears the risk of paying an account whose holder has another name (docs/payee-verification.md).',
  middleware: [idempotency('A')] as const,
  request: { params, headers: idempotencyHeaders('Makes a retried request safe (30 days).') },
  responses: {
    200: { description: 'The payout, confirmed (submitted or later)', content: jsonContent(PayoutSchema) },
    ...errorResponses({ ...AUTH_ERRORS, 404: 'not_found', 409: 'payee_confirmation_not_pending: the payout is not awaiting a payee confirmation; idempotency_conflict, idempotency_in_flight' }),
  },
});

const cancelDef = createRoute({
  operationId: 'cancelPayout',
  method: 'post',
  path: '/payouts/{id}/cancel',
  tags: ['Payouts'],
  summary: 'Cancel a payout held by Verification of Payee (extension)',
  description:
    'Only a payout awaiting its payee confirmation (payee_verification.status awaiting_confirmation): it is canceled, its hold released ' +
    '(event payout.canceled). A payout waiting for approval is rejected with POST /payouts/{id}/reject.',
  middleware: [idempotency('A')] as const,
  request: { params, headers: idempotencyHeaders('Makes a retried request safe (30 days).') },
  responses: {
    200: { description: 'The payout, canceled', content: jsonContent(PayoutSchema) },
    ...errorResponses({ ...AUTH_ERRORS, 404: 'not_found', 409: 'payee_confirmation_not_pending: the payout is not awaiting a payee confirmation; idempotency_conflict, idempotency_in_flight' }),
  },
});

/** Registers POST /payouts/{id}/confirm-payee and /cancel. */
export function registerPayeeVerificationRoutes(app: SurfaceRouter): void {
  app.openapi(confirmDef, async (c) => c.json(renderPayout(await confirmPayee(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200));
  app.openapi(cancelDef, async (c) => c.json(renderPayout(await cancelPayeeHold(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200));
}
