/** Surface B funding (spec "Endpoints", Surface B): the funding core shared with Surface A, camelCase. */
import { createRoute, z } from '@hono/zod-openapi';
import { getCryptoDepositAddress } from '../../core/funding/crypto-addresses';
import { listDeposits } from '../../core/funding/deposits';
import type { Deposit } from '../../domain/deposits';
import { createVirtualAccount, getVirtualAccount, listVirtualAccounts } from '../../core/funding/virtual-accounts';
import type { VirtualAccount } from '../../domain/virtual-accounts';
import { cancelCardTopup, type CardTopupDetail, cardTopupView, createCardTopup, getCardTopup } from '../../core/claim-flow';
import { ApiError } from '../../domain/errors';
import { formatAmount, USDC } from '../../domain/money';
import type { SurfaceRouter } from '../surface';
import { COMMON_ERRORS, DateTimeSchema, errorResponses, IdempotencyKeyField, idempotencyKeyFromBody, idParam, jsonContent, listOf, pageQuery } from './schemas';
import { idempotency } from '../middleware/idempotency';

const camel = (k: string) => k.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase());
const camelKeys = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [camel(k), v]));

const FundingAccountSchema = z
  .object({
    id: z.string().openapi({ example: 'va_01k0000000000000000000000' }),
    currency: z.string().openapi({ example: 'USD' }),
    rail: z.string().openapi({ description: 'ach (USD), sepa (EUR), spei (MXN)' }),
    status: z.string().openapi({ example: 'active' }),
    details: z.record(z.string(), z.unknown()).openapi({ description: 'Bank details to send funds to, account numbers masked' }),
    referenceRequired: z.boolean(),
    label: z.string().nullable(),
    createdAt: DateTimeSchema,
  })
  .openapi('FundingAccount');

const DepositSchema = z
  .object({
    id: z.string(),
    source: z.string().openapi({ description: 'virtual_account, crypto or card' }),
    status: z.string().openapi({ description: 'received, then credited; dropped: an on-chain transfer gone before finality, never credited' }),
    virtualAccountId: z.string().nullable(),
    amount: z.string().openapi({ description: 'What arrived, in currency' }),
    currency: z.string(),
    creditedAmountUsd: z.string().openapi({ description: 'What the balance is credited, USD (= USDC), after conversion and fees' }),
    reference: z.string().nullable(),
    receivedAt: DateTimeSchema,
    creditedAt: DateTimeSchema.nullable(),
  })
  .openapi('Deposit');

const CryptoSchema = z
  .object({
    walletAddress: z.string().openapi({
      description: 'Solana address (base58, 32 bytes) of a key the platform holds, stable per organisation and environment: send USDC (SPL) here',
      example: '7Xf…',
    }),
    tokenAccount: z.string().openapi({ description: 'The USDC token account of walletAddress (its associated token account) where deposits land' }),
    mint: z.string().openapi({ description: 'The USDC mint credited; other tokens are not credited' }),
    network: z.literal('solana').openapi({ description: 'Solana; the sandbox watches a test network (devnet) when one is configured' }),
    asset: z.literal('USDC'),
    minimumDeposit: z.string().openapi({ example: '1.00', description: 'Smaller deposits are received but not credited' }),
  })
  .openapi('CryptoFunding');

const AccountCreateSchema = z
  .object({
    currency: z.string().openapi({ description: 'USD (ACH), EUR (SEPA) or MXN (SPEI)', example: 'MXN' }),
    label: z.string().optional().openapi({ description: 'Your name for the account, at most 100 characters' }),
    idempotencyKey: IdempotencyKeyField,
  })
  .openapi('FundingAccountCreate');

/** Response body of the funding account operations. */
export type FundingAccountResponse = z.infer<typeof FundingAccountSchema>;
/** One deposit of `GET /funding/deposits`. */
export type DepositResponse = z.infer<typeof DepositSchema>;
/** Response body of `GET /funding/crypto`. */
export type CryptoFundingResponse = z.infer<typeof CryptoSchema>;

function renderAccount(a: VirtualAccount): FundingAccountResponse {
  return {
    id: a.id,
    currency: a.currency,
    rail: a.rail,
    status: a.status,
    details: camelKeys(a.details as unknown as Record<string, unknown>),
    referenceRequired: a.referenceRequired,
    label: a.label,
    createdAt: a.createdAt.toISOString(),
  };
}

function renderDeposit(d: Deposit): DepositResponse {
  return {
    id: d.id,
    source: d.source,
    status: d.status,
    virtualAccountId: d.virtualAccountId,
    amount: formatAmount(d.amount.minor, d.amount.currency),
    currency: d.amount.currency,
    creditedAmountUsd: formatAmount(d.credited.minor, d.credited.currency),
    reference: d.reference,
    receivedAt: d.receivedAt.toISOString(),
    creditedAt: d.creditedAt ? d.creditedAt.toISOString() : null,
  };
}

