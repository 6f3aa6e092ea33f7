/**
 * Wire schemas shared by the Surface A catalog routers (channels, quotes, recipients): the error
 * body, Amount, durations and the RecipientType enum (spec "Shared types", "Errors"). Zod schemas
 * with OpenAPI metadata, so `/openapi.json` documents them as components.
 */
import { z } from '@hono/zod-openapi';
import { RECIPIENT_TYPES, type RecipientType } from '../../domain/channels';

/** Spec "Errors", Surface A error body: `{error: {code, message, param, request_id}}`. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'validation_error' }),
      message: z.string(),
      param: z.string().nullable().openapi({ example: 'source_amount' }),
      request_id: z.string().openapi({ example: 'req_01k0000000000000000000000' }),
    }),
  })
  .openapi('Error');

/**
 * OpenAPI `responses` entries for error statuses: `{400: {description, content: Error}, ...}`.
 * `descriptions` maps the HTTP status to what it means on this route.
 */
export function errorResponses<S extends number>(descriptions: Record<S, string>) {
  const out = {} as Record<S, { description: string; content: { 'application/json': { schema: typeof ErrorSchema } } }>;
  for (const [status, description] of Object.entries(descriptions) as [string, string][]) {
    out[Number(status) as S] = { description, content: { 'application/json': { schema: ErrorSchema } } };
  }
  return out;
}

/** Errors every authenticated Surface A route can return (spec "Authentication"). */
export const AUTH_ERRORS = { 401: 'Missing, unknown or revoked key, or a key of the other environment' } as const;

/** Spec "Shared types" Amount: a decimal string (up to 2 decimals fiat, 6 USDC). */
export const AmountSchema = z.string().openapi({
  description: 'Decimal string: digits, optionally a point and 1 to 6 digits (2 for fiat, 6 for USDC)',
  pattern: '^[0-9]+(\\.[0-9]{1,6})?$',
  example: '100.00',
});

/** An ISO 8601 duration such as `PT30M` or `P1D`. */
export const DurationSchema = z.string().openapi({ description: 'ISO 8601 duration', example: 'PT30M' });

/** `{min, max}` ISO 8601 durations (spec "Channel".arrival, "Quote".arrival). */
export const ArrivalSchema = z
  .object({ min: DurationSchema, max: DurationSchema })
  .openapi('ArrivalWindow', { description: 'Typical arrival time window, ISO 8601 durations' });

/** Spec "Channel".limits / "ChannelRequirements".limits: USDC Amounts. */
export const LimitsSchema = z
  .object({ min: AmountSchema, max: AmountSchema, currency: z.string().openapi({ example: 'USDC' }) })
  .openapi('ChannelLimits', { description: 'Inclusive source-amount limits of a payout on the channel' });

/** Spec "Shared types" RecipientType. */
export const RecipientTypeSchema = z
  .enum(RECIPIENT_TYPES as unknown as [RecipientType, ...RecipientType[]])
  .openapi('RecipientType');

/** ISO 3166-1 alpha-2 country code, any case on input (normalised to upper case by the core). */
export const CountrySchema = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code such as MX')
  .openapi({ example: 'MX' });

/** ISO 4217 currency code (or USDC), any case on input (normalised to upper case by the core). */
export const CurrencySchema = z
  .string()
  .regex(/^[A-Za-z]{3,4}$/, 'must be an ISO 4217 currency code such as MXN')
  .openapi({ example: 'MXN' });
