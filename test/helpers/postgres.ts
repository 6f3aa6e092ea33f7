/**
 * Test files that need a PostgreSQL server (several processes on one database, LISTEN/NOTIFY) and
 * are skipped on the default in-memory PGlite (docs/architecture.md "Tests"). Each such file calls
 * `skipWithoutPostgres` once at load and hands the result to `describe.skipIf`, so a skipped file
 * says why, once, on the test run's output (as `skipWithoutTestSftpServer` does for OpenSSH).
 */

/**
 * True (skip) when DATABASE_URL is unset, after printing `<file>: skipped, <why> needs PostgreSQL
 * (DATABASE_URL is unset, so the tests run on PGlite)` on stderr; false when DATABASE_URL is set.
 * `file` is the test file's path from the repository root; `why` says what needs the server.
 */
export function skipWithoutPostgres(file: string, why: string): boolean {
  if (process.env.DATABASE_URL) return false;
  console.warn(`${file}: skipped, ${why} needs PostgreSQL (DATABASE_URL is unset, so the tests run on PGlite)`);
  return true;
}