const createAccountRoute = createRoute({
  operationId: 'createFundingAccount',
  method: 'post',
  path: '/funding/accounts',
  tags: ['Funding'],
  summary: 'Open a virtual account for ACH, SEPA or SPEI funding',
  middleware: [idempotency('B', { keyFrom: idempotencyKeyFromBody })] as const,
  request: { body: { required: true, content: jsonContent(AccountCreateSchema) } },
  responses: {
    201: { description: 'The account, details masked', content: jsonContent(FundingAccountSchema) },
    ...errorResponses({ 400: 'validation_error (currency, label); channel_unavailable on live', ...COMMON_ERRORS, 403: 'verification_required' }),
  },
});

const listAccountsRoute = createRoute({
  operationId: 'listFundingAccounts',
  method: 'get',
  path: '/funding/accounts',
  tags: ['Funding'],
  summary: 'List funding accounts',
  request: { query: z.object(pageQuery) },
  responses: {
    200: { description: 'A page of accounts', content: jsonContent(listOf(FundingAccountSchema).openapi('FundingAccountList')) },
    ...errorResponses({ 400: 'validation_error', ...COMMON_ERRORS }),
  },
});

const getAccountRoute = createRoute({
  operationId: 'getFundingAccount',
  method: 'get',
  path: '/funding/accounts/{id}',
  tags: ['Funding'],
  summary: 'One funding account',
  request: { params: z.object({ id: idParam('id', 'va_01k0000000000000000000000') }) },
  responses: {
    200: { description: 'The account', content: jsonContent(FundingAccountSchema) },
    ...errorResponses({ ...COMMON_ERRORS, 404: 'virtual_account_not_found' }),
  },
});

const cryptoRoute = createRoute({
  operationId: 'getCryptoFundingAddress',
  method: 'get',
  path: '/funding/crypto',
  tags: ['Funding'],
  summary: 'Crypto funding details (USDC on Solana only)',
  responses: {
    200: { description: 'Where to send USDC', content: jsonContent(CryptoSchema) },
    ...errorResponses({ 400: 'channel_unavailable on live when no watched Solana network is configured', ...COMMON_ERRORS }),
  },
});

const depositsRoute = createRoute({
  operationId: 'listFundingDeposits',
  method: 'get',
  path: '/funding/deposits',
  tags: ['Funding'],
  summary: 'Deposit history (the same deposits as Surface A)',
  request: { query: z.object({ ...pageQuery, currency: z.string().optional() }) },
  responses: {
    200: { description: 'A page of deposits', content: jsonContent(listOf(DepositSchema).openapi('DepositList')) },
    ...errorResponses({ 400: 'validation_error (currency, after)', ...COMMON_ERRORS }),
  },
});

const CardTopupSchema = z
  .object({
    id: z.string().openapi({ example: 'ctu_01k0000000000000000000000' }),
    amountUsd: z.string().openapi({ example: '50.00' }),
    status: z.enum(['pending', 'completed', 'cancelled', 'expired', 'failed']).openapi({
      description:
        'pending until the payer pays (completed: credited) or leaves; cancelled (POST /funding/card/{id}/cancel, or the sandbox page); live only: expired (the checkout lapsed unpaid), failed (the card processor could not start the checkout, or an asynchronous payment failed)',
    }),
    checkoutUrl: z.string().openapi({
      description:
        'Send the payer here; afterwards they land on successUrl or cancelUrl. Sandbox: the built-in checkout page; live: the card processor\'s hosted checkout (empty when none was made)',
    }),
    successUrl: z.string(),
    cancelUrl: z.string(),
    depositId: z.string().nullable().openapi({ description: 'The card deposit once completed (see GET /funding/deposits)' }),
    feeUsd: z.string().nullable().optional().openapi({
      description: 'GET and cancel only: the card processing fee taken from the deposit, USD (= USDC); null until completed',
    }),
    createdAt: DateTimeSchema,
  })
  .openapi('CardTopup');

const CardCreateSchema = z
  .object({
    amountUsd: z.string().openapi({ example: '50.00' }),
    successUrl: z.string().openapi({ example: 'https://example.com/topup/ok' }),
    cancelUrl: z.string().openapi({ example: 'https://example.com/topup/cancelled' }),
    idempotencyKey: IdempotencyKeyField,
  })
  .openapi('CardTopupCreate');

/** Response body of `POST /funding/card`. */
export type CardTopupResponse = z.infer<typeof CardTopupSchema>;

