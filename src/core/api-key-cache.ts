/**
 * A per-process cache of verified API keys, invalidated through PostgreSQL LISTEN/NOTIFY; the
 * protocol is in docs/api-keys.md "Authentication cache". Invariants: the cache serves only while
 * its LISTEN connection is up; a lookup that raced a notification is not stored (generation
 * counter); a revocation answers once every listener acknowledged the eviction. Started by
 * `npm run api` on PostgreSQL only; elsewhere every request reads PostgreSQL.
 */
import { sql } from 'kysely';
import type pg from 'pg';
import type { Caller } from './context';
import type { Db } from '../db/schema';
import { parseDatabaseUrl } from '../db/database-url';
import { connectClient, DEFAULT_FAILOVER, type FailoverSettings } from '../db/primary';

export const API_KEYS_CHANNEL = 'api_keys_changed';
export const API_KEYS_ACK_CHANNEL = 'api_keys_evicted';
export const LISTENER_APPLICATION_NAME = 'api_key_cache';
/** Longest an entry is served without reading PostgreSQL again: 60 s (ms). */
export const KEY_CACHE_TTL_MS = 60_000;
export const KEY_CACHE_MAX_ENTRIES = 10_000;
export const RELISTEN_DELAY_MS = 1_000;
export const INVALIDATION_WAIT_MS = 2_000;

/** A verified, active key; `expiresAt`, `lastUsedAt`, `readAt` in epoch ms. */
export interface CachedKey {
  caller: Caller;
  expiresAt: number | null;
  lastUsedAt: number | null;
  readAt: number;
}

export interface ApiKeyCache {
  get(hash: string): CachedKey | undefined;
  /** Read before the lookup and pass to {@link ApiKeyCache.set}. */
  generation(): number;
  set(hash: string, entry: CachedKey, generation: number): void;
  /** Call before the transaction changing `keyId`; `everywhere()` after commit waits for every listener's ack (or `timeoutMs`). */
  expectEviction(keyId: string, timeoutMs?: number): { everywhere(): Promise<void>; cancel(): void };
  listening(): boolean;
  size(): number;
  stop(): Promise<void>;
}

const caches = new WeakMap<Db, ApiKeyCache>();

export function apiKeyCacheOf(db: Db): ApiKeyCache | undefined {
  return caches.get(db);
}

/** Starts the cache with a LISTEN connection to `databaseUrl`'s primary (NOTIFY does not cross databases); throws if the first LISTEN fails. */
export async function startApiKeyCache(
  db: Db,
  databaseUrl: string,
  log: { warn: (obj: object, msg: string) => void } = { warn: () => {} },
  failover: FailoverSettings = DEFAULT_FAILOVER,
): Promise<ApiKeyCache> {
  const url = parseDatabaseUrl(databaseUrl);
  if (caches.has(db)) throw new Error('startApiKeyCache: already started for this database handle');
  const byHash = new Map<string, CachedKey>();
  const hashesById = new Map<string, Set<string>>();
  const waiters = new Map<string, Set<{ acks: number; check: () => void }>>();
  let gen = 0;
  let up = false;
  let stopped = false;
  let client: pg.Client | null = null;
  let attempt: object | null = null;
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
    c.query('select pg_notify($1, $2)', [API_KEYS_ACK_CHANNEL, payload || '*']).catch(() => {});
  };

  const listen = async (): Promise<void> => {
    const mine = {};
    attempt = mine;
    let c: pg.Client | null = null;
    const lost = (err?: unknown) => {
      if (attempt !== mine) return;
      attempt = null;
      client = null;
      up = false;
      clear();
      if (err) log.warn({ err }, 'api key cache: LISTEN connection lost; reading every key from PostgreSQL until it is back');
      c?.end().catch(() => {});
      if (!stopped) {
        retry = setTimeout(() => {
          retry = null;
          listen().catch(() => {});
        }, RELISTEN_DELAY_MS);
        retry.unref?.();
      }
    };
    try {
      c = await connectClient(url, { application_name: LISTENER_APPLICATION_NAME, keepAlive: true }, failover);
      if (attempt !== mine || stopped) {
        await c.end().catch(() => {});
        return;
      }
      client = c;
      const conn = c;
      c.on('notification', (n) => {
        if (n.channel === API_KEYS_CHANNEL) onNotification(conn, n.payload);
        else if (n.channel === API_KEYS_ACK_CHANNEL && n.payload) onAck(n.payload);
      });
      c.on('error', (err) => lost(err));
      c.on('end', () => lost(new Error('connection ended')));
      await c.query(`LISTEN ${API_KEYS_CHANNEL}; LISTEN ${API_KEYS_ACK_CHANNEL}`);
    } catch (err) {
      if (attempt === mine) {
        if (!caches.has(db)) {
          attempt = null;
          client = null;
          await c?.end().catch(() => {});
          throw err;
        }
        lost(err);
      }
      return;
    }
    if (attempt !== mine || stopped) return;
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
      attempt = null;
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
