import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointWantsEvent, isValidEventPattern, matchesEventPattern } from '../../src/domain/webhook-events';
import { loadConfig } from '../../src/config';
import { isLoopbackHost, webhookRetrySchedule } from '../../src/core/webhooks';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
let biz: { id: string; sandbox: string; live: string };

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
});
afterAll(async () => h?.close());

const create = (key: string, body: unknown, base = '/sandbox/v1') => h.request('POST', `${base}/webhooks`, { key, body });

describe('webhooks: happy', () => {
  describe('POST /webhooks (spec "Events", Registration)', () => {
    it('201 returns the endpoint with a whsec_ secret, once; GET does not include it', async () => {
      const r = await create(biz.sandbox, { url: 'https://example.com/hooks', events: ['payout.*', 'deposit.received'] });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ object: 'webhook_endpoint', url: 'https://example.com/hooks', events: ['payout.*', 'deposit.received'] });
      expect(r.body.id).toMatch(/^we_/);
      expect(r.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{20,}$/);
      expect(new Date(r.body.created_at).toISOString()).toBe(r.body.created_at);

      const list = await h.request('GET', '/sandbox/v1/webhooks', { key: biz.sandbox });
      expect(list.status).toBe(200);
      const item = list.body.data.find((e: any) => e.id === r.body.id);
      expect(item).toEqual({ id: r.body.id, object: 'webhook_endpoint', url: 'https://example.com/hooks', events: ['payout.*', 'deposit.received'], created_at: r.body.created_at });
      expect(list.text).not.toContain(r.body.secret);
      expect(list.text).not.toContain('whsec_');
    });

    it('accepts every known type and the wildcards', async () => {
      const r = await create(biz.sandbox, {
        url: 'https://example.com/all',
        events: ['*', 'disbursement.*', 'payment_request.*', 'payout.canceled', 'disbursement.completed_with_failures', 'payment_request.paid'],
      });
      expect(r.status).toBe(201);
    });

    it('https is required; http is accepted for loopback hosts in the sandbox only', async () => {
      for (const url of ['http://localhost:8080/h', 'http://127.0.0.1:9/h', 'http://127.5.6.7/h', 'http://[::1]:3000/h']) {
        const r = await create(biz.sandbox, { url, events: ['*'] });
        expect(r.status, url).toBe(201);
      }
      for (const url of ['http://example.com/h', 'http://10.0.0.1/h', 'ftp://example.com/h', 'http://localhost.example.com/h']) {
        const r = await create(biz.sandbox, { url, events: ['*'] });
        expect(r.status, url).toBe(400);
        expect(r.body.error.param).toBe('url');
      }
      const live = await create(biz.live, { url: 'http://127.0.0.1:8080/h', events: ['*'] }, '/v1');
      expect(live.status).toBe(400);
      expect(live.body.error.code).toBe('validation_error');
      expect(live.body.error.param).toBe('url');
      const liveHttps = await create(biz.live, { url: 'https://example.com/live', events: ['*'] }, '/v1');
      expect(liveHttps.status).toBe(201);
    });

    it('replays the first response for a repeated Idempotency-Key', async () => {
      const body = { url: 'https://example.com/idem', events: ['payout.*'] };
      const a = await h.request('POST', '/sandbox/v1/webhooks', { key: biz.sandbox, body, headers: { 'Idempotency-Key': 'wh-1' } });
      const b = await h.request('POST', '/sandbox/v1/webhooks', { key: biz.sandbox, body, headers: { 'Idempotency-Key': 'wh-1' } });
      expect(a.status).toBe(201);
      expect(b.status).toBe(201);
      expect(b.body.id).toBe(a.body.id);
      expect(b.headers.get('Idempotent-Replayed')).toBe('true');
    });
  });

  describe('GET /webhooks (list envelope)', () => {
    it('pages newest first with limit and cursor, without gaps or duplicates', async () => {
      const b = await h.business();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await create(b.sandbox, { url: `https://example.com/p${i}`, events: ['*'] });
        ids.push(r.body.id);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
        const r = await h.request('GET', `/sandbox/v1/webhooks${q}`, { key: b.sandbox });
        expect(r.status).toBe(200);
        expect(r.body.data.length).toBeLessThanOrEqual(2);
        seen.push(...r.body.data.map((e: any) => e.id));
        cursor = r.body.next_cursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual([...ids].reverse());
    });
  });

  describe('DELETE /webhooks/{id}', () => {
    it('204, then the endpoint is gone from the list and a second delete is 404', async () => {
      const c = await create(biz.sandbox, { url: 'https://example.com/delete-me', events: ['*'] });
      const d = await h.request('DELETE', `/sandbox/v1/webhooks/${c.body.id}`, { key: biz.sandbox });
      expect(d.status).toBe(204);
      expect(d.text).toBe('');
      const list = await h.request('GET', '/sandbox/v1/webhooks?limit=200', { key: biz.sandbox });
      expect(list.body.data.map((e: any) => e.id)).not.toContain(c.body.id);
      const again = await h.request('DELETE', `/sandbox/v1/webhooks/${c.body.id}`, { key: biz.sandbox });
      expect(again.status).toBe(404);
      expect(again.body.error.code).toBe('not_found');
    });
  });
});

