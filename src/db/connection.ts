import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { migrationProvider } from './migrations';
import { pgTypeParser } from './type-parsers';
import { acquirePgliteLock } from './pglite-lock';
import type { Database, Db } from './schema';
import { parseDatabaseUrl } from './database-url';
import { DEFAULT_FAILOVER, type FailoverSettings, FollowingPool } from './primary';

/**
 * Where the database is. `url`: PostgreSQL, one host or libpq's multi-host form
 * (src/db/database-url.ts); `failover` applies to the multi-host form only.
 */
export type DbTarget = { url: string; failover?: FailoverSettings } | { pgliteDir: string } | { memory: true };

const INT8 = 20;

/**
 * Opens Kysely on PostgreSQL or PGlite; int8 comes back as `bigint` on both (money never passes a JS
 * number). PGlite's modules load only here, so a process on PostgreSQL never holds them
 * (docs/operations.md "Idle cost"). Throws `PgliteLockedError` while another process holds the
 * PGlite directory.
 */
export async function openDb(target: DbTarget, opts: { poolSize?: number; role?: string } = {}): Promise<Db> {
  if ('url' in target) {
    const parsed = parseDatabaseUrl(target.url);
    const config = pgPoolConfig(opts);
    // One host: node-postgres reads the URL itself, as always. Several: follow the primary (docs/architecture.md "High availability").
    const pool = parsed.needsSelection
      ? new FollowingPool(parsed, config, target.failover ?? DEFAULT_FAILOVER, listenForErrors)
      : listenForErrors(new pg.Pool({ connectionString: target.url, ...config }));
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  const [{ PGlite }, { PGliteDialect }] = await Promise.all([import('@electric-sql/pglite'), import('kysely-pglite-dialect')]);
  let client: PGlite;
  let release: (() => void) | undefined;
  if ('pgliteDir' in target) {
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

/** The node-postgres settings of every pool of the service (without the address). */
export function pgPoolConfig(opts: { poolSize?: number; role?: string }): Omit<pg.PoolConfig, 'connectionString'> {
  return {
    max: opts.poolSize ?? 10,
    // Every connection acts as the application role from its start (docs/security.md "Database roles").
    ...(opts.role ? { options: `-c role=${opts.role}` } : {}),
    types: { getTypeParser: pgTypeParser as pg.CustomTypesConfig['getTypeParser'] },
  };
}

/** The listeners every node-postgres pool needs: without them a connection PostgreSQL closes (restart, failover) would end the process. */
export function listenForErrors(pool: pg.Pool): pg.Pool {
  pool.on('error', (err) => {
    console.error(`PostgreSQL: an idle pooled connection failed (${err.message}); it was discarded`);
  });
  pool.on('connect', (client) => {
    client.on('error', (err) => {
      console.error(`PostgreSQL: a connection in use failed (${err.message})`);
    });
  });
  return pool;
}

/** Creates a PGlite data directory in a child process: initdb in-process would keep it ~500 MiB larger (docs/benchmarks.md). */
export async function initPgliteDir(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  mkdirSync(dataDir, { recursive: true });
  const pglite = import.meta.resolve('@electric-sql/pglite');
  const code = `const { PGlite } = await import(${JSON.stringify(pglite)}); const db = await PGlite.create(${JSON.stringify(dataDir)}); await db.close();`;
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code]);
}

/** Brings the schema up to date; safe in concurrent processes (the migrator's advisory lock). */
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
 * Makes `db` act as the application `role` after migrations (PGlite: `SET ROLE`; PostgreSQL: a new
 * pool starting as the role). Returns the handle to use. Throws {@link DatabaseRoleError}.
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
