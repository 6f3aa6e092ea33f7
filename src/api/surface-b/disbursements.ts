/**
 * Surface B disbursements (spec "Endpoints", Surface B: POST /disbursements, GET /disbursements/:id,
 * GET /disbursements, DELETE /disbursements/:id; "Disbursement status (Surface B)"). A thin adapter:
 * src/core/claim-flow validates and creates the core claim-link payout and returns it as a
 * ClaimDisbursement (src/domain/claim-disbursements.ts); this renders it camelCase.
 */
import { createRoute, z } from '@hono/zod-openapi';
import {
  CLAIM_STATUSES,
  cancelClaimDisbursement,
  createClaimDisbursement,
  getClaimDisbursement,
  listClaimDisbursements,
} from '../../core/claim-flow';
import type { ClaimDisbursement } from '../../domain/claim-disbursements';
import { formatAmount, type Money } from '../../domain/money';
import { CLAIM_LINK_25 } from '../examples';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import {
  AmountUsdSchema,
  LedgerUsdSchema,
  COMMON_ERRORS,
  DateTimeSchema,
  errorResponses,
  IdempotencyKeyField,
  idempotencyKeyFromBody,
  idParam,
  jsonContent,
  listOf,
  pageQuery,
} from './schemas';

/** Spec "Disbursement status (Surface B)". */
export const ClaimStatusSchema = z.enum(CLAIM_STATUSES).openapi('DisbursementStatus', {
  description:
    'pending (awaiting claim), claimed (the recipient started the claim flow), processing, delivered, failed (funds returned), ' +
    'expired (30 days unclaimed, funds returned), cancelled (funds returned)',
});

/** Spec "Surface B resources": disbursement create (one entry; `currency` only here, not in a batch). */
export const DisbursementCreateSchema = z
  .object({
    recipientPhone: z.string().optional().openapi({ description: 'E.164; give this or recipientEmail', example: '+525512345678' }),
    recipientEmail: z.string().optional().openapi({ description: 'E-mail; give this or recipientPhone', example: 'ana@example.com' }),
    amountUsd: AmountUsdSchema.openapi({ description: 'What the recipient receives, USD, at least 1.00, no maximum beyond the claim_link channel limit' }),
    currency: z.string().optional().openapi({ description: 'USD (the only value)', example: 'USD' }),
    reference: z.string().optional().openapi({ description: 'Your reference, at most 140 characters', example: 'payroll-2026-03' }),
    note: z.string().optional().openapi({ description: 'Shown to the recipient on the claim page, at most 500 characters' }),
    idempotencyKey: IdempotencyKeyField,
  })
  .openapi('DisbursementCreate');

/** A Surface B disbursement (spec event data fields plus documented extras). */
export const DisbursementSchema = z
  .object({
    id: z.string().openapi({ example: 'po_01k0000000000000000000000' }),
    status: ClaimStatusSchema,
    recipientPhone: z.string().nullable(),
    recipientEmail: z.string().nullable(),
    amountUsd: AmountUsdSchema,
    feeUsd: LedgerUsdSchema.openapi({ description: 'Charged to the balance on top of amountUsd (claim_link: 0.25 + 1%)', example: CLAIM_LINK_25.fees.total }),
    currency: z.literal('USD'),
    reference: z.string().nullable(),
    note: z.string().nullable(),
    payoutMethod: z.string().nullable().openapi({ description: 'Chosen by the recipient on the claim page: bank_transfer, mobile_money, wallet' }),
    batchId: z.string().nullable(),
    claimUrl: z.string().nullable().openapi({ description: 'The claim link sent to the recipient (null until the claim opens, a moment after creation)' }),
    claimExpiresAt: DateTimeSchema.nullable(),
    claimedAt: DateTimeSchema.nullable(),
    deliveredAt: DateTimeSchema.nullable(),
    failureCode: z.string().nullable().openapi({ description: 'Why it failed or expired (claim_expired), else null' }),
    createdAt: DateTimeSchema,
    updatedAt: DateTimeSchema,
  })
  .openapi('Disbursement');

const DisbursementList = listOf(DisbursementSchema).openapi('DisbursementList');
const IdParam = z.object({ id: idParam('id', 'po_01k0000000000000000000000') });
const ListQuery = z.object({
  status: ClaimStatusSchema.optional(),
  reference: z.string().optional(),
  batchId: z.string().optional(),
  ...pageQuery,
});

/** Request body of `POST /disbursements`. */
export type DisbursementCreateBody = z.infer<typeof DisbursementCreateSchema>;
/** Response body of the disbursement operations. */
export type DisbursementResponse = z.infer<typeof DisbursementSchema>;
/** Response body of `GET /disbursements`. */
export type DisbursementListResponse = z.infer<typeof DisbursementList>;

