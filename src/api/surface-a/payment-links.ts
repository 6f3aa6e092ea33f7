/** Surface A payment links (spec "PaymentLink"), over src/core/payment-links/payment-links.ts. */
import { createRoute, z } from '@hono/zod-openapi';
import type { SurfaceRouter } from '../surface';
import { createPaymentLink, getPaymentLink, listPaymentLinks, updatePaymentLink } from '../../core/payment-links/payment-links';
import { PAYMENT_METHOD_TYPES } from '../../domain/funding';
import { renderPaymentLink } from '../../wire/surface-a/payment-links';
import { pageQuery } from '../pagination';
import { ErrorSchema, jsonContent } from './schemas';

const error = (description: string) => ({ description, content: jsonContent(ErrorSchema) });

/** Spec "PaymentLink", plus object, created_at, updated_at. */
export const PaymentLinkSchema = z
  .object({
    id: z.string().openapi({ example: 'plink_01k0000000000000000000000' }),
    object: z.literal('payment_link'),
    name: z.string(),
    url: z.string().openapi({ description: 'Public page: how to pay by each ready method' }),
    methods: z.array(
      z.object({
        type: z.enum(PAYMENT_METHOD_TYPES),
        ready: z.boolean().openapi({
          description: 'bank_transfer: the business has an active virtual account. card, crypto: not available yet (never ready).',
        }),
      }),
    ),
    published: z.boolean().openapi({ description: 'An unpublished link’s page is a 404' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('PaymentLink');

const Methods = z.array(z.enum(PAYMENT_METHOD_TYPES)).min(1);
const IdParam = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) });

const createDef = createRoute({
  operationId: 'createPaymentLink',
  method: 'post',
  path: '/payment-links',
  tags: ['Payment links'],
  summary: 'Create a payment link',
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({
              name: z.string().openapi({ example: 'Consulting invoices' }),
              methods: Methods,
              published: z.boolean().optional().openapi({ description: 'Default true' }),
            })
            .openapi('PaymentLinkCreate'),
        },
      },
    },
  },
  responses: {
    201: { description: 'The link', content: { 'application/json': { schema: PaymentLinkSchema } } },
    400: error('validation_error (name, methods, methods.<i>, published)'),
    401: error('Missing, unknown or wrong-environment API key'),
  },
});

const listDef = createRoute({
  operationId: 'listPaymentLinks',
  method: 'get',
  path: '/payment-links',
  tags: ['Payment links'],
  summary: 'List payment links',
  request: { query: z.object({ ...pageQuery }) },
  responses: {
    200: {
      description: 'A page, newest first',
      content: { 'application/json': { schema: z.object({ data: z.array(PaymentLinkSchema), next_cursor: z.string().nullable() }) } },
    },
    400: error('validation_error'),
    401: error('Missing, unknown or wrong-environment API key'),
  },
});

const getDef = createRoute({
  operationId: 'getPaymentLink',
  method: 'get',
  path: '/payment-links/{id}',
  tags: ['Payment links'],
  summary: 'Get a payment link',
  request: { params: IdParam },
  responses: {
    200: { description: 'The link', content: { 'application/json': { schema: PaymentLinkSchema } } },
    401: error('Missing, unknown or wrong-environment API key'),
    404: error('not_found'),
  },
});

const patchDef = createRoute({
  operationId: 'updatePaymentLink',
  method: 'patch',
  path: '/payment-links/{id}',
  tags: ['Payment links'],
  summary: 'Change a payment link’s methods, publication or name',
  request: {
    params: IdParam,
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({ name: z.string().optional(), methods: Methods.optional(), published: z.boolean().optional() })
            .openapi('PaymentLinkUpdate'),
        },
      },
    },
  },
  responses: {
    200: { description: 'The link', content: { 'application/json': { schema: PaymentLinkSchema } } },
    400: error('validation_error'),
    401: error('Missing, unknown or wrong-environment API key'),
    404: error('not_found'),
  },
});

/** Registers POST/GET /payment-links and GET/PATCH /payment-links/{id}. */
export function registerPaymentLinkRoutes(app: SurfaceRouter): void {
  app.openapi(createDef, async (c) => c.json(renderPaymentLink(await createPaymentLink(c.get('core'), c.get('caller'), c.req.valid('json'))), 201));
  app.openapi(listDef, async (c) => {
    const page = await listPaymentLinks(c.get('core'), c.get('caller'), c.req.valid('query'));
    return c.json({ data: page.data.map(renderPaymentLink), next_cursor: page.nextCursor }, 200);
  });
  app.openapi(getDef, async (c) => c.json(renderPaymentLink(await getPaymentLink(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200));
  app.openapi(patchDef, async (c) =>
    c.json(renderPaymentLink(await updatePaymentLink(c.get('core'), c.get('caller'), c.req.valid('param').id, c.req.valid('json'))), 200),
  );
}
