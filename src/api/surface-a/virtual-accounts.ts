/** Surface A virtual accounts (spec "VirtualAccount"), over src/core/funding/virtual-accounts.ts. */
import { createRoute, z } from '@hono/zod-openapi';
import type { SurfaceRouter } from '../surface';
import { createVirtualAccount, getVirtualAccount, listVirtualAccounts } from '../../core/funding/virtual-accounts';
import { renderVirtualAccount } from '../../wire/surface-a/virtual-accounts';
import { VIRTUAL_ACCOUNT_CURRENCIES } from '../../domain/funding';
import { pageQuery } from '../pagination';
import { ErrorSchema, jsonContent } from './schemas';

const error = (description: string) => ({ description, content: jsonContent(ErrorSchema) });

/** Spec "VirtualAccount" (details masked), plus object, label, created_at. */
export const VirtualAccountSchema = z
  .object({
    id: z.string().openapi({ example: 'va_01k0000000000000000000000' }),
    object: z.literal('virtual_account'),
    currency: z.enum(VIRTUAL_ACCOUNT_CURRENCIES),
    rail: z.string().openapi({ description: 'ach_usd, sepa_eur or spei_mxn' }),
    status: z.literal('active'),
    details: z.record(z.string(), z.string()).openapi({
      description:
        'USD: account_number (masked), routing_number, account_type, bank_name, beneficiary_name. ' +
        'EUR: iban (masked), bic, bank_name, beneficiary_name. MXN: clabe (masked), bank_name, beneficiary_name. ' +
        'Whole details are on the public payment link page.',
      example: { iban: '••••3000', bic: 'SBXBDEFFXXX', bank_name: 'Sandbox Bank AG', beneficiary_name: 'Acme' },
    }),
    reference_required: z.boolean().openapi({ description: 'Payers must quote a reference (EUR accounts); matching then compares it' }),
    label: z.string().nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('VirtualAccount');

const createRouteDef = createRoute({
  operationId: 'createVirtualAccount',
  method: 'post',
  path: '/virtual-accounts',
  tags: ['Virtual accounts'],
  summary: 'Open a virtual account',
  description: 'Needs a verified business. Sandbox details pass real validators (IBAN mod 97, CLABE check digit, ABA checksum).',
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({
              currency: z.enum(VIRTUAL_ACCOUNT_CURRENCIES),
              label: z.string().optional().openapi({ description: 'Your label, at most 100 characters (extension)' }),
            })
            .openapi('VirtualAccountCreate'),
        },
      },
    },
  },
  responses: {
    201: { description: 'The account, details masked', content: { 'application/json': { schema: VirtualAccountSchema } } },
    400: error('validation_error (currency, label); channel_unavailable in the live environment'),
    401: error('Missing, unknown or wrong-environment API key'),
    403: error('verification_required'),
  },
});

const listRouteDef = createRoute({
  operationId: 'listVirtualAccounts',
  method: 'get',
  path: '/virtual-accounts',
  tags: ['Virtual accounts'],
  summary: 'List virtual accounts',
  request: { query: z.object({ currency: z.enum(VIRTUAL_ACCOUNT_CURRENCIES).optional(), ...pageQuery }) },
  responses: {
    200: {
      description: 'A page, newest first',
      content: { 'application/json': { schema: z.object({ data: z.array(VirtualAccountSchema), next_cursor: z.string().nullable() }) } },
    },
    400: error('validation_error'),
    401: error('Missing, unknown or wrong-environment API key'),
  },
});

const getRouteDef = createRoute({
  operationId: 'getVirtualAccount',
  method: 'get',
  path: '/virtual-accounts/{id}',
  tags: ['Virtual accounts'],
  summary: 'Get a virtual account (extension)',
  request: { params: z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) }) },
  responses: {
    200: { description: 'The account, details masked', content: { 'application/json': { schema: VirtualAccountSchema } } },
    401: error('Missing, unknown or wrong-environment API key'),
    404: error('not_found'),
  },
});

/** Registers POST/GET /virtual-accounts and GET /virtual-accounts/{id}. */
export function registerVirtualAccountRoutes(app: SurfaceRouter): void {
  app.openapi(createRouteDef, async (c) => {
    const b = c.req.valid('json');
    return c.json(renderVirtualAccount(await createVirtualAccount(c.get('core'), c.get('caller'), { currency: b.currency, label: b.label })), 201);
  });
  app.openapi(listRouteDef, async (c) => {
    const q = c.req.valid('query');
    const page = await listVirtualAccounts(c.get('core'), c.get('caller'), { limit: q.limit, cursor: q.cursor, currency: q.currency });
    return c.json({ data: page.data.map(renderVirtualAccount), next_cursor: page.nextCursor }, 200);
  });
  app.openapi(getRouteDef, async (c) => c.json(renderVirtualAccount(await getVirtualAccount(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200));
}
