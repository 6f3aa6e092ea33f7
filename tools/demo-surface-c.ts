import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LoopbackEndpoints } from './loopback-endpoints';

/**
 * The Surface C part of `npm run demo` (tools/demo.ts calls {@link tourSurfaceC}): against a running
 * `npm run dev`, at `/sandbox/guide/v1`. Registers a local webhook receiver, creates a recipient,
 * sends a payout by WhatsApp in Spanish, reads the message the sandbox recorded, opens its claim
 * link and withdraws by bank transfer on the claim page, sends a batch (e-mail in English, SMS in
 * Portuguese), creates a payment link, lists payouts, and prints every Surface C event received with its signature checked.
 * Returns false if something failed. Runnable alone: `tsx tools/demo-surface-c.ts` with DEMO_URL
 * and DEMO_KEY. Its webhook endpoint is deleted when the tour ends; it is remembered in `endpoints`
 * (the demo's, when given) until then, so that a Ctrl-C deletes it too (tools/loopback-endpoints.ts).
 */
export async function tourSurfaceC(baseUrl: string, key: string, endpoints = new LoopbackEndpoints(baseUrl.replace(/\/$/, ''), key)): Promise<boolean> {
  const C = `${baseUrl.replace(/\/$/, '')}/sandbox/guide/v1`;
  const runId = Date.now().toString(36);
  const call = async (method: string, path: string, body?: unknown, idem?: string): Promise<any> => {
    const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idem) headers['Idempotency-Key'] = `${runId}-${idem}`;
    const res = await fetch(`${C}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const step = (title: string) => console.log(`\n== Surface C: ${title}`);
  const until = async <T>(fn: () => Promise<T | undefined | false>, what: string, ms = 30_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  };

  let secret = '';
  const received: { type: string; payout: string; status: string; verified: boolean }[] = [];
  const verify = (raw: string, header: string) => {
    const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=') as [string, string]));
    if (!Number.isInteger(Number(parts.t)) || Math.abs(Date.now() / 1000 - Number(parts.t)) > 300) return false;
    const expected = createHmac('sha256', secret).update(`${parts.t}.${raw}`).digest();
    const given = Buffer.from(parts.v1 ?? '', 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  const receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const e = JSON.parse(raw);
      const verified = verify(raw, String(req.headers['service-signature'] ?? ''));
      received.push({ type: e.type, payout: e.data?.object?.id, status: e.data?.object?.status, verified });
      res.writeHead(verified ? 200 : 400).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  try {
    step('webhook endpoint (payout.*) and funds');
    const endpoint = await call('POST', '/webhooks', { url: hookUrl, events: ['payout.*'] }, 'hook');
    endpoints.add({ surface: 'C', base: '/sandbox/guide/v1', id: endpoint.id });
    secret = endpoint.secret;
    console.log(`endpoint ${endpoint.id} -> ${hookUrl}`);
    const balance = await call('POST', '/sandbox/fund', { amount: '200.00' }, 'fund');
    console.log(`balance available ${balance.available} ${balance.currency}`);

    step('recipient');
    const recipient = await call('POST', '/recipients', { phone_number: '+525512345678', email: 'lucia@example.com', name: 'Lucía' }, 'rcp');
    console.log(`  ${recipient.id} ${recipient.phone_number} ${recipient.email} country=${recipient.country}`);

    step('payout by WhatsApp, in Spanish');
    const payout = await call('POST', '/payouts', {
      recipient_id: recipient.id, amount: '25.00', currency: 'USD', delivery_channel: 'whatsapp', destination: '+525512345678',
      notification: { send: true, language: 'es' },
    }, 'po');
    console.log(`  ${payout.id} ${payout.status} ${payout.amount} ${payout.currency}, notification ${payout.notification.status} to ${payout.notification.destination}`);
    const message = await until(async () => (await call('GET', `/sandbox/notifications?payout_id=${payout.id}`)).data[0], 'the recorded message');
    console.log(`  recorded ${message.channel} message (${message.language}): "${message.body}"`);

    step('the recipient opens the claim link and withdraws by bank transfer');
    const page = await fetch(message.claim_url);
    console.log(`  GET ${message.claim_url} -> ${page.status}`);
    const started = await fetch(`${message.claim_url}/start`, { method: 'POST', redirect: 'manual' });
    console.log(`  POST claim (start) -> ${started.status}`);
    // A Mexican bank account: the page asks the account and the claimant's identity (docs/screening.md "Identity at claim time").
    const form = new URLSearchParams({
      method: 'bank_transfer', route: 'spei_mxn', holder_name: 'MARIA LOPEZ GARCIA', clabe: '032180000118359719', recipient_kind: 'individual',
      full_name: 'María López García', date_of_birth: '1990-05-10', national_id_kind: 'curp', national_id: 'LOGM900510MDFPRR07',
    });
    const claimed = await fetch(message.claim_url, { method: 'POST', body: form, redirect: 'manual' });
    console.log(`  POST bank_transfer -> ${claimed.status}`);
    const done = await until(async () => {
      const p = await call('GET', `/payouts/${payout.id}`);
      return p.status === 'completed' && p;
    }, 'the payout to complete');
    console.log(`  ${done.id} ${done.status} by ${done.payout_method}; notification ${done.notification.status} at ${done.notification.sent_at}`);

    step('batch (all or nothing): e-mail in English, SMS in Portuguese');
    const batch = await call('POST', '/payouts/batch', {
      payouts: [
        { email: 'sam@example.com', amount: '10.00', currency: 'USD', delivery_channel: 'email' },
        { destination: '+5511987654321', amount: '12.50', currency: 'USD', delivery_channel: 'sms' },
      ],
    }, 'batch');
    for (const p of batch.data) console.log(`  ${p.id} ${p.status} ${p.amount} ${p.currency} via ${p.delivery_channel} (${p.notification.language})`);
    for (const p of batch.data) {
      const m = await until(async () => (await call('GET', `/sandbox/notifications?payout_id=${p.id}`)).data[0], 'a batch message');
      console.log(`  ${m.channel}: ${m.subject ? `[${m.subject}] ` : ''}${m.body}`);
    }

    step('payment link');
    const link = await call('POST', '/payment-links', { name: 'Invoices', methods: ['bank_transfer', 'card'] }, 'link');
    const got = await call('GET', `/payment-links/${link.id}`);
    console.log(`  ${got.id} ${got.url} methods=${got.methods.map((m: { type: string; ready: boolean }) => `${m.type}${m.ready ? '' : ' (not ready)'}`).join(', ')}`);

    step('list');
    const list = await call('GET', '/payouts?limit=5');
    for (const p of list.data) console.log(`  ${p.id} ${p.status.padEnd(10)} ${p.amount} ${p.currency} ${p.delivery_channel ?? '-'}`);

    step('signed events received');
    await until(async () => ['payout.created', 'payout.notification_sent', 'payout.completed'].every((t) => received.some((e) => e.type === t && e.payout === payout.id)), 'the events', 20_000);
    await new Promise((r) => setTimeout(r, 1000));
    for (const e of received) console.log(`  ${e.verified ? 'verified' : 'BAD SIG '} ${e.type.padEnd(24)} ${e.payout} ${e.status}`);
    const bad = received.filter((e) => !e.verified).length;
    console.log(`\nSurface C: ${received.length} events received, ${bad} with a bad signature.`);
    return bad === 0;
  } catch (err) {
    console.error(`\nSurface C demo failed: ${(err as Error).message}`);
    return false;
  } finally {
    await endpoints.deleteAll('C');
    receiver.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const key = process.env.DEMO_KEY;
  if (!key) {
    console.error('Set DEMO_KEY (a sk_test_ key) and optionally DEMO_URL.');
    process.exit(2);
  }
  process.exitCode = (await tourSurfaceC(process.env.DEMO_URL ?? `http://localhost:${process.env.PORT ?? 3000}`, key)) ? 0 : 1;
}
