/**
 * The PostgreSQL fixed-window rate limiter (src/core/rate-limit, src/api/middleware/rate-limit.ts)
 * and Surface B's table of limits. In-process on PGlite; the two-process test against a real
 * PostgreSQL is test/e2e/surface-b-rate-limit.test.ts.
 */
import type { Client } from '@temporalio/client';
import { Hono } from 'hono';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toApiError } from '../../src/api/errors';
import { rateLimit } from '../../src/api/middleware/rate-limit';
import { surfaceBErrors } from '../../src/api/surface-b/errors';
import { SURFACE_B_RATE_LIMITS, surfaceBRateLimitRules } from '../../src/api/surface-b/rate-limits';
import { respondWithError } from '../../src/api/surface';
import type { AppEnv } from '../../src/api/types';
import { loadConfig } from '../../src/config';
import type { Core } from '../../src/core/context';
import { hitRateLimits, pruneRateLimitCounters } from '../../src/core/rate-limit';
import { migrate, openDb } from '../../src/db/connection';
import type { Db } from '../../src/db/schema';
import { sandboxAdapters } from '../../src/sandbox/adapters';
import { createScreeningServices } from '../../src/core/screening/service';

let db: Db;
let clock = new Date('2026-01-01T00:00:10Z');
let core: Core;

beforeAll(async () => {
  db = await openDb({ memory: true });
  await migrate(db);
  core = { db, temporal: {} as Client, config: loadConfig({ LOG_LEVEL: 'silent' }), log: pino({ level: 'silent' }), now: () => clock, sandbox: sandboxAdapters(), screening: createScreeningServices(db, {}) };
});
afterAll(async () => db?.destroy());

/** A small app: a fake caller per `X-Biz` header, Surface B's rules, Surface B's error body. */
function app() {
  const a = new Hono<AppEnv>();
  a.use('*', async (c, next) => {
    c.set('core', core);
    c.set('surface', 'B');
    c.set('requestId', 'req_test');
    c.set('environment', 'sandbox');
    c.set('caller', { businessId: c.req.header('X-Biz') ?? 'biz_1', environment: 'sandbox', keyId: 'k', role: 'owner', policy: null });
    await next();
  });
  a.use('*', rateLimit({ rules: (c) => surfaceBRateLimitRules(c.req.method, c.req.path) }));
  a.onError((err, c) => respondWithError(c, surfaceBErrors, toApiError(err)));
  a.post('/disbursements', (c) => c.json({ ok: true }, 201));
  a.post('/disbursements/batch', (c) => c.json({ ok: true }, 201));
  a.get('/disbursements', (c) => c.json({ ok: true }));
  a.delete('/disbursements/:id', (c) => c.body(null, 204));
  return a;
}

describe('rate limits: happy', () => {
  it("Surface B's table: POST /disbursements 100, batch 10, GET 300, everything 1,000 per minute", () => {
    expect(surfaceBRateLimitRules('POST', '/disbursements').map((r) => [r.name, r.limit])).toEqual([
      ['post_disbursements', 100],
      ['all', 1000],
    ]);
    expect(surfaceBRateLimitRules('POST', '/disbursements/batch').map((r) => r.limit)).toEqual([10, 1000]);
    expect(surfaceBRateLimitRules('GET', '/recipients/by-phone/%2B1').map((r) => r.limit)).toEqual([300, 1000]);
    expect(surfaceBRateLimitRules('DELETE', '/disbursements/dsb_1').map((r) => r.limit)).toEqual([1000]);
    expect(Object.values(SURFACE_B_RATE_LIMITS).every((r) => r.windowSeconds === 60)).toBe(true);
  });

  it('every response carries X-RateLimit-Limit/Remaining/Reset of the binding limit', async () => {
    clock = new Date('2026-01-01T00:01:10Z');
    const a = app();
    const r1 = await a.request('/disbursements', { method: 'POST', headers: { 'X-Biz': 'biz_headers' } });
    expect(r1.status).toBe(201);
    const reset = String(Date.parse('2026-01-01T00:02:00Z') / 1000);
    expect([r1.headers.get('X-RateLimit-Limit'), r1.headers.get('X-RateLimit-Remaining'), r1.headers.get('X-RateLimit-Reset')]).toEqual(['100', '99', reset]);
    const r2 = await a.request('/disbursements', { headers: { 'X-Biz': 'biz_headers' } });
    expect([r2.headers.get('X-RateLimit-Limit'), r2.headers.get('X-RateLimit-Remaining')]).toEqual(['300', '299']);
    const r3 = await a.request('/disbursements/x', { method: 'DELETE', headers: { 'X-Biz': 'biz_headers' } });
    // The organisation-wide limit: three requests so far.
    expect([r3.status, r3.headers.get('X-RateLimit-Limit'), r3.headers.get('X-RateLimit-Remaining')]).toEqual([204, '1000', '997']);
  });

  it('a new window starts with a fresh count', async () => {
    clock = new Date('2026-01-01T00:03:59Z');
    const a = app();
    for (let i = 0; i < 10; i++) await a.request('/disbursements/batch', { method: 'POST', headers: { 'X-Biz': 'biz_window' } });
    expect((await a.request('/disbursements/batch', { method: 'POST', headers: { 'X-Biz': 'biz_window' } })).status).toBe(429);
    clock = new Date('2026-01-01T00:04:00Z');
    const r = await a.request('/disbursements/batch', { method: 'POST', headers: { 'X-Biz': 'biz_window' } });
    expect([r.status, r.headers.get('X-RateLimit-Remaining')]).toEqual([201, '9']);
  });
});

