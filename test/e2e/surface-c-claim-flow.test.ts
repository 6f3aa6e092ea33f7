/**
 * Surface C end to end (docs/surface-c.md), over real HTTP: the API served on a loopback port
 * (with the worker and relay of the harness), a webhook receiver on another port. Create a
 * recipient, send a payout with a delivery channel, read the recorded notification in Spanish,
 * follow its claim link, withdraw by bank transfer on the claim page, and receive payout.created,
 * payout.notification_sent and payout.completed, each verified with the `stripe` package.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tourSurfaceC } from '../../tools/demo-surface-c';
import { createHarness, type Harness } from '../helpers/harness';

const stripe = new Stripe('sk_test_x');

interface Delivery {
  raw: string;
  signature: string;
  eventId: string;
  body: { id: string; type: string; created_at: string; data: { object: { id: string; object: string; status: string } } };
}

let h: Harness;
let api: ReturnType<typeof serve>;
let apiUrl: string;
let receiver: Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];

async function listen(server: { listen: (port: number, host: string, cb: () => void) => unknown; address: () => AddressInfo | string | null }): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  // The API port is known before the harness exists, so claim links point at it (PUBLIC_URL).
  let fetchApp: (req: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 });
  api = serve({ fetch: (req) => fetchApp(req), port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => (api.listening ? r() : api.once('listening', () => r())));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  h = await createHarness({ env: { PUBLIC_URL: apiUrl } });
  fetchApp = (req) => h.app.fetch(req);

  receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      deliveries.push({ raw, signature: String(req.headers['service-signature']), eventId: String(req.headers['service-event-id']), body: JSON.parse(raw) });
      res.writeHead(200).end('ok');
    });
  });
  receiverUrl = `http://127.0.0.1:${await listen(receiver)}/hooks`;
});

afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
  await new Promise((r) => api?.close(r));
  await h?.close();
});

async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('Surface C end to end over HTTP', () => {
  it('recipient -> payout by WhatsApp -> Spanish message -> claim page -> bank transfer -> signed payout.created, notification_sent, completed', async () => {
    const b = await h.business();
    await h.db.updateTable('businesses').set({ name: 'Acme Ltd' }).where('id', '=', b.id).execute();
    const base = `${apiUrl}/sandbox/guide/v1`;
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${b.sandbox}`, 'Content-Type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };

    expect((await call('POST', '/sandbox/fund', { amount: '100' })).status).toBe(200);
    const hook = await call('POST', '/webhooks', { url: receiverUrl, events: ['payout.*'] });
    expect(hook.status).toBe(201);
    const secret: string = hook.body.secret;

    const recipient = await call('POST', '/recipients', { phone_number: '+525512345678', country: 'MX' }, { 'Idempotency-Key': 'e2e-rcp' });
    expect(recipient.status).toBe(201);
    expect(recipient.body).toMatchObject({ object: 'recipient', phone_number: '+525512345678', country: 'MX' });

    const payout = await call(
      'POST',
      '/payouts',
      { recipient_id: recipient.body.id, amount: '25.00', currency: 'USD', delivery_channel: 'whatsapp', destination: '+525512345678', notification: { send: true, language: 'es' } },
      { 'Idempotency-Key': 'e2e-po' },
    );
    expect(payout.status).toBe(201);
    expect(payout.body).toMatchObject({ status: 'pending', amount: '25.00', currency: 'USD', delivery_channel: 'whatsapp' });
    const id: string = payout.body.id;

    // The recorded notification, in Spanish, carrying the claim link.
    const message = await waitFor(async () => (await call('GET', `/sandbox/notifications?payout_id=${id}`)).body.data[0], 'the recorded notification');
    expect(message).toMatchObject({ channel: 'whatsapp', destination: '+525512345678', language: 'es' });
    expect(message.body).toMatch(/^Acme Ltd te envió 25,00 USD\. Elige cómo recibirlo aquí: http:\/\/127\.0\.0\.1:\d+\/c\/[A-Za-z0-9_-]+/);
    const link = /(http:\/\/\S+\/c\/[A-Za-z0-9_-]+)/.exec(message.body)?.[1] as string;
    expect(link).toBe(message.claim_url);

    // The recipient follows the link and withdraws by bank transfer on the claim page.
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('25.00 USD');
    const start = await fetch(`${link}/start`, { method: 'POST', redirect: 'manual' });
    expect(start.status).toBe(303);
    const methods = await (await fetch(link)).text();
    expect(methods).toContain('value="bank_transfer"');
    // A Mexican bank account asks the claimant's identity (docs/screening.md "Identity at claim time").
    expect(methods).toContain('name="national_id"');
    const claim = await fetch(link, {
      method: 'POST',
      body: new URLSearchParams({
        method: 'bank_transfer', route: 'spei_mxn', holder_name: 'MARIA LOPEZ GARCIA', clabe: '032180000118359719', recipient_kind: 'individual',
        full_name: 'María López García', date_of_birth: '1990-05-10', national_id_kind: 'curp', national_id: 'LOGM900510MDFPRR07',
      }),
      redirect: 'manual',
    });
    expect(claim.status).toBe(303);

    const done = await waitFor(async () => {
      const g = await call('GET', `/payouts/${id}`);
      return g.body.status === 'completed' && g.body;
    }, 'the payout to complete');
    expect(done).toMatchObject({ payout_method: 'bank_transfer', notification: { status: 'sent', channel: 'whatsapp', destination: '+52••••••5678' } });
    expect(done.completed_at).toEqual(expect.any(String));

    // The three Surface C events, each signed (verified by the stripe package) and in the Surface C envelope.
    const types = ['payout.created', 'payout.notification_sent', 'payout.completed'];
    await waitFor(async () => types.every((t) => deliveries.some((d) => d.body.type === t && d.body.data.object.id === id)), 'the three events');
    const mine = deliveries.filter((d) => d.body.data.object.id === id);
    expect(mine.map((d) => d.body.type)).toEqual(types);
    expect(mine.map((d) => d.body.data.object.status)).toEqual(['pending', 'pending', 'completed']);
    for (const d of mine) {
      expect(Object.keys(d.body).sort()).toEqual(['created_at', 'data', 'id', 'type']);
      expect(d.body.data.object).toEqual({ id, object: 'payout', status: d.body.data.object.status });
      expect(d.eventId).toBe(d.body.id);
      expect(d.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(() => stripe.webhooks.signature!.verifyHeader(d.raw, d.signature, secret)).not.toThrow();
      expect(() => stripe.webhooks.signature!.verifyHeader(d.raw.replace('"payout"', '"payouts"'), d.signature, secret)).toThrow();
    }
  }, 180_000);

  it("npm run demo's Surface C tour (tools/demo-surface-c.ts) runs green against the served API", async () => {
    const b = await h.business();
    expect(await tourSurfaceC(apiUrl, b.sandbox)).toBe(true);
    // The tour deletes the webhook endpoint it registered (tools/loopback-endpoints.ts): none is left
    // pointing at its closed loopback port.
    const left = await fetch(`${apiUrl}/sandbox/guide/v1/webhooks`, { headers: { Authorization: `Bearer ${b.sandbox}` } });
    expect(left.status).toBe(200);
    expect(((await left.json()) as { data: unknown[] }).data).toEqual([]);
  }, 180_000);
});
