/**
 * Surface A payouts (spec "Payout", "Payout create body", "Receipt"; "Endpoints": POST /payouts,
 * GET /payouts, GET /payouts/{id}, GET /payouts/{id}/receipt). Parses the snake_case wire shapes
 * and renders them (src/wire/surface-a/payouts.ts); src/core/payouts validates, prices, holds and starts the workflow.
 */
import { RateDetailsSchema } from './rate-details';
import { createRoute, z } from '@hono/zod-openapi';
import { createPayout, getPayout, getPayoutReceipt, listPayouts } from '../../core/payouts';
import { PAYOUT_FAILURE_CODES, PAYOUT_STATUSES } from '../../domain/payout-state';
import { RECIPIENT_TYPES, type RecipientType } from '../../domain/channels';
import { renderPayout, renderReceipt } from '../../wire/surface-a/payouts';
import { SPEI_MXN_100 } from '../examples';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { AmountInputSchema, AmountSchema, AUTH_ERRORS, DateTimeSchema, errorResponses, feesObject, idempotencyHeaders, idParam, jsonContent, listEnvelope, pageQuery } from './schemas';

// ---------------------------------------------------------------------------------------------
// Wire schemas

/** Spec "PayoutStatus". */
export const PayoutStatusSchema = z.enum(PAYOUT_STATUSES).openapi('PayoutStatus');

/** Spec "InlineRecipient" (extensions: `handle` for service_user; bank fields flat or in `bank_account`). */
export const InlineRecipientSchema = z
  .object({
    type: z.enum(RECIPIENT_TYPES as unknown as [RecipientType, ...RecipientType[]]).openapi({ example: 'phone' }),
    number: z.string().optional().openapi({ description: 'Phone number in E.164 (type phone)', example: '+5215512345678' }),
    address: z.string().optional().openapi({ description: 'E-mail (type email) or wallet address (type wallet)' }),
    network: z.string().optional().openapi({ example: 'stellar' }),
    phone_number: z.string().optional(),
    bank_code: z.string().optional(),
    national_id: z.string().optional(),
    holder_name: z.string().optional(),
    date_of_birth: z.string().optional().openapi({ format: 'date' }),
    handle: z.string().optional().openapi({ description: 'service_user handle (extension)' }),
    bank_account: z.record(z.string(), z.unknown()).optional().openapi({ description: "bank_account: the channel's requirement fields (extension)" }),
  })
  .catchall(z.unknown())
  .openapi('InlineRecipient', {
    description: 'A destination given inline. For bank_account, the fields of GET /channels/{channel}/requirements, flat or inside bank_account.',
  });

/** Spec "Payout create body". */
export const PayoutCreateSchema = z
  .object({
    channel: z.string().openapi({ example: 'spei_mxn' }),
    recipient_id: z.string().optional().openapi({ description: 'Saved recipient; give this or recipient' }),
    recipient: InlineRecipientSchema.optional(),
    quote_id: z.string().optional().openapi({
      description:
        'A quote of the same channel, valid 60 seconds: the payout takes its amounts, rate and fees (amounts may then be left out). ' +
        'Without it the payout is priced at execution, i.e. when it is accepted, at the current mid-market rate.',
    }),
    source_amount: AmountInputSchema.optional().openapi({ description: 'USDC to send (fees are charged on top); give this or destination_amount' }),
    destination_amount: AmountInputSchema.optional().openapi({ description: "What the recipient receives, in the channel's currency" }),
    reference: z.string().optional().openapi({ description: 'Your reference, at most 140 characters. Sandbox: magic values simulate outcomes (docs/sandbox.md).' }),
    memo: z.string().optional().openapi({ description: 'Travels with the payment where the rail supports it (at most 255 characters)' }),
    message: z.string().optional().openapi({ description: 'claim_link only: shown to the recipient (at most 500 characters)' }),
  })
  .openapi('PayoutCreate');

const Fees = feesObject().openapi('PayoutFees', { description: 'USDC, charged on top of the source amount' });

