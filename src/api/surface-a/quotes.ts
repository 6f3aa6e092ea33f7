/** Surface A quotes (spec "Quote"); src/core/quotes.ts validates, prices and stores. */
import { createRoute, z } from '@hono/zod-openapi';
import { createQuote, type QuoteRecord } from '../../core/quotes';
import { formatAmount, USDC } from '../../domain/money';
import { formatFees, formatRateDetails } from '../../wire/surface-a/fees';
import { SPEI_MXN_100 } from '../examples';
import { RateDetailsSchema } from './rate-details';
import type { SurfaceRouter } from '../surface';
import { ArrivalSchema, AUTH_ERRORS, AmountInputSchema, AmountSchema, DateTimeSchema, errorResponses, feesObject, jsonContent } from './schemas';

/** Spec "Shared types" Fees as on a quote (fx_spread present). USDC Amounts. */
export const QuoteFeesSchema = feesObject().openapi('Fees', {
  description: 'Charged on top of the source amount. Live: fx_spread is the cost of the spread already taken in `rate` and is not part of total (docs/rates.md "Spreads")',
});

/** Spec "Quote" (plus `object` and `created_at`). */
export const QuoteSchema = z
  .object({
    id: z.string().openapi({ example: 'qt_01k0000000000000000000000' }),
    object: z.literal('quote'),
    channel: z.string().openapi({ example: 'spei_mxn' }),
    source_amount: AmountSchema.openapi({ description: 'USDC sent (fees are charged on top)', example: '100.00' }),
    source_currency: z.string().openapi({ example: 'USDC' }),
    destination_amount: AmountSchema.openapi({ description: 'What the recipient receives', example: SPEI_MXN_100.destination_amount }),
    destination_currency: z.string().openapi({ example: 'MXN' }),
    rate: z.string().openapi({
      description: 'Sandbox: the mid-market rate; live: the live reference rate less the spread (rate_details). 1 USDC buys <rate> destination units',
      example: SPEI_MXN_100.rate,
    }),
    fees: QuoteFeesSchema,
    rate_details: RateDetailsSchema.optional(),
    arrival: ArrivalSchema,
    expires_at: DateTimeSchema.openapi({ description: '60 seconds after created_at' }),
    created_at: DateTimeSchema,
  })
  .openapi('Quote');

/** The wire Quote of a stored quote (Amounts as decimal strings, timestamps ISO 8601 UTC). */
export function renderQuote(q: QuoteRecord): QuoteResponse {
  const p = q.price;
  return {
    id: q.id,
    object: 'quote',
    channel: q.channel,
    source_amount: formatAmount(p.sourceAmount, USDC),
    source_currency: p.sourceCurrency,
    destination_amount: formatAmount(p.destinationAmount, p.destinationCurrency),
    destination_currency: p.destinationCurrency,
    rate: p.rate,
    fees: formatFees(p),
    ...(p.live ? { rate_details: formatRateDetails(p.live) } : {}),
    arrival: { ...q.arrival },
    expires_at: q.expiresAt.toISOString(),
    created_at: q.createdAt.toISOString(),
  };
}

const QuoteCreateSchema = z
  .object({
    channel: z.string().openapi({ example: 'spei_mxn' }),
    source_amount: AmountInputSchema.optional().openapi({ description: 'USDC to send; give this or destination_amount' }),
    destination_amount: AmountInputSchema.optional().openapi({
      description: "Amount the recipient receives, in the channel's currency; give this or source_amount",
    }),
  })
  .openapi('QuoteCreate');

/** Request body of `POST /quotes`. */
export type QuoteCreateBody = z.infer<typeof QuoteCreateSchema>;
/** Response body of `POST /quotes` (spec "Quote"). */
export type QuoteResponse = z.infer<typeof QuoteSchema>;

const createQuoteRoute = createRoute({
  operationId: 'createQuote',
  method: 'post',
  path: '/quotes',
  tags: ['Quotes'],
  summary: 'Price a payout',
  description:
    'Prices one payout on one channel from exactly one of source_amount (USDC) or destination_amount. ' +
    'The quote is valid 60 seconds; pass its id as quote_id when creating the payout.',
  request: { body: { required: true, content: jsonContent(QuoteCreateSchema) } },
  responses: {
    201: { description: 'The quote', content: jsonContent(QuoteSchema) },
    ...errorResponses({
      400: 'validation_error (unknown channel, both or neither amount, bad precision), channel_unavailable, amount_out_of_range',
      ...AUTH_ERRORS,
    }),
  },
});

/** Registers `POST /quotes` on a Surface A router. */
export function registerQuoteRoutes(app: SurfaceRouter): void {
  app.openapi(createQuoteRoute, async (c) => {
    const body = c.req.valid('json');
    const quote = await createQuote(c.get('core'), c.get('caller'), {
      channel: body.channel,
      sourceAmount: body.source_amount,
      destinationAmount: body.destination_amount,
    });
    return c.json(renderQuote(quote), 201);
  });
}