const cardRoute = createRoute({
  operationId: 'createCardFunding',
  method: 'post',
  path: '/funding/card',
  tags: ['Funding'],
  summary: 'Top up the balance by card (checkout page)',
  description:
    'Completing the checkout records a card deposit that credits the balance (deposit.received, deposit.credited). Live: the checkout is the configured card processor\'s; the balance is credited once the processor confirms the payment (its signed event, or polling), net of its fee, with a share held in the rolling reserve.',
  middleware: [idempotency('B', { keyFrom: idempotencyKeyFromBody })] as const,
  request: { body: { required: true, content: jsonContent(CardCreateSchema) } },
  responses: {
    201: { description: 'The pending top-up and its checkout URL', content: jsonContent(CardTopupSchema) },
    ...errorResponses({
      400: 'validation_error (amountUsd: malformed or above 10000000; successUrl, cancelUrl); channel_unavailable on live with no card processor configured',
      ...COMMON_ERRORS,
      422: 'amount_below_minimum',
      502: 'processor_unavailable: the live card processor could not start the checkout (try again)',
    }),
  },
});

const getCardRoute = createRoute({
  operationId: 'getCardFunding',
  method: 'get',
  path: '/funding/card/{id}',
  tags: ['Funding'],
  summary: 'One card top-up, with its status and fee',
  request: { params: z.object({ id: idParam('id', 'ctu_01k0000000000000000000000') }) },
  responses: {
    200: { description: 'The top-up', content: jsonContent(CardTopupSchema) },
    ...errorResponses({ ...COMMON_ERRORS, 404: 'not_found' }),
  },
});

const cancelCardRoute = createRoute({
  operationId: 'cancelCardFunding',
  method: 'post',
  path: '/funding/card/{id}/cancel',
  tags: ['Funding'],
  summary: 'Cancel a pending card top-up',
  description: 'Live: the card processor expires the checkout first; if the payer already paid, the top-up completes instead. A finished top-up is returned unchanged.',
  request: { params: z.object({ id: idParam('id', 'ctu_01k0000000000000000000000') }) },
  responses: {
    200: { description: 'The top-up after the cancel', content: jsonContent(CardTopupSchema) },
    ...errorResponses({ ...COMMON_ERRORS, 404: 'not_found', 502: 'processor_unavailable' }),
  },
});

const renderCardTopup = (d: CardTopupDetail, publicUrl: string): CardTopupResponse => ({
  ...cardTopupView(d.row, publicUrl, d.payment),
  feeUsd: d.fee === null ? null : formatAmount(d.fee, USDC),
});

/** Registers Surface B's funding operations. */
export function registerFundingRoutes(app: SurfaceRouter): void {
  app.openapi(createAccountRoute, async (c) => {
    const b = c.req.valid('json');
    const a = await createVirtualAccount(c.get('core'), c.get('caller'), { currency: b.currency, label: b.label });
    return c.json(renderAccount(a), 201);
  });
  app.openapi(listAccountsRoute, async (c) => {
    const q = c.req.valid('query');
    const page = await listVirtualAccounts(c.get('core'), c.get('caller'), { limit: q.limit, ...(q.after ? { cursor: q.after } : {}) });
    return c.json({ data: page.data.map(renderAccount), nextCursor: page.nextCursor }, 200);
  });
  app.openapi(getAccountRoute, async (c) => {
    const id = c.req.valid('param').id;
    try {
      return c.json(renderAccount(await getVirtualAccount(c.get('core'), c.get('caller'), id)), 200);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        throw new ApiError(404, 'virtual_account_not_found', `No funding account with id '${id}'`, 'id');
      }
      throw err;
    }
  });
  app.openapi(cryptoRoute, async (c) => {
    // Live without a watched network is 400 channel_unavailable (never an address nobody watches).
    const a = await getCryptoDepositAddress(c.get('core'), c.get('caller'));
    return c.json(
      {
        walletAddress: a.address,
        tokenAccount: a.tokenAccount,
        mint: a.mint,
        network: 'solana' as const,
        asset: 'USDC' as const,
        minimumDeposit: formatAmount(a.minimumDeposit, USDC),
      },
      200,
    );
  });
  app.openapi(cardRoute, async (c) => {
    const b = c.req.valid('json');
    const core = c.get('core');
    const d = await createCardTopup(core, c.get('caller'), b);
    return c.json(cardTopupView(d.row, core.config.publicUrl, d.payment), 201);
  });
  app.openapi(getCardRoute, async (c) => {
    const core = c.get('core');
    return c.json(renderCardTopup(await getCardTopup(core, c.get('caller'), c.req.valid('param').id), core.config.publicUrl), 200);
  });
  app.openapi(cancelCardRoute, async (c) => {
    const core = c.get('core');
    return c.json(renderCardTopup(await cancelCardTopup(core, c.get('caller'), c.req.valid('param').id), core.config.publicUrl), 200);
  });
  app.openapi(depositsRoute, async (c) => {
    const q = c.req.valid('query');
    const page = await listDeposits(c.get('core'), c.get('caller'), {
      limit: q.limit,
      ...(q.after ? { cursor: q.after } : {}),
      ...(q.currency ? { currency: q.currency } : {}),
    });
    return c.json({ data: page.data.map(renderDeposit), nextCursor: page.nextCursor }, 200);
  });
}
