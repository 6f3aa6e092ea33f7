/** Surface A payment requests (spec "PaymentRequest"), over src/core/payment-links/payment-requests.ts. */
import { createRoute, z } from '@hono/zod-openapi';
import type { SurfaceRouter } from '../surface';
import { createPaymentRequest, getPaymentRequest, listPaymentRequests } from '../../core/payment-links/payment-requests';
import { PAYMENT_REQUEST_STATUSES, VIRTUAL_ACCOUNT_CURRENCIES } from '../../domain/funding';
import { renderPaymentRequest } from '../../wire/surface-a/payment-links';
import { pageQuery } from '../pagination';
import { AmountInputSchema, ErrorSchema, jsonContent } from './schemas';

const error = (description: string) => ({ description, content: jsonContent(ErrorSchema) });
const DateTime = z.string().openapi({ format: 'date-time' });

/** Spec "PaymentRequest", plus object, payment_link_id, paid_at, deposit_id, created_at. */
export const PaymentRequestSchema = z
  .object({
    id: z.string().openapi({ example: 'preq_01k0000000000000000000000' }),
    object: z.literal('payment_request'),
    payment_link_id: z.string(),
    url: z.string().openapi({ description: 'Public page with the amount, the reference to quote and the account details' }),
    amount: z.string().openapi({ example: '250.00' }),
    currency: z.string().openapi({ description: 'USD, EUR or MXN' }),
    reference: z.string(),
    status: z.enum(PAYMENT_REQUEST_STATUSES),
    expires_at: DateTime,
    paid_at: DateTime.nullable(),
    deposit_id: z.string().nullable().openapi({ description: 'The deposit that paid it' }),
    created_at: DateTime,
  })
  .openapi('PaymentRequest');

const createDef = createRoute({
  operationId: 'createPaymentRequest',
  method: 'post',
  path: '/payment-requests',
  tags: ['Payment requests'],
  summary: 'Request a fixed amount',
  description:
    'Paid when exactly one deposit matches amount, currency, timing (created_at <= received < expires_at) and owner ' +
    '(a virtual account of this business; the reference too where the account requires one). Expires at expires_at.',
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({
              payment_link_id: z.string(),
              amount: AmountInputSchema.openapi({ example: '250.00' }),
              currency: z.enum(VIRTUAL_ACCOUNT_CURRENCIES),
              reference: z.string().openapi({ example: 'INV-2026-0042', description: 'At most 140 characters; the payer quotes it' }),
              expires_at: DateTime.openapi({ description: 'In the future, at most one year ahead' }),
            })
            .openapi('PaymentRequestCreate'),
        },
      },
    },
  },
  responses: {
    201: { description: 'The request, open', content: { 'application/json': { schema: PaymentRequestSchema } } },
    400: error('validation_error (payment_link_id, amount, currency, reference, expires_at)'),
    401: error('Missing, unknown or wrong-environment API key'),
    404: error('not_found (payment_link_id)'),
  },
});

const getDef = createRoute({
  operationId: 'getPaymentRequest',
  method: 'get',
  path: '/payment-requests/{id}',
  tags: ['Payment requests'],
  summary: 'Get a payment request (extension)',
  request: { params: z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) }) },
  responses: {
    200: { description: 'The request', content: { 'application/json': { schema: PaymentRequestSchema } } },
    401: error('Missing, unknown or wrong-environment API key'),
    404: error('not_found'),
  },
});

const listDef = createRoute({
  operationId: 'listPaymentRequests',
  method: 'get',
  path: '/payment-requests',
  tags: ['Payment requests'],
  summary: 'List payment requests (extension)',
  request: { query: z.object({ status: z.enum(PAYMENT_REQUEST_STATUSES).optional(), payment_link_id: z.string().optional(), ...pageQuery }) },
  responses: {
    200: {
      description: 'A page, newest first',
      content: { 'application/json': { schema: z.object({ data: z.array(PaymentRequestSchema), next_cursor: z.string().nullable() }) } },
    },
    400: error('validation_error'),
    401: error('Missing, unknown or wrong-environment API key'),
  },
});

/** Registers POST/GET /payment-requests and GET /payment-requests/{id}. */
export function registerPaymentRequestRoutes(app: SurfaceRouter): void {
  app.openapi(createDef, async (c) => {
    const b = c.req.valid('json');
    const input = { paymentLinkId: b.payment_link_id, amount: b.amount, currency: b.currency, reference: b.reference, expiresAt: b.expires_at };
    return c.json(renderPaymentRequest(await createPaymentRequest(c.get('core'), c.get('caller'), input)), 201);
  });
  app.openapi(getDef, async (c) => c.json(renderPaymentRequest(await getPaymentRequest(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200));
  app.openapi(listDef, async (c) => {
    const q = c.req.valid('query');
    const page = await listPaymentRequests(c.get('core'), c.get('caller'), { limit: q.limit, cursor: q.cursor, status: q.status, paymentLinkId: q.payment_link_id });
    return c.json({ data: page.data.map(renderPaymentRequest), next_cursor: page.nextCursor }, 200);
  });
}
