/** Following the primary of a multi-host DATABASE_URL as libpq does (docs/architecture.md "High availability"). */
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { type DatabaseHost, hostLabel, type ParsedDatabaseUrl, type TargetSessionAttrs } from './database-url';
import { DatabaseUnavailableError } from './errors';
import { parseDuration } from '../domain/durations';

/** How a multi-host connection waits (DATABASE_CONNECT_TIMEOUT, DATABASE_FAILOVER_WAIT; docs/configuration.md). */
export interface FailoverSettings {
  connectTimeoutMs: number;
  /** 0: one pass over the hosts. */
  failoverWaitMs: number;
}

/** The settings' defaults (src/config.ts). */
export const DEFAULT_FAILOVER: FailoverSettings = { connectTimeoutMs: 2000, failoverWaitMs: 30_000 };

/** {@link FailoverSettings} from DATABASE_CONNECT_TIMEOUT and DATABASE_FAILOVER_WAIT. */
export function failoverSettingsOf(config: { DATABASE_CONNECT_TIMEOUT?: string; DATABASE_FAILOVER_WAIT?: string }): FailoverSettings {
  return {
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT ? parseDuration(config.DATABASE_CONNECT_TIMEOUT) : DEFAULT_FAILOVER.connectTimeoutMs,
    failoverWaitMs: config.DATABASE_FAILOVER_WAIT ? parseDuration(config.DATABASE_FAILOVER_WAIT) : DEFAULT_FAILOVER.failoverWaitMs,
  };
}

/** This process saw the writable host change from `from` to `to`. */
export interface PrimaryChange {
  from: DatabaseHost;
  to: DatabaseHost;
  at: Date;
}

/** Process-wide `primary-change` events (src/core/metrics/database.ts counts them). */
export const primaryEvents = new EventEmitter<{ 'primary-change': [PrimaryChange] }>();

/** What a session is: libpq's two checks (`transaction_read_only`, `pg_is_in_recovery()`). */
export interface SessionKind {
  readOnly: boolean;
  inRecovery: boolean;
}

/** Whether a session of this kind satisfies `tsa` as libpq means it; `fallback`: `prefer-standby`'s second pass. */
export function satisfies(tsa: TargetSessionAttrs, kind: SessionKind, fallback = false): boolean {
  switch (tsa) {
    case 'any':
      return true;
    case 'read-write':
      return !kind.readOnly;
    case 'read-only':
      return kind.readOnly;
    case 'primary':
      return !kind.inRecovery;
    case 'standby':
      return kind.inRecovery;
    case 'prefer-standby':
      return fallback || kind.inRecovery;
  }
}

/** The passes over the hosts for `tsa`: `prefer-standby` makes a second pass that takes any server. */
export const passes = (tsa: TargetSessionAttrs): boolean[] => (tsa === 'prefer-standby' ? [false, true] : [false]);

/** The order in which to try `count` hosts: the one last seen writable first (for the primary), then the URL's. */
export function hostOrder(count: number, tsa: TargetSessionAttrs, lastWritable: number | null): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  if (lastWritable === null || !(tsa === 'read-write' || tsa === 'primary')) return order;
  return [lastWritable, ...order.filter((i) => i !== lastWritable)];
}

/** The backoff before the `attempt`-th new pass over the hosts (ms): 100, 200, 400, ... at most 1000. */
export const backoffMs = (attempt: number): number => Math.min(1000, 100 * 2 ** attempt);

/** Asks a connected session what it is (one round trip). */
export async function sessionKind(client: { query: pg.Client['query'] }): Promise<SessionKind> {
  const { rows } = await client.query<{ ro: string; rec: boolean }>("select current_setting('transaction_read_only') as ro, pg_is_in_recovery() as rec");
  return { readOnly: rows[0]?.ro === 'on', inRecovery: rows[0]?.rec === true };
}

/** The writable host this process last saw, per host list (shared by every pool and client of one URL). */
const lastWritable = new Map<string, number>();

const keyOf = (url: ParsedDatabaseUrl) => url.hosts.map(hostLabel).join(',');

/** Records that host `i` of `url` is writable; emits `primary-change` when another host was before. */
export function noteWritable(url: ParsedDatabaseUrl, i: number): void {
  const key = keyOf(url);
  const before = lastWritable.get(key);
  if (before === i) return;
  lastWritable.set(key, i);
  if (before === undefined) return;
  console.warn(`PostgreSQL: the writable host is now ${hostLabel(url.hosts[i]!)} (was ${hostLabel(url.hosts[before]!)})`);
  primaryEvents.emit('primary-change', { from: url.hosts[before]!, to: url.hosts[i]!, at: new Date() });
}

