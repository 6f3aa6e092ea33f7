/** Surface B's shared wire schemas (spec "Surface B resources"): USD decimal strings (1 USD = 1 USDC), ISO 8601 UTC. */
import { z } from '@hono/zod-openapi';
import { amountInputPattern, MAX_AMOUNT_INTEGER_DIGITS } from '../../domain/money';
import { amountTypeError } from '../errors';

export { COMMON_ERRORS, type ClaimErrorBody, ClaimErrorSchema, errorResponses } from './errors';

export const DateTimeSchema = z.string().openapi({ format: 'date-time', example: '2026-03-01T12:00:00.000Z' });

/** A USD amount: 1 to 12 integer digits, up to 2 decimals; else 400 validation_error. */
export const AmountUsdSchema = z.string({ error: amountTypeError }).openapi({
  description: `USD: 1 to ${MAX_AMOUNT_INTEGER_DIGITS} digits, optionally a point and 1 or 2 digits`,
  pattern: amountInputPattern(2),
  example: '25.00',
});
/** A USD figure computed from the USDC ledger (fees, debits, balances): up to 6 decimals (1 USD = 1 USDC). */
export const LedgerUsdSchema = z.string().openapi({ pattern: '^[0-9]+(\\.[0-9]{1,6})?$', example: '25.00' });

export const idParam = (name: string, example?: string) =>
  z.string().openapi({ param: { name, in: 'path' }, ...(example ? { example } : {}) });

/** `limit` (1..200, default 50) and `after` (opaque cursor) of Surface B lists. */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ description: 'Page size, 1 to 200 (default 50)' }),
  after: z.string().optional().openapi({ description: 'Opaque cursor: nextCursor of the previous page' }),
};

/** Surface B list envelope: `{data: [item], nextCursor: string | null}`. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), nextCursor: z.string().nullable() });

export const jsonContent = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } });

/** The `idempotencyKey` body field of Surface B writes. */
export const IdempotencyKeyField = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .openapi({
    description:
      'Makes a retried request safe for 24 hours: the same key with the same body returns the first result (Idempotent-Replayed: true); ' +
      'with another body 409 idempotency_conflict. The Idempotency-Key header is accepted too; the body field wins when both are sent. ' +
      'Optional, but a retry without one is a new request: a timeout and a retry can pay twice.',
    example: 'payroll-2026-03-row-17',
  });

/** Reads Surface B's body field `idempotencyKey` (for the idempotency middleware). */
export const idempotencyKeyFromBody = (body: unknown): string | undefined => {
  if (typeof body === 'object' && body !== null && 'idempotencyKey' in body) {
    const k = (body as { idempotencyKey: unknown }).idempotencyKey;
    return typeof k === 'string' ? k : undefined;
  }
  return undefined;
};

/**
 * `n` (a non-negative integer) with a comma between groups of three digits, as
 * `n.toLocaleString('en')` writes it ("10,000"), for the OpenAPI descriptions: formatting through
 * Intl at start would load ICU's number data into every API process (docs/operations.md "Idle cost").
 */
export function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
