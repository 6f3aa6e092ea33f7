import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SURFACE_C_EVENT_TYPES } from '../../src/domain/surface-c';
import { launchBrowser, serveHarness } from '../helpers/browser';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * docs/security.md "Secrets and keys are shown once": a webhook secret and an API key appear in
 * their creation response only; idempotent replays answer without them and say so; the
 * idempotency table never holds them; such responses are `Cache-Control: no-store`; public pages
 * send a strict Content-Security-Policy.
 */

let h: Harness;
let biz: { id: string; sandbox: string; live: string };
const logLines: string[] = [];

beforeAll(async () => {
  h = await createHarness({ worker: false });
  // every log line of the app, at the most verbose level, to look for secrets in
  h.core.log = pino({ level: 'trace' }, new Writable({ write: (chunk, _enc, cb) => (logLines.push(String(chunk)), cb()) }));
  biz = await h.business();
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';

async function idempotencyRows() {
  return h.db.selectFrom('idempotency_keys').selectAll().where('business_id', '=', biz.id).execute();
}

describe('POST /webhooks: the secret is shown once (happy)', () => {
  it('first answer has the secret and no-store; the replay has the same endpoint without it, and says so', async () => {
    const body = { url: 'https://hooks.example.com/once', events: ['payout.*'] };
    const first = await h.request('POST', `${A}/webhooks`, { key: biz.sandbox, body, headers: { 'Idempotency-Key': 'sec-wh-1' } });
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    expect(first.headers.get('Cache-Control')).toBe('no-store');
    expect(first.headers.get('Secret-Omitted')).toBeNull();

    const replay = await h.request('POST', `${A}/webhooks`, { key: biz.sandbox, body, headers: { 'Idempotency-Key': 'sec-wh-1' } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect(replay.headers.get('Secret-Omitted')).toBe('secret');
    expect(replay.headers.get('Cache-Control')).toBe('no-store');
    const { secret, ...rest } = first.body;
    expect(replay.body).toEqual(rest);
    expect(replay.text).not.toContain(secret);
    expect(replay.text).not.toContain('whsec_');

    // one endpoint, and the table holds no secret
    const endpoints = await h.db.selectFrom('webhook_endpoints').select('id').where('business_id', '=', biz.id).execute();
    expect(endpoints).toHaveLength(1);
    const rows = await idempotencyRows();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(JSON.stringify(rows)).not.toContain('whsec_');
  });
});

describe('Surface C POST /webhooks: the secret is shown once too', () => {
  it('the replay answers without the secret and says so; the table holds none', async () => {
    const body = { url: 'https://hooks.example.com/guide', events: [SURFACE_C_EVENT_TYPES[0]] };
    const first = await h.request('POST', '/sandbox/guide/v1/webhooks', { key: biz.sandbox, body, headers: { 'Idempotency-Key': 'sec-c-1' } });
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    const replay = await h.request('POST', '/sandbox/guide/v1/webhooks', { key: biz.sandbox, body, headers: { 'Idempotency-Key': 'sec-c-1' } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('Secret-Omitted')).toBe('secret');
    expect(replay.body.id).toBe(first.body.id);
    expect(replay.text).not.toContain('whsec_');
    expect(JSON.stringify(await idempotencyRows())).not.toContain(first.body.secret);
  });
});

describe('POST /api-keys honours Idempotency-Key (happy)', () => {
  it('a retry never mints a second key; the replay answers without the key', async () => {
    const before = await h.db.selectFrom('api_keys').select('id').where('business_id', '=', biz.id).execute();
    const body = { name: 'Approver' };
    const first = await h.request('POST', `${A}/api-keys`, { key: biz.sandbox, body, headers: { 'Idempotency-Key': 'sec-key-1' } });
    expect(first.status).toBe(201);
    expect(first.body.key).toMatch(/^sk_test_/);
    expect(first.headers.get('Cache-Control')).toBe('no-store');
    const replay = await h.request('POST', `${A}/api-keys`, { key: biz.sandbox, body, headers: { 'Idempotency-Key': 'sec-key-1' } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect(replay.headers.get('Secret-Omitted')).toBe('key');
    expect(replay.body.id).toBe(first.body.id);
    expect(replay.body.key).toBeUndefined();
    expect(replay.text).not.toContain(first.body.key);
    const after = await h.db.selectFrom('api_keys').select('id').where('business_id', '=', biz.id).execute();
    expect(after.length).toBe(before.length + 1);
    expect(JSON.stringify(await idempotencyRows())).not.toContain(first.body.key);
    // the key shown once works
    expect((await h.request('GET', `${A}/balance`, { key: first.body.key })).status).toBe(200);
  });

  it('concurrent retries with one key mint exactly one API key', async () => {
    const before = (await h.db.selectFrom('api_keys').select('id').where('business_id', '=', biz.id).execute()).length;
    const rs = await Promise.all(
      Array.from({ length: 8 }, () => h.request('POST', `${A}/api-keys`, { key: biz.sandbox, body: { name: 'Race' }, headers: { 'Idempotency-Key': 'sec-key-race' } })),
    );
    for (const r of rs) expect([201, 409]).toContain(r.status);
    const after = (await h.db.selectFrom('api_keys').select('id').where('business_id', '=', biz.id).execute()).length;
    expect(after).toBe(before + 1);
    const withKey = rs.filter((r) => r.status === 201 && r.body.key);
    expect(withKey).toHaveLength(1);
  });
});

describe('secrets shown once (error)', () => {
  it('the same Idempotency-Key with another body is 409 and shows no secret', async () => {
    const r = await h.request('POST', `${A}/api-keys`, { key: biz.sandbox, body: { name: 'Other' }, headers: { 'Idempotency-Key': 'sec-key-1' } });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('idempotency_conflict');
    expect(r.text).not.toContain('sk_test_');
  });

  it('a member key cannot create keys; the refusal is replayed without minting', async () => {
    const member = await h.request('POST', `${A}/api-keys`, { key: biz.sandbox, body: { name: 'Member' } });
    const r = await h.request('POST', `${A}/api-keys`, { key: member.body.key, body: { name: 'X' }, headers: { 'Idempotency-Key': 'm-1' } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('permission_denied');
  });
});

describe('secrets (security): nowhere else', () => {
  it('no log line carries a webhook secret or an API key', async () => {
    const secrets: string[] = [];
    const w = await h.request('POST', `${A}/webhooks`, { key: biz.sandbox, body: { url: 'https://hooks.example.com/log', events: ['*'] } });
    secrets.push(w.body.secret);
    const k = await h.request('POST', `${A}/api-keys`, { key: biz.sandbox, body: { name: 'Log' } });
    secrets.push(k.body.key, biz.sandbox);
    await h.request('GET', `${A}/webhooks`, { key: k.body.key });
    const all = logLines.join('\n');
    for (const s of secrets) expect(all).not.toContain(s);
    expect(all).not.toMatch(/whsec_|sk_test_|sk_live_/);
  });

  it('GET /webhooks never shows secrets; error messages do not echo the bearer key', async () => {
    const list = await h.request('GET', `${A}/webhooks`, { key: biz.sandbox });
    expect(list.text).not.toContain('whsec_');
    const bad = await h.request('GET', `${A}/webhooks`, { key: 'sk_test_notarealkey123' });
    expect(bad.status).toBe(401);
    expect(bad.text).not.toContain('notarealkey123');
    const wrongEnv = await h.request('GET', `${A}/webhooks`, { key: biz.live });
    expect(wrongEnv.status).toBe(401);
    expect(wrongEnv.text).not.toContain(biz.live);
  });

  it('API responses are no-store and nosniff', async () => {
    const r = await h.request('GET', `${A}/balance`, { key: biz.sandbox });
    expect(r.headers.get('Cache-Control')).toBe('no-store');
    expect(r.headers.get('X-Content-Type-Options')).toBe('nosniff');
    const root = await h.request('GET', '/');
    expect(root.status).toBe(302);
    expect(root.headers.get('X-Content-Type-Options')).toBe('nosniff');
  });

  it('public pages send a strict CSP: no unsafe-inline, inline styles by hash, no framing, no referrer', async () => {
    for (const path of ['/r/not-a-token', '/c/not-a-token']) {
      const r = await h.request('GET', path);
      expect(r.status).toBe(404);
      const csp = r.headers.get('Content-Security-Policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("form-action 'self'");
      expect(csp).not.toContain('unsafe-inline');
      if (r.text.includes('<style')) expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/]+=*'/);
      expect(r.headers.get('X-Frame-Options')).toBe('DENY');
      expect(r.headers.get('Referrer-Policy')).toBe('no-referrer');
    }
    const docs = await h.request('GET', '/docs');
    expect(docs.headers.get('Content-Security-Policy')).toBeNull();
  });

  it('in headless Chromium the page styles apply under the CSP and an injected script is refused', async () => {
    const server = await serveHarness(h);
    const { browser, close } = await launchBrowser();
    try {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
      });
      const res = await page.goto(`${server.origin}/r/not-a-token`);
      expect(res?.status()).toBe(404);
      expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
      const maxWidth = await page.evaluate('getComputedStyle(document.body).maxWidth');
      expect(maxWidth).not.toBe('none'); // the inline <style> (max-width: 36rem) was applied
      // a script injected into the page is refused by the policy
      const ran = await page.evaluate(`(() => {
        const s = document.createElement('script');
        s.textContent = 'window.__injected = true';
        document.body.appendChild(s);
        return window.__injected === true;
      })()`);
      expect(ran).toBe(false);
      expect(violations.some((v) => /script/i.test(v))).toBe(true);
      expect(violations.filter((v) => /style/i.test(v))).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  });
});
