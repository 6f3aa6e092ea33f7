/** The SQLSTATE of a database error (pg and PGlite alike), or undefined. */
export function pgErrorCode(err: unknown): string | undefined {
  const code = err && typeof err === 'object' ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

export const isUniqueViolation = (err: unknown): boolean => pgErrorCode(err) === '23505';

export const isNumericOverflow = (err: unknown): boolean => pgErrorCode(err) === '22003';

/** No server of DATABASE_URL fit within DATABASE_FAILOVER_WAIT (docs/architecture.md "High availability"); nothing was sent. */
export class DatabaseUnavailableError extends Error {
  constructor(
    readonly hosts: string[],
    readonly waitedMs: number,
    readonly lastError?: unknown,
  ) {
    super(
      `PostgreSQL: no server of ${hosts.join(', ')} accepted a connection of the wanted kind within ${waitedMs} ms` +
        (lastError instanceof Error ? ` (last: ${lastError.message})` : ''),
    );
    this.name = 'DatabaseUnavailableError';
  }
}

/** SQLSTATEs after which the statement's outcome must be looked up, never assumed: class 08 (connection), 57P01-57P03 (shutdown), 25006 (a demoted primary). */
const LOST = /^(08|57P0[123]$|25006$)/;
const LOST_MESSAGES = /Connection terminated|not queryable|Connection ended|connection error/i;
const LOST_NODE_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTCONN']);

/** Whether `err` is a lost connection or a demoted primary: the work may have committed (docs/architecture.md "High availability"). */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  if (!err || typeof err !== 'object') return false;
  const code = pgErrorCode(err);
  if (code && (LOST.test(code) || LOST_NODE_CODES.has(code))) return true;
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' && LOST_MESSAGES.test(message) && !code;
}
