import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { migrationProvider } from './migrations';
import type { Database, Db } from './schema';

/** Where the database lives: a PostgreSQL URL, a PGlite data directory, or PGlite in memory. */
export type DbTarget = { url: string } | { pgliteDir: string } | { memory: true };

const INT8 = 20;

/**
 * Opens Kysely on PostgreSQL (pg Pool) or PGlite. int8 columns come back as `bigint` on both, so
 * money never passes through a JS number.
 */
export async function openDb(target: DbTarget, opts: { poolSize?: number } = {}): Promise<Db> {
  if ('url' in target) {
    const pool = new pg.Pool({
      connectionString: target.url,
      max: opts.poolSize ?? 10,
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === INT8 ? (v: string) => BigInt(v) : pg.types.getTypeParser(oid, format as 'text')) as any,
      },
    });
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  let client: PGlite;
  if ('pgliteDir' in target) {
    mkdirSync(target.pgliteDir, { recursive: true });
    client = new PGlite(join(target.pgliteDir, 'pglite'), { parsers: { [INT8]: (v: string) => BigInt(v) } });
  } else {
    client = new PGlite({ parsers: { [INT8]: (v: string) => BigInt(v) } });
  }
  await client.waitReady;
  return new Kysely<Database>({ dialect: new PGliteDialect(client) });
}

/**
 * Brings the schema up to date. Safe to call from any number of processes at once: Kysely's
 * Postgres migrator takes an advisory lock, so exactly one runs each migration.
 */
export async function migrate(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
