/**
 * A per-process cache of verified API keys, invalidated through PostgreSQL LISTEN/NOTIFY
 * (docs/api-keys.md "Authentication cache"; issue #23). It saves the key lookup, one statement of
 * every authenticated request, while a revocation still holds on every API process at once:
 *
 * - Migration 0057 makes every change to how a key authenticates (revoked_at, expires_at, role,
 *   policy, hash, business, environment) and every deletion send `NOTIFY api_keys_changed, '<key
 *   id>'` when its transaction commits (`'*'` on TRUNCATE). Each process holds one dedicated
 *   connection that LISTENs on that channel and evicts the key (or everything) on a notification.
 * - The cache serves only while that connection listens. When it drops, the cache is emptied and
 *   every request reads PostgreSQL again until the LISTEN is back (a notification sent meanwhile
 *   would be lost); it reconnects after {@link RELISTEN_DELAY_MS}.
 * - A lookup that raced with a notification (read before it, stored after it) is not stored: a
 *   generation counter, bumped by every notification and every listen state change, must be the
 *   same before the read and after it.
 * - A listening connection cut without the process knowing (half-open TCP; keepalive is on) is
 *   not counted and not told: that process serves its entries for at most the TTL.
 * - Only active keys are stored (an unknown or revoked key is read every time); an entry lives at
 *   most {@link KEY_CACHE_TTL_MS} as a second line of defence, and a rolled key's `expires_at` is
 *   checked on every hit against the clock.
 * - Every listener acknowledges each notification once it has evicted the key: `NOTIFY
 *   api_keys_evicted, '<key id>'` on its own connection. A revocation or roll through this process
 *   counts the listening connections of the database (application_name `api_key_cache`) after its
 *   commit and answers once that many acknowledgements have come back (at most
 *   {@link INVALIDATION_WAIT_MS}; then it answers anyway and logs a warning): when the caller learns
 *   of the revocation, no process serves the key from its cache any more.
 *
 * Started by `npm run api` (src/main/api.ts) on PostgreSQL. Without it (PGlite, the in-process test
 * harness, the worker) authentication reads PostgreSQL on every request, as before.
 */
import { sql } from 'kysely';
import pg from 'pg';
import type { Caller } from './context';
import type { Db } from '../db/schema';

/** The NOTIFY channel of API key changes (migration 0057_api_key_notify). */
export const API_KEYS_CHANNEL = 'api_keys_changed';
/** The NOTIFY channel on which each listener acknowledges an eviction (payload: the key id, or `*`). */
export const API_KEYS_ACK_CHANNEL = 'api_keys_evicted';
/** application_name of the LISTEN connections, by which a revocation counts them. */
export const LISTENER_APPLICATION_NAME = 'api_key_cache';
/** Longest an entry is served without reading PostgreSQL again: 60 s (ms). */
export const KEY_CACHE_TTL_MS = 60_000;
/** Most keys held per process; beyond it the oldest entry is dropped. */
export const KEY_CACHE_MAX_ENTRIES = 10_000;
/** Wait before listening again after the LISTEN connection dropped (ms). */
export const RELISTEN_DELAY_MS = 1_000;
/** Longest a revocation waits for its own notification to come back (ms). */
export const INVALIDATION_WAIT_MS = 2_000;

/** A verified, active key as cached: its caller, when it expires (a rolled key) and when it was last used (both epoch ms or null). */
export interface CachedKey {
  caller: Caller;
  expiresAt: number | null;
  lastUsedAt: number | null;
  /** When the entry was read from PostgreSQL (epoch ms, process clock). */
  readAt: number;
}

/** The cache of one process's database handle (see the module docstring). */
export interface ApiKeyCache {
  /** The entry of key hash `hash`, or undefined (not cached, too old, or not listening). */
  get(hash: string): CachedKey | undefined;
  /** The generation to pass to {@link ApiKeyCache.set}; read it before the lookup. */
  generation(): number;
  /** Stores an active key read at `generation`; ignored if anything was invalidated since or the cache is not listening. */
  set(hash: string, entry: CachedKey, generation: number): void;
  /**
   * Call before the transaction that changes key `keyId`; after its commit, `everywhere()` resolves
   * once every listening process has acknowledged evicting the key (or after `timeoutMs`, default
   * {@link INVALIDATION_WAIT_MS}, with a warning); `cancel()` when nothing was changed.
   */
  expectEviction(keyId: string, timeoutMs?: number): { everywhere(): Promise<void>; cancel(): void };
  /** True while the LISTEN connection is up (the cache serves only then). */
  listening(): boolean;
  /** Number of cached keys. */
  size(): number;
  /** Stops listening and empties the cache. */
  stop(): Promise<void>;
}

const caches = new WeakMap<Db, ApiKeyCache>();

/** The cache started for `db` by {@link startApiKeyCache}, or undefined (then every request reads PostgreSQL). */
export function apiKeyCacheOf(db: Db): ApiKeyCache | undefined {
  return caches.get(db);
}

/**
 * Starts the cache for `db` (a PostgreSQL handle) with a dedicated LISTEN connection to
 * `databaseUrl` (the same database as `db`: NOTIFY does not cross databases). Resolves once the
 * first LISTEN is up; throws the connection error if it cannot be (then no cache is registered).
 * `log` receives the connection's errors. Returns the cache; call `stop()` at shutdown.
 */