describe('rate limits: errors', () => {
  it('the 101st POST /disbursements in a minute is 429 in Surface B error body, with headers and Retry-After', async () => {
    clock = new Date('2026-01-01T00:05:30Z');
    const a = app();
    const statuses = await Promise.all(
      Array.from({ length: 130 }, () => a.request('/disbursements', { method: 'POST', headers: { 'X-Biz': 'biz_burst' } })),
    );
    const codes = statuses.map((r) => r.status);
    expect(codes.filter((s) => s === 201)).toHaveLength(100);
    expect(codes.filter((s) => s === 429)).toHaveLength(30);
    const refused = statuses.find((r) => r.status === 429)!;
    const body = await refused.json();
    expect(body).toMatchObject({
      error: 'rate_limit_exceeded',
      message: expect.stringContaining('100 requests per 60 s'),
      details: { limit: 100, rule: 'post_disbursements', requestId: 'req_test', retryAfterSeconds: 30 },
    });
    expect([refused.headers.get('X-RateLimit-Limit'), refused.headers.get('X-RateLimit-Remaining'), refused.headers.get('Retry-After')]).toEqual([
      '100',
      '0',
      '30',
    ]);
    // GETs have their own limit and still pass.
    expect((await a.request('/disbursements', { headers: { 'X-Biz': 'biz_burst' } })).status).toBe(200);
  });

  it('the organisation-wide 1,000 per minute holds across routes', async () => {
    clock = new Date('2026-01-01T00:06:00Z');
    const a = app();
    for (let i = 0; i < 1000; i += 100) {
      await Promise.all(Array.from({ length: 100 }, () => a.request('/disbursements/x', { method: 'DELETE', headers: { 'X-Biz': 'biz_org' } })));
    }
    const r = await a.request('/disbursements', { headers: { 'X-Biz': 'biz_org' } });
    expect(r.status).toBe(429);
    expect(await r.json()).toMatchObject({ error: 'rate_limit_exceeded', details: { limit: 1000, rule: 'all' } });
    expect(r.headers.get('X-RateLimit-Limit')).toBe('1000');
  });
});

describe('rate limits: security (per organisation)', () => {
  it("one organisation's exhausted limit leaves another untouched (business and environment scope)", async () => {
    clock = new Date('2026-01-01T00:07:00Z');
    const a = app();
    for (let i = 0; i < 11; i++) await a.request('/disbursements/batch', { method: 'POST', headers: { 'X-Biz': 'biz_noisy' } });
    expect((await a.request('/disbursements/batch', { method: 'POST', headers: { 'X-Biz': 'biz_noisy' } })).status).toBe(429);
    const quiet = await a.request('/disbursements/batch', { method: 'POST', headers: { 'X-Biz': 'biz_quiet' } });
    expect([quiet.status, quiet.headers.get('X-RateLimit-Remaining')]).toEqual([201, '9']);
    // Same business, other environment: its own counters.
    const live = await hitRateLimits(db, 'B:biz_noisy:live', [SURFACE_B_RATE_LIMITS.createBatch], clock);
    expect(live[0]).toMatchObject({ count: 1, exceeded: false });
  });

  it('ended windows are pruned', async () => {
    clock = new Date('2026-01-01T01:00:00Z');
    expect(await pruneRateLimitCounters(db, clock)).toBeGreaterThan(0);
    expect(await db.selectFrom('rate_limit_counters').select('key').where('expires_at', '<', clock).execute()).toEqual([]);
  });
});
