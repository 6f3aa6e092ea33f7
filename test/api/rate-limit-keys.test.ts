import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { surfaceMounts } from '../../src/api/surfaces';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * docs/security.md: per-key limits on Surfaces A and C (production
 * defaults 100/s live, 25/s sandbox; here 8 and 5 to keep the test short), with X-RateLimit-*
 * headers and a 429 in the surface's error shape. The clock is pinned so windows are exact.
 */

let h: Harness;
let biz: { id: string; sandbox: string; live: string };
let clock = new Date('2026-06-01T12:00:00.100Z');

beforeAll(async () => {
  h = await createHarness({ worker: false, env: { RATE_LIMIT_SANDBOX_PER_SECOND: '5', RATE_LIMIT_LIVE_PER_SECOND: '8' } });
  h.core.now = () => clock;
  biz = await h.business();
});
afterAll(async () => h?.close());

const tick = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};
const windowEnd = () => String(Math.floor(clock.getTime() / 1000) + 1);

describe('per-key rate limit (happy)', () => {
  it('defaults are Stripe-like: 100/s live, 25/s sandbox', async () => {
    const { loadConfig } = await import('../../src/config');
    const c = loadConfig({});
    expect(c.RATE_LIMIT_LIVE_PER_SECOND).toBe(100);
    expect(c.RATE_LIMIT_SANDBOX_PER_SECOND).toBe(25);
  });

  it('every counted answer carries X-RateLimit-Limit/Remaining/Reset', async () => {
    tick(1000);
    for (let i = 0; i < 5; i++) {
      const r = await h.request('GET', '/sandbox/v1/balance', { key: biz.sandbox });
      expect(r.status).toBe(200);
      expect(r.headers.get('X-RateLimit-Limit')).toBe('5');
      expect(r.headers.get('X-RateLimit-Remaining')).toBe(String(4 - i));
      expect(r.headers.get('X-RateLimit-Reset')).toBe(windowEnd());
    }
  });

  it('the OpenAPI document is not limited', async () => {
    for (let i = 0; i < 10; i++) expect((await h.request('GET', '/sandbox/v1/openapi.json')).status).toBe(200);
  });
});

describe('per-key rate limit (error)', () => {
  it('over the limit: 429 rate_limited in Surface A shape with Retry-After; the next window is open again', async () => {
    tick(1000);
    for (let i = 0; i < 5; i++) expect((await h.request('GET', '/sandbox/v1/balance', { key: biz.sandbox })).status).toBe(200);
    const r = await h.request('POST', '/sandbox/v1/quotes', { key: biz.sandbox, body: { channel: 'spei_mxn', source_amount: '10' } });
    expect(r.status).toBe(429);
    expect(r.body.error).toMatchObject({ code: 'rate_limited', param: null });
    expect(r.body.error.request_id).toMatch(/\S/);
    expect(r.headers.get('Retry-After')).toBe('1');
    expect(r.headers.get('X-RateLimit-Remaining')).toBe('0');
    tick(1000);
    expect((await h.request('GET', '/sandbox/v1/balance', { key: biz.sandbox })).status).toBe(200);
  });

  it('live has its own, higher limit', async () => {
    tick(1000);
    for (let i = 0; i < 8; i++) expect((await h.request('GET', '/v1/balance', { key: biz.live })).status).toBe(200);
    const r = await h.request('GET', '/v1/balance', { key: biz.live });
    expect(r.status).toBe(429);
    expect(r.headers.get('X-RateLimit-Limit')).toBe('8');
  });

  it('every rate-limited surface (A, and C once registered) answers 429 in its own shape', async () => {
    for (const m of surfaceMounts().filter((x) => x.surface !== 'B')) {
      tick(1000);
      const key = m.environment === 'live' ? biz.live : biz.sandbox;
      const limit = m.environment === 'live' ? 8 : 5;
      let last: Awaited<ReturnType<Harness['request']>> | undefined;
      for (let i = 0; i <= limit; i++) last = await h.request('GET', `${m.base}/webhooks`, { key });
      expect(last!.status, m.base).toBe(429);
      expect(JSON.stringify(last!.body), m.base).toContain('rate_limited');
    }
  });
});

describe('per-key rate limit (security)', () => {
  it('counted per key: another key of the same business, and another business, are not starved', async () => {
    tick(1000);
    const second = await h.request('POST', '/sandbox/v1/api-keys', { key: biz.sandbox, body: { name: 'second' } });
    expect(second.status).toBe(201);
    tick(1000);
    for (let i = 0; i < 6; i++) await h.request('GET', '/sandbox/v1/balance', { key: biz.sandbox });
    expect((await h.request('GET', '/sandbox/v1/balance', { key: biz.sandbox })).status).toBe(429);
    expect((await h.request('GET', '/sandbox/v1/balance', { key: second.body.key })).status).toBe(200);
    const other = await h.business();
    expect((await h.request('GET', '/sandbox/v1/balance', { key: other.sandbox })).status).toBe(200);
  });

  it('requests without a valid key are refused by authentication, not counted against anyone', async () => {
    tick(1000);
    for (let i = 0; i < 10; i++) expect((await h.request('GET', '/sandbox/v1/balance', { key: 'sk_test_nope' })).status).toBe(401);
    expect((await h.request('GET', '/sandbox/v1/balance', { key: biz.sandbox })).headers.get('X-RateLimit-Remaining')).toBe('4');
  });
});
