/**
 * The per-process API key cache (src/core/api-key-cache.ts; docs/api-keys.md "Authentication
 * cache"): two cores, each with its own database handle, key cache and LISTEN connection, serve two
 * API apps on one PostgreSQL database, as two `npm run api` processes do. A revocation or a roll
 * through one answers once both have acknowledged evicting the key, so the other refuses it on its
 * very next request; a change written by plain SQL is
 * announced by the trigger too; a dropped LISTEN connection empties the cache and keys are read from
 * PostgreSQL until it is back; `last_used_at` is still recorded once a minute. Needs DATABASE_URL
 * (NOTIFY crosses processes only on PostgreSQL; on PGlite the app runs without the cache).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app';
import { apiKeyCacheOf, type ApiKeyCache, LISTENER_APPLICATION_NAME, startApiKeyCache } from '../../src/core/api-key-cache';
import type { Core } from '../../src/core/context';
import { openDb } from '../../src/db/connection';
import type { Db } from '../../src/db/schema';
import { hashKey } from '../../src/domain/api-keys';
import { createHarness, type Harness } from '../helpers/harness';
import { skipWithoutPostgres } from '../helpers/postgres';

const NO_POSTGRES = skipWithoutPostgres('test/api/api-key-cache.test.ts', 'two API cores sharing one database');

describe.skipIf(NO_POSTGRES)('API key cache across two API cores on one PostgreSQL database', () => {
  let h: Harness;
  let db2: Db;
  let clock = 0; // ms added to core 2's clock
  let core2: Core;
  let caches: [ApiKeyCache, ApiKeyCache];
  let apps: [ReturnType<typeof createApp>, ReturnType<typeof createApp>];

  beforeAll(async () => {
    h = await createHarness({ worker: false });
    db2 = await openDb({ url: h.databaseUrl! });
    core2 = { ...h.core, db: db2, now: () => new Date(Date.now() + clock) };
    caches = [await startApiKeyCache(h.db, h.databaseUrl!), await startApiKeyCache(db2, h.databaseUrl!)];
    apps = [h.app, createApp(core2)];
  });
  afterAll(async () => {
    await Promise.all((caches ?? []).map((c) => c.stop()));
    await db2?.destroy();
    await h?.close();
  });

  const call = async (n: 0 | 1, method: string, path: string, key: string, body?: unknown) => {
    const res = await apps[n].request(path, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const code = (r: { body: any }) => r.body?.error?.code;
  const S = '/sandbox/v1';

  it('both caches listen; a key used once is cached on the core that used it', async () => {
    expect(caches.map((c) => c.listening())).toEqual([true, true]);
    expect(apiKeyCacheOf(db2)).toBe(caches[1]);
    const biz = await h.business();
    expect(caches[1].get(hashKey(biz.sandbox))).toBeUndefined();
    expect((await call(1, 'GET', `${S}/balance`, biz.sandbox)).status).toBe(200);
    expect(caches[1].get(hashKey(biz.sandbox))?.caller).toMatchObject({ businessId: biz.id, environment: 'sandbox', role: 'owner' });
    expect(caches[0].get(hashKey(biz.sandbox))).toBeUndefined();
  });

  it('a key revoked through core 1 is 401 api_key_revoked on core 2 at once, though core 2 had it cached', async () => {
    const biz = await h.business();
    const created = await call(0, 'POST', `${S}/api-keys`, biz.sandbox, { name: 'Leaky bot' });
    expect(created.status).toBe(201);
    const bot = created.body as { id: string; key: string };
    for (const n of [0, 1] as const) expect((await call(n, 'GET', `${S}/balance`, bot.key)).status).toBe(200);
    expect(caches[1].get(hashKey(bot.key))?.caller.keyId).toBe(bot.id);

    expect((await call(0, 'DELETE', `${S}/api-keys/${bot.id}`, biz.sandbox)).status).toBe(200);
    const refused = await call(1, 'GET', `${S}/balance`, bot.key);
    expect([refused.status, code(refused)]).toEqual([401, 'api_key_revoked']);
    expect(caches[1].get(hashKey(bot.key))).toBeUndefined();
    expect(code(await call(0, 'GET', `${S}/balance`, bot.key))).toBe('api_key_revoked');
    // Revoking it again is idempotent and does not wait for a notification that never comes.
    const t = Date.now();
    expect((await call(0, 'DELETE', `${S}/api-keys/${bot.id}`, biz.sandbox)).status).toBe(200);
    expect(Date.now() - t).toBeLessThan(1500);
  });

  it('a rolled key: refused on the other core at once without a grace period; with one, served until it expires, then api_key_expired', async () => {
    const biz = await h.business();
    const a = (await call(1, 'POST', `${S}/api-keys`, biz.sandbox, { name: 'Bot A' })).body as { id: string; key: string };
    expect((await call(0, 'GET', `${S}/balance`, a.key)).status).toBe(200);
    const rolled = await call(1, 'POST', `${S}/api-keys/${a.id}/roll`, biz.sandbox, {});
    expect(rolled.status).toBe(201);
    expect(code(await call(0, 'GET', `${S}/balance`, a.key))).toBe('api_key_revoked');
    expect((await call(0, 'GET', `${S}/balance`, rolled.body.key)).status).toBe(200);

    const b = (await call(0, 'POST', `${S}/api-keys`, biz.sandbox, { name: 'Bot B' })).body as { id: string; key: string };
    expect((await call(1, 'GET', `${S}/balance`, b.key)).status).toBe(200);
    expect((await call(0, 'POST', `${S}/api-keys/${b.id}/roll`, biz.sandbox, { expires_in: 'PT2S' })).status).toBe(201);
    // Core 2 re-reads the key (its entry was evicted) and caches it with its expiry.
    expect((await call(1, 'GET', `${S}/balance`, b.key)).status).toBe(200);
    expect(caches[1].get(hashKey(b.key))?.expiresAt).toBeGreaterThan(Date.now());
    clock = 3000; // core 2's clock past the grace period: the cached entry's expiry refuses it
    try {
      const expired = await call(1, 'GET', `${S}/balance`, b.key);
      expect([expired.status, code(expired)]).toEqual([401, 'api_key_expired']);
    } finally {
      clock = 0;
    }
  });

  it('a key of the other environment: cached per key, a sk_live_ key is refused on the sandbox address and serves its own environment', async () => {
    const biz = await h.business();
    const live = await call(1, 'GET', '/v1/api-keys', biz.live);
    expect(live.status).toBe(200);
    expect(caches[1].get(hashKey(biz.live))?.caller).toMatchObject({ businessId: biz.id, environment: 'live' });
    const mismatch = await call(1, 'GET', `${S}/api-keys`, biz.live);
    expect([mismatch.status, code(mismatch)]).toEqual([401, 'environment_mismatch']);
    const sandbox = await call(1, 'GET', `${S}/api-keys`, biz.sandbox);
    // Each environment lists its own owner key only.
    const ids = (r: { body: any }) => (r.body.data as { id: string }[]).map((k) => k.id);
    expect(ids(live)).toHaveLength(1);
    expect(ids(sandbox)).toHaveLength(1);
    expect(ids(live)[0]).not.toBe(ids(sandbox)[0]);
    expect(caches[1].get(hashKey(biz.sandbox))?.caller.environment).toBe('sandbox');
  });

  it('a revocation written by plain SQL is announced by the trigger and evicts the key on both cores', async () => {
    const biz = await h.business();
    for (const n of [0, 1] as const) expect((await call(n, 'GET', `${S}/balance`, biz.sandbox)).status).toBe(200);
    const row = await h.db.selectFrom('api_keys').select('id').where('key_hash', '=', hashKey(biz.sandbox)).executeTakeFirstOrThrow();
    // Both listeners acknowledge the eviction (what a revocation through the API waits for).
    const eviction = caches[0].expectEviction(row.id, 5000);
    await h.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', row.id).execute();
    const t = Date.now();
    await eviction.everywhere();
    expect(Date.now() - t).toBeLessThan(4000); // acknowledged, not timed out
    expect([caches[0].get(hashKey(biz.sandbox)), caches[1].get(hashKey(biz.sandbox))]).toEqual([undefined, undefined]);
    for (const n of [0, 1] as const) expect(code(await call(n, 'GET', `${S}/balance`, biz.sandbox))).toBe('api_key_revoked');
  });

  it('the once-a-minute last_used_at write announces nothing and is still made on a cached hit', async () => {
    const biz = await h.business();
    const lastUsed = async () =>
      (await h.db.selectFrom('api_keys').select('last_used_at').where('key_hash', '=', hashKey(biz.sandbox)).executeTakeFirstOrThrow()).last_used_at;
    expect((await call(1, 'GET', `${S}/balance`, biz.sandbox)).status).toBe(200);
    const first = await lastUsed();
    expect(first).not.toBeNull();
    expect(caches[1].get(hashKey(biz.sandbox))).toBeDefined(); // not evicted by its own write
    clock = 61_000;
    try {
      expect((await call(1, 'GET', `${S}/balance`, biz.sandbox)).status).toBe(200);
    } finally {
      clock = 0;
    }
    expect(new Date((await lastUsed())!).getTime() - new Date(first!).getTime()).toBeGreaterThanOrEqual(60_000);
  });

  it('a dropped LISTEN connection empties the cache; a revocation meanwhile holds; it listens again', async () => {
    const biz = await h.business();
    expect((await call(1, 'GET', `${S}/balance`, biz.sandbox)).status).toBe(200);
    expect(caches[1].size()).toBeGreaterThan(0);
    // Cut every LISTEN connection of this database (both cores'), as a network failure would.
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = ${LISTENER_APPLICATION_NAME}`.execute(h.db);
    for (let i = 0; i < 50 && caches[1].listening(); i++) await new Promise((r) => setTimeout(r, 20));
    expect(caches[1].listening()).toBe(false);
    expect(caches[1].size()).toBe(0);
    // Revoked while nobody listens: the request reads PostgreSQL and is refused.
    await h.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('key_hash', '=', hashKey(biz.sandbox)).execute();
    expect(code(await call(1, 'GET', `${S}/balance`, biz.sandbox))).toBe('api_key_revoked');
    for (let i = 0; i < 100 && !caches.every((c) => c.listening()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(caches.map((c) => c.listening())).toEqual([true, true]);
    const other = await h.business();
    expect((await call(1, 'GET', `${S}/balance`, other.sandbox)).status).toBe(200);
    expect(caches[1].get(hashKey(other.sandbox))).toBeDefined();
  });
});
