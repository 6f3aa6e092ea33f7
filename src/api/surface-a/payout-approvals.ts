/**
 * Surface A payout approvals (extensions; spec "Authentication" 4: a request above the key's
 * approval_threshold "waits for approval"): `POST /payouts/{id}/approve` and
 * `POST /payouts/{id}/reject {reason?}`. A thin adapter over src/core/policies/payout-approvals.ts.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { approvePayout, rejectPayout } from '../../core/policies/payout-approvals';
import { renderPayout } from '../../wire/surface-a/payouts';
import type { SurfaceRouter } from '../surface';
import { PayoutSchema } from './payouts';
import { ErrorSchema, idParam, jsonContent } from './schemas';

const error = (description: string) => ({ description, content: jsonContent(ErrorSchema) });
const params = z.object({ id: idParam('id', 'po_01k0000000000000000000000') });
const decisionErrors = {
  401: error('Missing, unknown or wrong-environment API key'),
  403: error('self_approval_forbidden (the key that created the payout); permission_denied (a key with a policy)'),
  404: error('not_found'),
  409: error('invalid_state: the payout is not awaiting approval'),
};

const approveDef = createRoute({
  operationId: 'approvePayout',
  method: 'post',
  path: '/payouts/{id}/approve',
  tags: ['Payouts'],
  summary: 'Approve a payout waiting for approval (extension)',
  description:
    'A payout above its key’s approval_threshold is pending with its funds held. Another key of the business without a policy ' +
    'approves it: it becomes submitted and is delivered as usual.',
  request: { params },
  responses: { 200: { description: 'The payout (submitted or later)', content: jsonContent(PayoutSchema) }, ...decisionErrors },
});

const rejectDef = createRoute({
  operationId: 'rejectPayout',
  method: 'post',
  path: '/payouts/{id}/reject',
  tags: ['Payouts'],
  summary: 'Reject a payout waiting for approval (extension)',
  description: 'The payout is canceled and its hold released (event payout.canceled).',
  request: {
    params,
    body: {
      required: false,
      content: jsonContent(z.object({ reason: z.string().optional().openapi({ description: 'At most 500 characters' }) }).openapi('PayoutReject')),
    },
  },
  responses: { 200: { description: 'The payout, canceled', content: jsonContent(PayoutSchema) }, 400: error('validation_error (reason)'), ...decisionErrors },
});

/** Registers POST /payouts/{id}/approve and /reject. */
export function registerPayoutApprovalRoutes(app: SurfaceRouter): void {
  app.openapi(approveDef, async (c) => c.json(renderPayout(await approvePayout(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200));
  app.openapi(rejectDef, async (c) => {
    const body = (c.req.header('Content-Type') ?? '').includes('json') ? c.req.valid('json') : {};
    return c.json(renderPayout(await rejectPayout(c.get('core'), c.get('caller'), c.req.valid('param').id, body?.reason)), 200);
  });
}
