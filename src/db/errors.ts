/**
 * PostgreSQL error codes the service answers for (SQLSTATE, from `pg` and PGlite errors alike):
 * a unique violation means "someone else wrote it first", a numeric overflow means "too large".
 */

/** The SQLSTATE of a database error (`23505`, ...), or undefined for anything else. */
export function pgErrorCode(err: unknown): string | undefined {
  const code = err && typeof err === 'object' ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** Whether `err` is PostgreSQL's unique_violation (23505). */
export const isUniqueViolation = (err: unknown): boolean => pgErrorCode(err) === '23505';

/** Whether `err` is PostgreSQL's numeric_value_out_of_range (22003): a figure past its column's type. */
export const isNumericOverflow = (err: unknown): boolean => pgErrorCode(err) === '22003';