describe('webhooks: error', () => {
  describe('POST /webhooks', () => {
    it('400 validation_error param url when url is missing', async () => {
      const r = await create(biz.sandbox, { events: ['payout.*'] });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.param).toBe('url');
    });

    it('400 param url when url is not a URL', async () => {
      const r = await create(biz.sandbox, { url: 'not a url', events: ['payout.*'] });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe('url');
    });

    it('400 param events when events is missing or empty', async () => {
      for (const body of [{ url: 'https://example.com/h' }, { url: 'https://example.com/h', events: [] }]) {
        const r = await create(biz.sandbox, body);
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe('validation_error');
        expect(r.body.error.param).toBe('events');
      }
    });

    it('400 param events.<i> for an unknown event type or wildcard', async () => {
      const a = await create(biz.sandbox, { url: 'https://example.com/h', events: ['payout.exploded'] });
      expect(a.status).toBe(400);
      expect(a.body.error.code).toBe('validation_error');
      expect(a.body.error.param).toBe('events.0');
      expect(a.body.error.message).toMatch(/payout\.exploded/);
      const b = await create(biz.sandbox, { url: 'https://example.com/h', events: ['payout.succeeded', 'refund.*'] });
      expect(b.status).toBe(400);
      expect(b.body.error.param).toBe('events.1');
    });
  });

  describe('GET /webhooks', () => {
    it('400 for limit out of range or a forged cursor', async () => {
      const a = await h.request('GET', '/sandbox/v1/webhooks?limit=201', { key: biz.sandbox });
      expect(a.status).toBe(400);
      expect(a.body.error.param).toBe('limit');
      const c = await h.request('GET', '/sandbox/v1/webhooks?cursor=nope', { key: biz.sandbox });
      expect(c.status).toBe(400);
      expect(c.body.error.param).toBe('cursor');
    });
  });
});

describe('webhooks: security', () => {
  describe('tenancy, environments and authentication', () => {
    it('is scoped to the business and environment', async () => {
      const b = await h.business();
      await create(b.sandbox, { url: 'https://example.com/sandbox-only', events: ['*'] });
      const live = await h.request('GET', '/v1/webhooks', { key: b.live });
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ data: [], next_cursor: null });
      const other = await h.request('GET', '/sandbox/v1/webhooks', { key: biz.sandbox });
      expect(other.body.data.map((e: any) => e.url)).not.toContain('https://example.com/sandbox-only');
    });

    it("404 not_found for another business's or environment's endpoint, which stays", async () => {
      const c = await create(biz.sandbox, { url: 'https://example.com/mine', events: ['*'] });
      const other = await h.business();
      const a = await h.request('DELETE', `/sandbox/v1/webhooks/${c.body.id}`, { key: other.sandbox });
      expect(a.status).toBe(404);
      expect(a.body.error.code).toBe('not_found');
      const b = await h.request('DELETE', `/v1/webhooks/${c.body.id}`, { key: biz.live });
      expect(b.status).toBe(404);
      const list = await h.request('GET', '/sandbox/v1/webhooks?limit=200', { key: biz.sandbox });
      expect(list.body.data.map((e: any) => e.id)).toContain(c.body.id);
    });

    it('401 without a key, and for a live key on the sandbox address', async () => {
      const none = await h.request('GET', '/sandbox/v1/webhooks');
      expect(none.status).toBe(401);
      expect(none.body.error.code).toBe('authentication_required');
      const wrong = await create(biz.live, { url: 'https://example.com/h', events: ['*'] });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('environment_mismatch');
      const wrongList = await h.request('GET', '/sandbox/v1/webhooks', { key: biz.live });
      expect(wrongList.status).toBe(401);
    });

    it('the OpenAPI document describes the webhook routes', async () => {
      const r = await h.request('GET', '/sandbox/v1/openapi.json');
      expect(Object.keys(r.body.paths)).toEqual(expect.arrayContaining(['/webhooks', '/webhooks/{id}']));
      expect(r.body.paths['/webhooks'].post.responses['201']).toBeDefined();
    });
  });
});

describe('event patterns and settings (unit)', () => {
  it('matches exact types, family wildcards and *', () => {
    expect(matchesEventPattern('payout.*', 'payout.succeeded')).toBe(true);
    expect(matchesEventPattern('payout.*', 'payouts.succeeded')).toBe(false);
    expect(matchesEventPattern('payout.*', 'disbursement.launched')).toBe(false);
    expect(matchesEventPattern('*', 'deposit.received')).toBe(true);
    expect(matchesEventPattern('payout.failed', 'payout.failed')).toBe(true);
    expect(matchesEventPattern('payout.failed', 'payout.succeeded')).toBe(false);
    expect(endpointWantsEvent(['deposit.*', 'payout.failed'], 'payout.failed')).toBe(true);
    expect(endpointWantsEvent(['deposit.*'], 'payout.failed')).toBe(false);
    expect(isValidEventPattern('payment_request.*')).toBe(true);
    expect(isValidEventPattern('payout.')).toBe(false);
    expect(isValidEventPattern('pay*')).toBe(false);
  });

  it('recognises loopback hosts', () => {
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
    expect(isLoopbackHost('localhost.evil.com')).toBe(false);
  });

  it('WEBHOOK_RETRY_INITIAL defaults to PT5S and refuses what is not a duration', () => {
    expect(loadConfig({}).WEBHOOK_RETRY_INITIAL).toBe('PT5S');
    expect(loadConfig({ WEBHOOK_RETRY_INITIAL: 'PT0.2S' }).WEBHOOK_RETRY_INITIAL).toBe('PT0.2S');
    expect(webhookRetrySchedule({ config: loadConfig({ WEBHOOK_RETRY_INITIAL: 'PT0.2S' }) } as any)).toEqual({
      initialIntervalMs: 200,
      backoffCoefficient: 2,
      maximumIntervalMs: 3_600_000,
      windowMs: 86_400_000,
      attemptTimeoutMs: 15_000,
    });
    for (const bad of ['soon', 'P', 'PT', '5 seconds', '0']) {
      expect(() => loadConfig({ WEBHOOK_RETRY_INITIAL: bad }), bad).toThrow(/WEBHOOK_RETRY_INITIAL/);
    }
  });
});
