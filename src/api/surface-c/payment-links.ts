/** Surface C payment links (docs/surface-c.md): Surface A's record and create body, over src/core/payment-links. */
import { createRoute, z } from '@hono/zod-openapi';
import { createPaymentLink, getPaymentLink } from '../../core/payment-links/payment-links';
import { PAYMENT_METHOD_TYPES } from '../../domain/funding';
import type { PaymentLink } from '../../domain/payment-links';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { AUTH_ERRORS, DateTimeSchema, errorResponses, IDEMPOTENCY_DESCRIPTION, idempotencyHeaders, idParam, jsonContent } from './schemas';

const MethodType = z.enum(PAYMENT_METHOD_TYPES);

/** Surface C PaymentLink. */
export const PaymentLinkSchema = z
  .object({
    id: z.string().openapi({ example: 'plink_01k0000000000000000000000' }),
    object: z.literal('payment_link'),
    name: z.string(),
    url: z.string().openapi({ description: 'The public page payers open' }),
    methods: z.array(z.object({ type: MethodType, ready: z.boolean() })).openapi({ description: 'ready: the method can take money now (bank_transfer needs an active virtual account)' }),
    published: z.boolean(),
    created_at: DateTimeSchema,
    updated_at: DateTimeSchema,
  })
  .openapi('PaymentLink');
/** A Surface C payment link on the wire. */
export type WirePaymentLinkC = z.infer<typeof PaymentLinkSchema>;

/** Surface C's payment link (the same record as Surface A's). */
export function renderPaymentLinkC(l: PaymentLink): WirePaymentLinkC {
  return {
    id: l.id,
    object: 'payment_link',
    name: l.name,
    url: l.url,
    methods: l.methods.map((m) => ({ type: m.type, ready: m.ready })),
    published: l.published,
    created_at: l.createdAt.toISOString(),
    updated_at: l.updatedAt.toISOString(),
  };
}

const CreatePaymentLinkBody = z
  .object({
    name: z.string().openapi({ example: 'Invoices' }),
    methods: z.array(z.string()).openapi({ description: `Non-empty; each one of ${PAYMENT_METHOD_TYPES.join(', ')}`, example: ['bank_transfer'] }),
    published: z.boolean().optional().openapi({ description: 'Default true' }),
  })
  .openapi('PaymentLinkCreate');
/** Body of POST /payment-links. */
export type CreatePaymentLinkBody = z.infer<typeof CreatePaymentLinkBody>;

const createRouteDef = createRoute({
  operationId: 'createPaymentLink',
  method: 'post',
  path: '/payment-links',
  tags: ['Payment links'],
  summary: 'Create a payment link',
  middleware: [idempotency('C')] as const,
  request: { headers: idempotencyHeaders(IDEMPOTENCY_DESCRIPTION), body: { required: true, content: jsonContent(CreatePaymentLinkBody) } },
  responses: {
    201: { description: 'The payment link', content: jsonContent(PaymentLinkSchema) },
    ...errorResponses({ 400: 'validation_error (name, methods, methods.<i>, published)', ...AUTH_ERRORS, 409: 'idempotency_conflict' }),
  },
});

const getRouteDef = createRoute({
  operationId: 'getPaymentLink',
  method: 'get',
  path: '/payment-links/{id}',
  tags: ['Payment links'],
  summary: 'Retrieve a payment link',
  request: { params: z.object({ id: idParam('id', 'plink_01k0000000000000000000000') }) },
  responses: {
    200: { description: 'The payment link', content: jsonContent(PaymentLinkSchema) },
    ...errorResponses({ ...AUTH_ERRORS, 404: 'not_found' }),
  },
});

/** Registers POST /payment-links and GET /payment-links/{id}. */
export function registerPaymentLinkRoutes(app: SurfaceRouter): void {
  app.openapi(createRouteDef, async (c) => {
    return c.json(renderPaymentLinkC(await createPaymentLink(c.get('core'), c.get('caller'), c.req.valid('json'))), 201);
  });

  app.openapi(getRouteDef, async (c) => {
    return c.json(renderPaymentLinkC(await getPaymentLink(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200);
  });
}
