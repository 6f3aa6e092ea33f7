/**
 * Surface B webhooks end to end on the dev server (spec "Events, Surface B"): POST /webhooks with
 * the caller's secret, the camelCase envelope, `X-Service-Signature: sha256=<hex>` verified with
 * @octokit/webhooks-methods' `verify`, event names and wildcards. The 0/5m/30m/2h/12h schedule is
 * test/workflows/surface-b-webhook-schedule.test.ts (time-skipping).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
let biz: { id: string; sandbox: string; live: string };
let other: { id: string; sandbox: string; live: string };
const B = '/sandbox/claim/v1';
const SECRET = 'surface-b-secret-0123456789';

interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  body: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
}
let server: Server;
let url: string;
const received: Received[] = [];

beforeAll(async () => {
  h = await createHarness({ env: { WEBHOOK_RETRY_INITIAL: 'PT0.2S' } });
  biz = await h.business();
  other = await h.business();
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, raw, body: JSON.parse(raw) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  expect((await h.request('POST', `${B}/sandbox/fund`, { key: biz.sandbox, body: { amountUsd: '200.00' } })).status).toBe(200);
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await h?.close();
});

async function waitFor<T>(fn: () => T | undefined | false, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const eventFor = (id: string, type: string) => waitFor(() => received.find((r) => r.body.data.id === id && r.body.type === type), `${type} of ${id}`);

describe('POST /webhooks (Surface B): happy', () => {
  it('delivers disbursement.created, .claimed, .delivered signed with the caller secret; octokit verify accepts them', async () => {
    const ep = await h.request('POST', `${B}/webhooks`, { key: biz.sandbox, body: { url, events: ['disbursement.*'], secret: SECRET } });
    expect(ep.status).toBe(201);
    expect(ep.body).toEqual({ id: expect.stringMatching(/^we_/), url, events: ['disbursement.*'], createdAt: expect.any(String) });
    expect(JSON.stringify(ep.body)).not.toContain(SECRET);

    const d = await h.request('POST', `${B}/disbursements`, { key: biz.sandbox, body: { recipientPhone: '+525512345678', amountUsd: '25.00', reference: 'hook-1' } });
    expect(d.status).toBe(201);
    const created = await eventFor(d.body.id, 'disbursement.created');
    expect(created.body).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'disbursement.created',
      createdAt: expect.stringMatching(/Z$/),
      data: {
        id: d.body.id,
        status: 'pending',
        recipientPhone: '+525512345678',
        amountUsd: '25.00',
        reference: 'hook-1',
        payoutMethod: null,
        deliveredAt: null,
        recipientEmail: null,
      },
    });
    const sig = String(created.headers['x-service-signature']);
    expect(sig).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verify(SECRET, created.raw, sig)).toBe(true);
    expect(await verify(SECRET, `${created.raw} `, sig)).toBe(false);
    expect(await verify('another-secret-0123456789', created.raw, sig)).toBe(false);

    // The recipient starts the claim, then chooses a method.
    let claimUrl: string | null = null;
    for (let i = 0; i < 200 && !claimUrl; i++) {
      claimUrl = (await h.request('GET', `${B}/disbursements/${d.body.id}`, { key: biz.sandbox })).body.claimUrl;
      if (!claimUrl) await new Promise((r) => setTimeout(r, 50));
    }
    const path = new URL(claimUrl as string).pathname;
    await h.app.request(`${path}/start`, { method: 'POST' });
    const claimed = await eventFor(d.body.id, 'disbursement.claimed');
    expect(claimed.body.data).toMatchObject({ status: 'claimed', recipientPhone: '+525512345678', amountUsd: '25.00' });
    // A Mexican bank account asks the claimant's identity (docs/screening.md "Identity at claim time").
    const identity = new URLSearchParams({
      method: 'bank_transfer', route: 'spei_mxn', holder_name: 'MARIA LOPEZ GARCIA', clabe: '032180000118359719', recipient_kind: 'individual',
      full_name: 'María López García', date_of_birth: '1990-05-10', national_id_kind: 'curp', national_id: 'LOGM900510MDFPRR07',
    });
    await h.app.request(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: identity.toString() });
    const delivered = await eventFor(d.body.id, 'disbursement.delivered');
    expect(delivered.body.data).toMatchObject({ status: 'delivered', payoutMethod: 'bank_transfer', deliveredAt: expect.stringMatching(/Z$/) });
    expect(await verify(SECRET, delivered.raw, String(delivered.headers['x-service-signature']))).toBe(true);
  });

  it('disbursement.cancelled on DELETE; deposit.* endpoints get no disbursement events', async () => {
    const depositsOnly = `${url}?deposits`;
    expect((await h.request('POST', `${B}/webhooks`, { key: biz.sandbox, body: { url: depositsOnly, events: ['deposit.*'], secret: SECRET } })).status).toBe(201);
    const d = await h.request('POST', `${B}/disbursements`, { key: biz.sandbox, body: { recipientEmail: 'c@example.com', amountUsd: '3.00' } });
    expect((await h.request('DELETE', `${B}/disbursements/${d.body.id}`, { key: biz.sandbox })).status).toBe(200);
    const cancelled = await eventFor(d.body.id, 'disbursement.cancelled');
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', recipientPhone: null, recipientEmail: 'c@example.com', amountUsd: '3.00' });
    // Only the disbursement.* endpoint (no query string) got them.
    await new Promise((r) => setTimeout(r, 500));
    expect(received.filter((r) => r.body.data.id === d.body.id).length).toBe(2); // created + cancelled
  });
});

describe('POST /webhooks (Surface B): errors', () => {
  it('refuses unknown event names, a short secret, a missing secret and a bad url (400 naming the field)', async () => {
    const post = (body: unknown) => h.request('POST', `${B}/webhooks`, { key: biz.sandbox, body });
    const bad = await post({ url, events: ['payout.succeeded'], secret: SECRET });
    expect([bad.status, bad.body.error, bad.body.details.param]).toEqual([400, 'validation_error', 'events.0']);
    const short = await post({ url, events: ['*'], secret: 'short' });
    expect([short.status, short.body.details.param]).toEqual([400, 'secret']);
    const missing = await post({ url, events: ['*'] });
    expect([missing.status, missing.body.details.param]).toEqual([400, 'secret']);
    const notHttps = await post({ url: 'http://example.com/hooks', events: ['*'], secret: SECRET });
    expect([notHttps.status, notHttps.body.details.param]).toEqual([400, 'url']);
  });
});

describe('POST /webhooks (Surface B): security', () => {
  it("401 without a key or with the live key; another organisation's events never reach this endpoint", async () => {
    expect((await h.request('POST', `${B}/webhooks`, { body: { url, events: ['*'], secret: SECRET } })).status).toBe(401);
    expect((await h.request('POST', `${B}/webhooks`, { key: biz.live, body: { url, events: ['*'], secret: SECRET } })).body.error).toBe('environment_mismatch');
    await h.request('POST', `${B}/sandbox/fund`, { key: other.sandbox, body: { amountUsd: '10.00' } });
    const foreign = await h.request('POST', `${B}/disbursements`, { key: other.sandbox, body: { recipientPhone: '+525512345678', amountUsd: '2.00' } });
    expect(foreign.status).toBe(201);
    await new Promise((r) => setTimeout(r, 1500));
    expect(received.some((r) => r.body.data.id === foreign.body.id)).toBe(false);
  });
});
