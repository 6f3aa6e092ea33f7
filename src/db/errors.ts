/** The SQLSTATE of a database error (pg and PGlite alike), or undefined. */
export function pgErrorCode(err: unknown): string | undefined {
  const code = err && typeof err === 'object' ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

export const isUniqueViolation = (err: unknown): boolean => pgErrorCode(err) === '23505';

export const isNumericOverflow = (err: unknown): boolean => pgErrorCode(err) === '22003';