/** The host of `url` this process last saw writable, or null. */
export const lastWritableHost = (url: ParsedDatabaseUrl): number | null => lastWritable.get(keyOf(url)) ?? null;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Passes over the hosts until `attempt` returns non-null, with backoff up to the failover wait; throws DatabaseUnavailableError. */
async function untilOneFits<T>(
  url: ParsedDatabaseUrl,
  settings: FailoverSettings,
  first: () => number | null,
  attempt: (i: number, fallback: boolean) => Promise<T | null>,
): Promise<T> {
  const started = Date.now();
  let lastError: unknown;
  for (let round = 0; ; round++) {
    const order = hostOrder(url.hosts.length, url.targetSessionAttrs, first() ?? lastWritableHost(url));
    for (const fallback of passes(url.targetSessionAttrs)) {
      for (const i of order) {
        try {
          const got = await attempt(i, fallback);
          if (got !== null) return got;
        } catch (err) {
          lastError = err;
        }
      }
    }
    const waited = Date.now() - started;
    if (waited >= settings.failoverWaitMs) throw new DatabaseUnavailableError(url.hosts.map(hostLabel), waited, lastError);
    await sleep(Math.min(backoffMs(round), settings.failoverWaitMs - waited));
  }
}

/** A connected `pg.Client` on a server of `url`'s kind (LISTEN sessions); throws DatabaseUnavailableError, or a single host's connection error. */
export async function connectClient(url: ParsedDatabaseUrl, config: Omit<pg.ClientConfig, 'connectionString'>, settings: FailoverSettings = DEFAULT_FAILOVER): Promise<pg.Client> {
  if (!url.needsSelection) {
    const c = new pg.Client({ ...config, connectionString: url.hostUrls[0] });
    await c.connect();
    return c;
  }
  return untilOneFits(url, settings, () => null, async (i, fallback) => {
    const c = new pg.Client({ ...config, connectionString: url.hostUrls[i], connectionTimeoutMillis: settings.connectTimeoutMs });
    const swallow = () => {};
    c.on('error', swallow);
    try {
      await c.connect();
      if (url.targetSessionAttrs !== 'any') {
        const kind = await sessionKind(c);
        if (!satisfies(url.targetSessionAttrs, kind, fallback)) {
          await c.end().catch(() => {});
          return null;
        }
        if (!kind.readOnly) noteWritable(url, i);
      }
      c.off('error', swallow);
      return c;
    } catch (err) {
      await c.end().catch(() => {});
      throw err;
    }
  });
}

/** Kysely's pool over a multi-host URL: one node-postgres pool per host, one in use; new connections are checked first. */
export class FollowingPool implements PostgresPool {
  private readonly pools = new Map<number, pg.Pool>();
  private readonly unchecked = new WeakSet<pg.PoolClient>();
  private current: number | null = null;
  private ended = false;

  constructor(
    private readonly url: ParsedDatabaseUrl,
    private readonly config: Omit<pg.PoolConfig, 'connectionString'>,
    private readonly settings: FailoverSettings,
    private readonly configure: (pool: pg.Pool) => void = () => {},
  ) {}

  private poolFor(i: number): pg.Pool {
    let p = this.pools.get(i);
    if (!p) {
      // The connect timeout bounds opening a connection only; waiting for a free one is unbounded, as on one host.
      const connectionTimeoutMillis = this.settings.connectTimeoutMs;
      class TimedClient extends pg.Client {
        constructor(c?: string | pg.ClientConfig) {
          super({ ...(typeof c === 'object' ? c : {}), connectionTimeoutMillis });
        }
      }
      p = new pg.Pool({ keepAlive: true, ...this.config, connectionString: this.url.hostUrls[i], Client: TimedClient });
      this.configure(p);
      p.on('connect', (c) => this.unchecked.add(c));
      this.pools.set(i, p);
    }
    return p;
  }

  private retire(i: number): void {
    const p = this.pools.get(i);
    if (!p) return;
    this.pools.delete(i);
    p.end().catch(() => {});
  }

  /** A connection on a host of the wanted kind; throws DatabaseUnavailableError after the failover wait. */
  async connect(): Promise<PostgresPoolClient> {
    if (this.ended) throw new Error('The database pool was closed');
    return untilOneFits(this.url, this.settings, () => this.current, async (i, fallback) => {
      let client: pg.PoolClient;
      try {
        client = await this.poolFor(i).connect();
      } catch (err) {
        if (this.current === i) this.current = null;
        throw err;
      }
      if (this.unchecked.has(client) && this.url.targetSessionAttrs !== 'any') {
        let kind: SessionKind;
        try {
          kind = await sessionKind(client);
        } catch (err) {
          client.release(err as Error);
          if (this.current === i) this.current = null;
          throw err;
        }
        if (!satisfies(this.url.targetSessionAttrs, kind, fallback)) {
          client.release(true);
          if (this.current === i) this.current = null;
          this.retire(i);
          return null;
        }
        this.unchecked.delete(client);
        if (!kind.readOnly) noteWritable(this.url, i);
      }
      if (this.current !== i) {
        const before = this.current;
        this.current = i;
        if (before !== null) this.retire(before);
        for (const j of [...this.pools.keys()]) if (j !== i) this.retire(j);
      }
      return client;
    });
  }

  async end(): Promise<void> {
    this.ended = true;
    const all = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(all.map((p) => p.end().catch(() => {})));
  }
}