export async function startApiKeyCache(
  db: Db,
  databaseUrl: string,
  log: { warn: (obj: object, msg: string) => void } = { warn: () => {} },
): Promise<ApiKeyCache> {
  if (caches.has(db)) throw new Error('startApiKeyCache: already started for this database handle');
  const byHash = new Map<string, CachedKey>();
  const hashesById = new Map<string, Set<string>>();
  /** Waiters by key id: the acknowledgements counted since each was registered, and its check. */
  const waiters = new Map<string, Set<{ acks: number; check: () => void }>>();
  let gen = 0;
  let up = false;
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;

  const clear = () => {
    gen++;
    byHash.clear();
    hashesById.clear();
  };
  const drop = (hash: string) => {
    const e = byHash.get(hash);
    if (!e) return;
    byHash.delete(hash);
    const set = hashesById.get(e.caller.keyId);
    set?.delete(hash);
    if (set && set.size === 0) hashesById.delete(e.caller.keyId);
  };
  /** Counts an acknowledgement for `keyId` (every waiter for `*`). */
  const onAck = (keyId: string) => {
    const sets = keyId === '*' ? [...waiters.values()] : [waiters.get(keyId)];
    for (const set of sets) {
      for (const w of [...(set ?? [])]) {
        w.acks++;
        w.check();
      }
    }
  };
  const onNotification = (c: pg.Client, payload: string | undefined) => {
    gen++;
    if (!payload || payload === '*') clear();
    else for (const hash of [...(hashesById.get(payload) ?? [])]) drop(hash);
    // Evicted: say so to the process that made the change.
    c.query('select pg_notify($1, $2)', [API_KEYS_ACK_CHANNEL, payload || '*']).catch(() => {});
  };

  const listen = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: databaseUrl, application_name: LISTENER_APPLICATION_NAME, keepAlive: true });
    const lost = (err?: unknown) => {
      if (client !== c) return;
      client = null;
      up = false;
      clear();
      if (err) log.warn({ err }, 'api key cache: LISTEN connection lost; reading every key from PostgreSQL until it is back');
      c.end().catch(() => {});
      if (!stopped) {
        retry = setTimeout(() => {
          retry = null;
          // a failed re-listen schedules the next one itself
          listen().catch(() => {});
        }, RELISTEN_DELAY_MS);
        retry.unref?.();
      }
    };
    client = c;
    c.on('notification', (n) => {
      if (n.channel === API_KEYS_CHANNEL) onNotification(c, n.payload);
      else if (n.channel === API_KEYS_ACK_CHANNEL && n.payload) onAck(n.payload);
    });
    c.on('error', (err) => lost(err));
    c.on('end', () => lost(new Error('connection ended')));
    try {
      await c.connect();
      await c.query(`LISTEN ${API_KEYS_CHANNEL}; LISTEN ${API_KEYS_ACK_CHANNEL}`);
    } catch (err) {
      if (client === c) {
        // The first start throws to its caller; a re-listen tries again later.
        if (!caches.has(db)) {
          client = null;
          await c.end().catch(() => {});
          throw err;
        }
        lost(err);
      }
      return;
    }
    if (client !== c || stopped) return;
    clear();
    up = true;
  };

  await listen();

  const cache: ApiKeyCache = {
    get(hash) {
      if (!up) return undefined;
      const e = byHash.get(hash);
      if (!e) return undefined;
      if (Date.now() - e.readAt >= KEY_CACHE_TTL_MS) {
        drop(hash);
        return undefined;
      }
      return e;
    },
    generation: () => gen,
    set(hash, entry, generation) {
      if (!up || generation !== gen) return;
      if (!byHash.has(hash) && byHash.size >= KEY_CACHE_MAX_ENTRIES) {
        const oldest = byHash.keys().next().value;
        if (oldest !== undefined) drop(oldest);
      }
      drop(hash);
      byHash.set(hash, entry);
      let set = hashesById.get(entry.caller.keyId);
      if (!set) hashesById.set(entry.caller.keyId, (set = new Set()));
      set.add(hash);
    },
    expectEviction(keyId, timeoutMs = INVALIDATION_WAIT_MS) {
      let set = waiters.get(keyId);
      if (!set) waiters.set(keyId, (set = new Set()));
      let needed = Infinity;
      let settle: (() => void) | null = null;
      const w = { acks: 0, check: () => w.acks >= needed && settle?.() };
      set.add(w);
      const remove = () => {
        set.delete(w);
        if (set.size === 0 && waiters.get(keyId) === set) waiters.delete(keyId);
      };
      return {
        cancel: remove,
        async everywhere() {
          try {
            if (!up) return;
            const r = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
              where datname = current_database() and application_name = ${LISTENER_APPLICATION_NAME}`.execute(db);
            // At least this process's own listener (another role's sessions may be hidden).
            needed = Math.max(1, r.rows[0]?.n ?? 1);
            if (w.acks >= needed) return;
            const all = await new Promise<boolean>((resolve) => {
              const timer = setTimeout(() => resolve(false), timeoutMs);
              timer.unref?.();
              settle = () => {
                clearTimeout(timer);
                resolve(true);
              };
            });
            if (!all) log.warn({ key_id: keyId, acknowledged: w.acks, listeners: needed }, 'api key cache: not every process acknowledged the eviction in time');
          } finally {
            remove();
          }
        },
      };
    },
    listening: () => up,
    size: () => byHash.size,
    async stop() {
      stopped = true;
      caches.delete(db);
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      up = false;
      clear();
      await c?.end().catch(() => {});
    },
  };
  caches.set(db, cache);
  return cache;
}
