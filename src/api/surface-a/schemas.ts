/** Wire schemas shared by the Surface A route modules (spec "Shared types", "Errors", "Endpoints"). */
import { z } from '@hono/zod-openapi';
import { RECIPIENT_TYPES, type RecipientType } from '../../domain/channels';
import { AMOUNT_INPUT_PATTERN, MAX_AMOUNT_INTEGER_DIGITS } from '../../domain/money';
import { amountTypeError } from '../errors';
import { SPEI_MXN_100 } from '../examples';
import { pageQuery } from '../pagination';

export { AUTH_ERRORS, type ErrorBody, ErrorSchema, errorResponses } from './errors';
export { pageQuery };

/** An ISO 8601 date-time in UTC (spec conventions), e.g. `2026-03-01T12:00:00.000Z`. */
export const DateTimeSchema = z.string().openapi({ format: 'date-time' });

/** A path parameter holding an id (spec "Endpoints" rule 4: ids are strings). */
export const idParam = (name: string, example?: string) =>
  z.string().openapi({ param: { name, in: 'path' }, ...(example ? { example } : {}) });

/** The optional `Idempotency-Key` request header of the write operations marked Idem. */
export const idempotencyHeaders = (description: string) =>
  z.object({ 'Idempotency-Key': z.string().optional().openapi({ description }) });

/** Spec "List envelope": `{data: [item], next_cursor: string | null}`. */
export const listEnvelope = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), next_cursor: z.string().nullable() });

export const jsonContent = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } });

/** Spec "Shared types" Amount: a decimal string (up to 2 decimals fiat, 6 USDC). */
export const AmountSchema = z.string({ error: amountTypeError }).openapi({
  description: 'Decimal string: digits, optionally a point and 1 to 6 digits (2 for fiat, 6 for USDC)',
  pattern: '^[0-9]+(\\.[0-9]{1,6})?$',
  example: '100.00',
});

/** An Amount the caller sends: at most 12 integer digits (src/domain/money.ts), else 400 validation_error. */
export const AmountInputSchema = z.string({ error: amountTypeError }).openapi({
  description: `Decimal string: 1 to ${MAX_AMOUNT_INTEGER_DIGITS} digits, optionally a point and 1 to 6 digits (2 for fiat, 6 for USDC)`,
  pattern: AMOUNT_INPUT_PATTERN,
  example: '100.00',
});

/** Spec "Shared types" Fees: USDC Amounts on top of the source amount; a function, so each resource names its own component. */
export const feesObject = () =>
  z.object({
    provider: AmountSchema.openapi({ example: SPEI_MXN_100.fees.provider }),
    service: AmountSchema.openapi({ example: SPEI_MXN_100.fees.service }),
    fx_spread: AmountSchema.openapi({ example: SPEI_MXN_100.fees.fx_spread }),
    total: AmountSchema.openapi({ example: SPEI_MXN_100.fees.total }),
    currency: z.string().openapi({ example: 'USDC' }),
  });

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