const createDisbursementRoute = createRoute({
  operationId: 'createDisbursement',
  method: 'post',
  path: '/disbursements',
  tags: ['Disbursements'],
  summary: 'Send money to a phone number or an e-mail address (claim link)',
  description:
    'Holds amountUsd + fees on the balance and sends the recipient a claim link; the recipient has 30 days to claim, else the funds come back. ' +
    'Rate limit: 100 per minute per organisation.',
  middleware: [idempotency('B', { keyFrom: idempotencyKeyFromBody })] as const,
  request: { body: { required: true, content: jsonContent(DisbursementCreateSchema) } },
  responses: {
    201: { description: 'The disbursement, pending', content: jsonContent(DisbursementSchema) },
    ...errorResponses({
      400: 'validation_error (details.param names the field), invalid_phone, channel_unavailable (live: no live rail to claim to, or no live provider for recipientPhone / recipientEmail)',
      ...COMMON_ERRORS,
      402: 'insufficient_balance',
      409: 'idempotency_conflict, idempotency_in_flight',
      422: 'amount_below_minimum, recipient_country_unsupported',
    }),
  },
});

const getDisbursementRoute = createRoute({
  operationId: 'getDisbursement',
  method: 'get',
  path: '/disbursements/{id}',
  tags: ['Disbursements'],
  summary: 'One disbursement',
  request: { params: IdParam },
  responses: {
    200: { description: 'The disbursement', content: jsonContent(DisbursementSchema) },
    ...errorResponses({ ...COMMON_ERRORS, 404: 'not_found' }),
  },
});

const listDisbursementsRoute = createRoute({
  operationId: 'listDisbursements',
  method: 'get',
  path: '/disbursements',
  tags: ['Disbursements'],
  summary: 'List disbursements, newest first',
  request: { query: ListQuery },
  responses: {
    200: { description: 'A page of disbursements', content: jsonContent(DisbursementList) },
    ...errorResponses({ 400: 'validation_error (status, limit, after)', ...COMMON_ERRORS }),
  },
});

const cancelDisbursementRoute = createRoute({
  operationId: 'cancelDisbursement',
  method: 'delete',
  path: '/disbursements/{id}',
  tags: ['Disbursements'],
  summary: 'Cancel a pending disbursement',
  description: 'Only while pending: the disbursement becomes cancelled, the funds return to the balance, event disbursement.cancelled.',
  request: { params: IdParam },
  responses: {
    200: { description: 'The disbursement, cancelled', content: jsonContent(DisbursementSchema) },
    ...errorResponses({
      ...COMMON_ERRORS,
      404: 'not_found',
      409: 'disbursement_already_claimed (the recipient started the claim), invalid_state (already expired, failed or delivered)',
    }),
  },
});

const usd = (m: Money) => formatAmount(m.minor, m.currency);
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Surface B's disbursement: camelCase, USD decimal strings (1 USD = 1 USDC), ISO 8601 times. */
export function renderClaimDisbursement(d: ClaimDisbursement): DisbursementResponse {
  return {
    id: d.id,
    status: d.status,
    recipientPhone: d.recipientPhone,
    recipientEmail: d.recipientEmail,
    amountUsd: usd(d.amount),
    feeUsd: usd(d.fee),
    currency: 'USD',
    reference: d.reference,
    note: d.note,
    payoutMethod: d.payoutMethod,
    batchId: d.batchId,
    claimUrl: d.claimUrl,
    claimExpiresAt: iso(d.claimExpiresAt),
    claimedAt: iso(d.claimedAt),
    deliveredAt: iso(d.deliveredAt),
    failureCode: d.failureCode,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

/** Registers the single-disbursement operations on a Surface B router (the batch is in ./batch.ts). */
export function registerDisbursementRoutes(app: SurfaceRouter): void {
  app.openapi(createDisbursementRoute, async (c) => {
    const b = c.req.valid('json');
    return c.json(renderClaimDisbursement(await createClaimDisbursement(c.get('core'), c.get('caller'), b, { idempotencyKey: c.get('idempotencyKey') })), 201);
  });

  app.openapi(listDisbursementsRoute, async (c) => {
    const q = c.req.valid('query');
    const page = await listClaimDisbursements(c.get('core'), c.get('caller'), q);
    return c.json({ data: page.data.map(renderClaimDisbursement), nextCursor: page.nextCursor }, 200);
  });

  app.openapi(getDisbursementRoute, async (c) => {
    return c.json(renderClaimDisbursement(await getClaimDisbursement(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200);
  });

  app.openapi(cancelDisbursementRoute, async (c) => {
    return c.json(renderClaimDisbursement(await cancelClaimDisbursement(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200);
  });
}
