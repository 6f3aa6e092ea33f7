/** Reads from the standby within a staleness bound, else the primary (docs/operations.md "Reads from the standby"). */
import { Kysely, type PostgresPool, type PostgresPoolClient, PostgresDialect, sql } from 'kysely';
import { listenForErrors, pgPoolConfig } from './connection';
import { parseDatabaseUrl } from './database-url';
import { DEFAULT_FAILOVER, type FailoverSettings, FollowingPool } from './primary';
import type { Database, Db } from './schema';

/** How often the primary's replication state is read (ms). */
export const STANDBY_CHECK_MS = 1000;

/** How long reads stay on the primary after a standby did not answer (ms). */
export const STANDBY_SKIP_MS = 5000;

/** Options of {@link openStandbyReads}. */
export interface StandbyReadsOptions {
  /** DATABASE_STANDBY_MAX_LAG (ms). */
  maxLagMs: number;
  failover?: FailoverSettings;
  poolSize?: number;
  role?: string;
}

/** The read handle and its state. */
export interface StandbyReads {
  db: Db;
  inSync(): boolean;
  destroy(): Promise<void>;
}

/** Thrown when DATABASE_READS=standby is set without a DATABASE_URL of several hosts. */
export class StandbyReadsUnavailableError extends Error {
  constructor() {
    super('DATABASE_READS=standby needs a multi-host DATABASE_URL (postgres://user@h1:p1,h2:p2/db?target_session_attrs=read-write; docs/operations.md "Reads from the standby")');
    this.name = 'StandbyReadsUnavailableError';
  }
}

/** Whether every standby `primary` streams to replays within `maxLagMs`; false when none, on an error, or hidden (pg_monitor). */
export async function standbysInSync(primary: Db, maxLagMs: number): Promise<boolean> {
  try {
    const { rows } = await sql<{ n: number; fresh: number }>`
      select count(*)::int as n,
             count(*) filter (where state = 'streaming'
               and (replay_lag <= make_interval(secs => ${maxLagMs / 1000})
                    or (replay_lag is null and replay_lsn >= pg_current_wal_lsn())))::int as fresh
        from pg_stat_replication`.execute(primary);
    const r = rows[0];
    return !!r && r.n > 0 && r.fresh === r.n;
  } catch {
    return false;
  }
}

/** A pool that hands out a standby's connection while `fresh()`, else (or when the standby fails) the primary's. */
class ReadPool implements PostgresPool {
  constructor(
    private readonly standby: FollowingPool,
    private readonly primary: FollowingPool,
    private readonly fresh: () => boolean,
    private readonly standbyFailed: () => void,
  ) {}

  async connect(): Promise<PostgresPoolClient> {
    if (this.fresh()) {
      try {
        return await this.standby.connect();
      } catch {
        this.standbyFailed();
      }
    }
    return this.primary.connect();
  }

  async end(): Promise<void> {
    await Promise.all([this.standby.end(), this.primary.end()]);
  }
}

/** Opens the read handle on `url`, checking the lag through `primary`; throws {@link StandbyReadsUnavailableError} for one host. */
export async function openStandbyReads(primary: Db, url: string, opts: StandbyReadsOptions): Promise<StandbyReads> {
  const parsed = parseDatabaseUrl(url);
  if (parsed.hosts.length < 2) throw new StandbyReadsUnavailableError();
  const failover = opts.failover ?? DEFAULT_FAILOVER;
  const config = pgPoolConfig({ poolSize: opts.poolSize, role: opts.role });
  const standby = new FollowingPool({ ...parsed, targetSessionAttrs: 'standby' }, config, { ...failover, failoverWaitMs: 0 }, listenForErrors);
  const fallback = new FollowingPool(parsed, { ...config, max: Math.max(2, Math.ceil((opts.poolSize ?? 10) / 2)) }, failover, listenForErrors);
  let inSync = false;
  let stopped = false;
  let skipUntil = 0;
  const check = async () => {
    inSync = await standbysInSync(primary, opts.maxLagMs);
  };
  await check();
  const timer = setInterval(() => {
    if (!stopped) void check();
  }, STANDBY_CHECK_MS);
  timer.unref?.();
  const pool = new ReadPool(
    standby,
    fallback,
    () => inSync && Date.now() >= skipUntil,
    () => {
      skipUntil = Date.now() + STANDBY_SKIP_MS;
    },
  );
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const destroy = db.destroy.bind(db);
  db.destroy = async () => {
    stopped = true;
    clearInterval(timer);
    await destroy();
  };
  return { db, inSync: () => inSync && Date.now() >= skipUntil, destroy: () => db.destroy() };
}
