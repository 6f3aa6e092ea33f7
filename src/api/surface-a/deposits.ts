/** Surface A deposits (extensions, docs/getting-paid.md), over src/core/funding/deposits.ts. */
import { RateDetailsSchema } from './rate-details';
import { createRoute, z } from '@hono/zod-openapi';
import type { SurfaceRouter } from '../surface';
import { getDeposit, listDeposits, receiveDeposit } from '../../core/funding/deposits';
import { DEPOSIT_CURRENCIES, DEPOSIT_MATCH_RESULTS, DEPOSIT_SOURCES, DEPOSIT_STATUSES } from '../../domain/funding';
import { randomToken } from '../../domain/ids';
import { renderDeposit } from '../../wire/surface-a/deposits';
import { amountTypeError } from '../errors';
import { idempotency } from '../middleware/idempotency';
import { pageQuery } from '../pagination';
import { AmountInputSchema, ErrorSchema, jsonContent } from './schemas';
import { sandboxOnly } from './sandbox';

const error = (description: string) => ({ description, content: jsonContent(ErrorSchema) });
const Amount = z.string({ error: amountTypeError }).openapi({ description: 'Decimal string', example: '100.00' });
const DateTime = z.string().openapi({ format: 'date-time' });

/** A deposit (extension resource). */
export const DepositSchema = z
  .object({
    id: z.string().openapi({ example: 'dep_01k0000000000000000000000' }),
    object: z.literal('deposit'),
    source: z.enum(DEPOSIT_SOURCES),
    status: z.enum(DEPOSIT_STATUSES).openapi({ description: 'received, then credited; dropped: an on-chain transfer gone before finality, never credited' }),
    virtual_account_id: z.string().nullable(),
    amount: Amount.openapi({ description: 'What arrived, in currency' }),
    currency: z.string(),
    rate: z.string().openapi({ description: 'Mid-market rate: 1 USDC buys rate units of currency' }),
    converted_amount: Amount.openapi({ description: 'amount at rate, USDC, before fees' }),
    fees: z.object({ fx_spread: Amount, processing: Amount, total: Amount, currency: z.literal('USDC') }),
    credited_amount: Amount.openapi({ description: 'converted_amount - fees.total, credited to the USDC balance' }),
    credited_currency: z.literal('USDC'),
    rate_details: RateDetailsSchema.optional(),
    reference: z.string().nullable(),
    sender_name: z.string().nullable(),
    external_id: z.string().openapi({ description: "The transfer's id at the sending bank or network: one deposit per id" }),
    payment_request_id: z.string().nullable(),
    match: z.enum(DEPOSIT_MATCH_RESULTS).nullable().openapi({ description: 'Payment request matching outcome; null until credited' }),
    received_at: DateTime,
    credited_at: DateTime.nullable(),
    created_at: DateTime,
  })
  .openapi('Deposit');

const listRouteDef = createRoute({
  operationId: 'listDeposits',
  method: 'get',
  path: '/deposits',
  tags: ['Deposits'],
  summary: 'List deposits (extension)',
  request: {
    query: z.object({
      currency: z.enum(DEPOSIT_CURRENCIES).optional(),
      source: z.enum(DEPOSIT_SOURCES).optional(),
      virtual_account_id: z.string().optional(),
      ...pageQuery,
    }),
  },
  responses: {
    200: {
      description: 'A page, newest first',
      content: { 'application/json': { schema: z.object({ data: z.array(DepositSchema), next_cursor: z.string().nullable() }) } },
    },
    400: error('validation_error'),
    401: error('Missing, unknown or wrong-environment API key'),
  },
});

const getRouteDef = createRoute({
  operationId: 'getDeposit',
  method: 'get',
  path: '/deposits/{id}',
  tags: ['Deposits'],
  summary: 'Get a deposit (extension)',
  request: { params: z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) }) },
  responses: {
    200: { description: 'The deposit', content: { 'application/json': { schema: DepositSchema } } },
    401: error('Missing, unknown or wrong-environment API key'),
    404: error('not_found'),
  },
});

const sandboxRouteDef = createRoute({
  operationId: 'createSandboxDeposit',
  method: 'post',
  path: '/sandbox/deposits',
  tags: ['Sandbox'],
  summary: 'Simulate a bank transfer into a virtual account (sandbox only, extension)',
  description:
    'Creates a deposit (status received) and credits it durably (credited, usually within a second). ' +
    'The same external_id again is the same deposit (credited once); without one, the Idempotency-Key or a random id is used.',
  middleware: [sandboxOnly, idempotency('A')] as const,
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({
              virtual_account_id: z.string(),
              amount: AmountInputSchema.openapi({ description: 'What arrived, in currency', example: '100.00' }),
              currency: z.enum(['USD', 'EUR', 'MXN']),
              reference: z.string().optional(),
              sender_name: z.string().optional(),
              external_id: z.string().optional().openapi({ description: "The sending bank's transfer id (deduplication key)" }),
            })
            .openapi('SandboxDeposit'),
        },
      },
    },
  },
  responses: {
    201: { description: 'The deposit (received)', content: { 'application/json': { schema: DepositSchema } } },
    200: { description: 'The same external_id again: the existing deposit', content: { 'application/json': { schema: DepositSchema } } },
    400: error('validation_error'),
    401: error('Missing, unknown or wrong-environment API key'),
    404: error('not_found (virtual_account_id; or under the live base address)'),
    409: error('idempotency_conflict (external_id reused for another transfer)'),
  },
});

/** Registers GET /deposits, GET /deposits/{id} and POST /sandbox/deposits. */
export function registerDepositRoutes(app: SurfaceRouter): void {
  app.openapi(listRouteDef, async (c) => {
    const q = c.req.valid('query');
    const page = await listDeposits(c.get('core'), c.get('caller'), {
      limit: q.limit,
      cursor: q.cursor,
      currency: q.currency,
      source: q.source,
      virtualAccountId: q.virtual_account_id,
    });
    return c.json({ data: page.data.map(renderDeposit), next_cursor: page.nextCursor }, 200);
  });
  app.openapi(getRouteDef, async (c) => c.json(renderDeposit(await getDeposit(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200));
  app.openapi(sandboxRouteDef, async (c) => {
    const b = c.req.valid('json');
    const idem = c.get('idempotencyKey');
    const r = await receiveDeposit(c.get('core'), c.get('caller'), {
      source: 'virtual_account',
      virtualAccountId: b.virtual_account_id,
      amount: b.amount,
      currency: b.currency,
      reference: b.reference,
      senderName: b.sender_name,
      externalId: b.external_id ?? (idem ? `idem:${idem}` : `sbx_${randomToken(12)}`),
    });
    return c.json(renderDeposit(r.deposit), r.created ? 201 : 200);
  });
}
