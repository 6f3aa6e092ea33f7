import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { migrationProvider } from './migrations';
import { acquirePgliteLock } from './pglite-lock';
import type { Database, Db } from './schema';

/** Where the database lives: a PostgreSQL URL, a PGlite data directory, or PGlite in memory. */
export type DbTarget = { url: string } | { pgliteDir: string } | { memory: true };

const INT8 = 20;

/**
 * Opens Kysely on PostgreSQL (pg Pool) or PGlite. int8 columns come back as `bigint` on both, so
 * money never passes through a JS number. A PGlite data directory is opened by one process only
 * (src/db/pglite-lock.ts): throws `PgliteLockedError` while another live process holds it; the lock
 * is released by `destroy()` or when the process exits.
 */
export async function openDb(target: DbTarget, opts: { poolSize?: number; role?: string } = {}): Promise<Db> {
  if ('url' in target) {
    const pool = new pg.Pool({
      connectionString: target.url,
      max: opts.poolSize ?? 10,
      // Every connection acts as the application role from its start (docs/security.md "Database roles").
      ...(opts.role ? { options: `-c role=${opts.role}` } : {}),
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === INT8 ? (v: string) => BigInt(v) : pg.types.getTypeParser(oid, format as 'text')) as any,
      },
    });
    // A connection that PostgreSQL closes (a restart, a failover, an idle timeout) emits 'error':
    // on the pool while the client is idle (pg then drops it and the next query opens a new one),
    // on the client itself while it is checked out (its query, if any, fails with the error and the
    // pool discards it on release). Without listeners either event would end the process.
    pool.on('error', (err) => {
      console.error(`PostgreSQL: an idle pooled connection failed (${err.message}); it was discarded`);
    });
    pool.on('connect', (client) => {
      client.on('error', (err) => {
        console.error(`PostgreSQL: a connection in use failed (${err.message})`);
      });
    });
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  let client: PGlite;
  let release: (() => void) | undefined;
  if ('pgliteDir' in target) {
    // One process per PGlite directory: throws PgliteLockedError while another process has it open.
    release = acquirePgliteLock(target.pgliteDir);
    const dataDir = join(target.pgliteDir, 'pglite');
    await initPgliteDir(dataDir);
    client = new PGlite(dataDir, { parsers: { [INT8]: (v: string) => BigInt(v) } });
  } else {
    client = new PGlite({ parsers: { [INT8]: (v: string) => BigInt(v) } });
  }
  await client.waitReady;
  const db = new Kysely<Database>({ dialect: new PGliteDialect(client) });
  if (release) {
    const destroy = db.destroy.bind(db);
    db.destroy = async () => {
      await destroy();
      release();
    };
  }
  return db;
}

/**
 * Creates a PGlite data directory (initdb) in a short-lived child process if `dataDir` has none.
 * initdb inside the service's process would leave it ~500 MiB larger for its whole life (measured:
 * 870 MiB RSS after opening a fresh directory, 354 MiB after opening an existing one;
 * docs/benchmarks.md). Throws with the child's stderr if it fails.
 */
export async function initPgliteDir(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  mkdirSync(dataDir, { recursive: true });
  const pglite = import.meta.resolve('@electric-sql/pglite');
  const code = `const { PGlite } = await import(${JSON.stringify(pglite)}); const db = await PGlite.create(${JSON.stringify(dataDir)}); await db.close();`;
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code]);
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

/** The application roles (migration 0065; docs/security.md "Database roles"). */
export type AppRole = 'payouts_api' | 'payouts_worker' | 'payouts_admin';

/** Thrown by {@link actAsRole} when the role does not exist or the connecting user may not take it. */
export class DatabaseRoleError extends Error {
  constructor(role: string, why: string) {
    super(
      `Cannot act as database role ${role}: ${why}. Create it and grant it to the login user (docs/operations.md "Database roles"), ` +
        'then run npm run admin -- db grants; or set DATABASE_ROLE=none to stay the connecting user.',
    );
    this.name = 'DatabaseRoleError';
  }
}

/**
 * After migrations (which run as the connecting owner), makes `db` act as the application `role`:
 * on PGlite (one connection) `SET ROLE` for the session; on PostgreSQL a new pool whose
 * connections start as the role (`-c role=…`), the owner's pool being closed. Returns the handle
 * to use from then on. Throws {@link DatabaseRoleError} when the role is missing or not granted to
 * the login user.
 */
export async function actAsRole(db: Db, target: DbTarget, role: string, opts: { poolSize?: number } = {}): Promise<Db> {
  const { rows } = await sql<{ exists: boolean; member: boolean }>`
    select exists (select 1 from pg_roles where rolname = ${role}) as exists,
           coalesce((select pg_has_role(current_user, ${role}, 'MEMBER') from pg_roles where rolname = ${role}), false) as member`.execute(db);
  if (!rows[0]?.exists) throw new DatabaseRoleError(role, 'it does not exist');
  if (!rows[0].member) throw new DatabaseRoleError(role, 'the login user is not a member of it');
  if ('url' in target) {
    await db.destroy();
    return openDb(target, { ...opts, role });
  }
  await sql`set role ${sql.id(role)}`.execute(db);
  return db;
}

/** The role a process acts as: the DATABASE_ROLE setting when set (`none`: null), else the process's own. */
export function databaseRole(setting: string | undefined, processRole: AppRole | undefined): string | null {
  if (setting === 'none') return null;
  return setting ?? processRole ?? null;
}