const Attempt = z
  .object({
    number: z.number().int(),
    status: z.enum(['processing', 'succeeded', 'failed']),
    started_at: DateTimeSchema,
    completed_at: DateTimeSchema.nullable(),
    provider_reference: z.string().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .openapi('PayoutAttempt', { description: 'One rail call (extension: the spec leaves the element fields open)' });

/** Spec "Payout" (plus documented extensions: object, recipient, memo, message, quote_id, claim, disbursement_id, updated_at). */
export const PayoutSchema = z
  .object({
    id: z.string().openapi({ example: 'po_01k0000000000000000000000' }),
    object: z.literal('payout'),
    status: PayoutStatusSchema,
    channel: z.string(),
    recipient_id: z.string().nullable(),
    recipient: z.record(z.string(), z.unknown()).openapi({ description: 'The destination, bank and identity fields masked: {type, ...fields}' }),
    source_amount: AmountSchema,
    source_currency: z.string().openapi({ example: 'USDC' }),
    destination_amount: AmountSchema.openapi({ example: SPEI_MXN_100.destination_amount }),
    destination_currency: z.string().openapi({ example: SPEI_MXN_100.destination_currency }),
    rate: z.string().openapi({ example: SPEI_MXN_100.rate }),
    fees: Fees,
    rate_details: RateDetailsSchema.optional(),
    reference: z.string().nullable(),
    memo: z.string().nullable(),
    message: z.string().nullable(),
    quote_id: z.string().nullable(),
    estimated_arrival: DateTimeSchema.nullable(),
    delivered_at: DateTimeSchema.nullable(),
    provider_reference: z.string().nullable(),
    failure: z
      .object({
        code: z.enum(PAYOUT_FAILURE_CODES),
        message: z.string(),
        retryable: z.boolean().optional().openapi({ description: 'Extension (rail failures): whether a new payout to the same destination may succeed.' }),
        rail_reason_code: z.string().optional().openapi({ description: "Extension (rail failures): the rail's own reason code, e.g. AC01 (ISO 20022).", example: 'AC01' }),
      })
      .nullable(),
    attempts: z.number().int().openapi({ description: 'Delivery attempts begun or scheduled (1 from acceptance)' }),
    attempt_history: z.array(Attempt).optional().openapi({ description: 'GET /payouts/{id} only: the rail calls made so far' }),
    claim: z
      .object({ url: z.string().nullable(), expires_at: DateTimeSchema.nullable(), claimed_at: DateTimeSchema.nullable(), method: z.string().nullable() })
      .nullable()
      .openapi({ description: 'claim_link payouts: the claim link and its state; null otherwise' }),
    disbursement_id: z.string().nullable(),
    screening: z
      .object({
        status: z.enum(['in_review', 'released', 'rejected']),
        case_id: z.string().openapi({ example: 'scc_01k0000000000000000000000' }),
        reason: z.string().nullable().openapi({ description: 'Why the payout is held; once decided, the reason given with the decision' }),
      })
      .nullable()
      .optional()
      .openapi({
        description:
          'Extension: the sanctions screening case that holds the payout (in_review) or was decided on it; null when screening raised none. Always on GET /payouts and GET /payouts/{id}; in events, on payout.screening_review and payout.screening_released only',
      }),
    payee_verification: z
      .object({
        result: z.enum(['match', 'close_match', 'no_match', 'not_possible']).openapi({ description: "The payee's bank's answer (EPC VOP MTCH, CMTC, NMTC, NOAP)" }),
        name_returned: z.string().nullable().openapi({ description: "close_match: the account holder's name as the bank knows it" }),
        reason_code: z.string().openapi({ description: 'The reason code of the answer', example: 'CMTC' }),
        status: z.enum(['awaiting_confirmation', 'confirmed', 'canceled', 'expired', 'not_required']),
        confirm_by: DateTimeSchema.nullable().openapi({ description: 'close_match, no_match: canceled (payee_not_confirmed) unless confirmed by then' }),
      })
      .nullable()
      .optional()
      .openapi({ description: 'Extension, sepa_eur payouts once verified (Verification of Payee; POST /payouts/{id}/confirm-payee); absent otherwise' }),
    created_at: DateTimeSchema,
    updated_at: DateTimeSchema,
  })
  .openapi('Payout');

const PayoutList = listEnvelope(PayoutSchema).openapi('PayoutList');

const Receipt = z
  .object({
    url: z.string().openapi({ description: 'Shareable public receipt page', example: 'https://api.example.com/r/3q2…' }),
    confirmed_received_at: DateTimeSchema.nullable().openapi({ description: 'When the rail confirmed delivery (null before, and again after a refund)' }),
  })
  .openapi('Receipt');

const IdParam = z.object({ id: idParam('id', 'po_01k0000000000000000000000') });

/** Request body of `POST /payouts`. */
export type PayoutCreateBody = z.infer<typeof PayoutCreateSchema>;
/** Response body of `POST /payouts` and `GET /payouts/{id}`. */
export type PayoutResponse = z.infer<typeof PayoutSchema>;
/** Response body of `GET /payouts`. */
export type PayoutListResponse = z.infer<typeof PayoutList>;
/** Response body of `GET /payouts/{id}/receipt`. */
export type ReceiptResponse = z.infer<typeof Receipt>;

// ---------------------------------------------------------------------------------------------
// Routes

const createPayoutRoute = createRoute({
  operationId: 'createPayout',
  method: 'post',
  path: '/payouts',
  tags: ['Payouts'],
  summary: 'Send a payout',
  description:
    'Validates, prices (with quote_id: the quote; without: now), holds amount + fees on the balance and hands the payout to its workflow. ' +
    'Answers 201 with status submitted and attempts 1. Send an Idempotency-Key to make retries safe.',
  middleware: [idempotency('A')] as const,
  request: {
    headers: idempotencyHeaders('Makes a retried request safe (30 days). Optional, but a retry without one is a new payout: a timeout and a retry can pay twice.'),
    body: { required: true, content: jsonContent(PayoutCreateSchema) },
  },
  responses: {
    201: { description: 'The payout, submitted', content: jsonContent(PayoutSchema) },
    ...errorResponses({
      400: 'validation_error (param names the field), channel_unavailable (paused; live claim_link: no live rail to claim to or no live provider for the recipient, param recipient.*), amount_out_of_range',
      ...AUTH_ERRORS,
      402: 'insufficient_balance',
      404: 'not_found: recipient_id or quote_id unknown',
      409: 'idempotency_conflict, idempotency_in_flight',
      410: 'quote_expired',
      422: 'recipient_not_ready',
    }),
  },
});

const listPayoutsRoute = createRoute({
  operationId: 'listPayouts',
  method: 'get',
  path: '/payouts',
  tags: ['Payouts'],
  summary: 'List payouts',
  description: 'Newest first.',
  request: {
    query: z.object({
      status: PayoutStatusSchema.optional(),
      channel: z.string().optional(),
      since: z.iso.datetime({ offset: true }).optional().openapi({ description: 'Only payouts created at or after this instant' }),
      ...pageQuery,
    }),
  },
  responses: {
    200: { description: 'A page of payouts', content: jsonContent(PayoutList) },
    ...errorResponses({ 400: 'validation_error (status, since, limit, cursor)', ...AUTH_ERRORS }),
  },
});

const getPayoutRoute = createRoute({
  operationId: 'getPayout',
  method: 'get',
  path: '/payouts/{id}',
  tags: ['Payouts'],
  summary: 'Get a payout',
  description: 'Includes attempt_history, the detail of every delivery attempt.',
  request: { params: IdParam },
  responses: {
    200: { description: 'The payout with its attempts', content: jsonContent(PayoutSchema) },
    ...errorResponses({ ...AUTH_ERRORS, 404: 'not_found' }),
  },
});

const receiptRoute = createRoute({
  operationId: 'getPayoutReceipt',
  method: 'get',
  path: '/payouts/{id}/receipt',
  tags: ['Payouts'],
  summary: "Get a payout's receipt",
  request: { params: IdParam },
  responses: {
    200: { description: 'The receipt', content: jsonContent(Receipt) },
    ...errorResponses({ ...AUTH_ERRORS, 404: 'not_found' }),
  },
});

/** Registers POST /payouts, GET /payouts, GET /payouts/{id} and GET /payouts/{id}/receipt on a Surface A router. */
export function registerPayoutRoutes(app: SurfaceRouter): void {
  app.openapi(createPayoutRoute, async (c) => {
    const b = c.req.valid('json');
    const payout = await createPayout(
      c.get('core'),
      c.get('caller'),
      {
        channel: b.channel,
        recipientId: b.recipient_id,
        recipient: b.recipient,
        quoteId: b.quote_id,
        sourceAmount: b.source_amount,
        destinationAmount: b.destination_amount,
        reference: b.reference,
        memo: b.memo,
        message: b.message,
      },
      { idempotencyKey: c.get('idempotencyKey') },
    );
    return c.json(renderPayout(payout), 201);
  });

  app.openapi(listPayoutsRoute, async (c) => {
    const q = c.req.valid('query');
    const page = await listPayouts(c.get('core'), c.get('caller'), {
      status: q.status,
      channel: q.channel,
      since: q.since ? new Date(q.since) : undefined,
      limit: q.limit,
      cursor: q.cursor,
    });
    return c.json({ data: page.data.map(renderPayout), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(getPayoutRoute, async (c) => {
    const payout = await getPayout(c.get('core'), c.get('caller'), c.req.valid('param').id, { reads: true });
    return c.json(renderPayout(payout), 200);
  });

  app.openapi(receiptRoute, async (c) => {
    const receipt = await getPayoutReceipt(c.get('core'), c.get('caller'), c.req.valid('param').id);
    return c.json(renderReceipt(receipt), 200);
  });
}
