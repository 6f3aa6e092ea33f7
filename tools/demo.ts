import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * `npm run demo`: acts as an integrator against a running `npm run dev`. Funds the sandbox, lists
 * channels, quotes, saves recipients (Mexico CLABE, SEPA IBAN, phone), registers a local webhook
 * receiver, sends payouts that succeed, fail and get refunded, sends a claim link and claims it as
 * the recipient, then prints the final balance and every signed event received (verified).
 *
 * Options (env): DEMO_URL (default http://localhost:$PORT or :3000), DEMO_KEY (default: the sandbox
 * key in $DATA_DIR/dev-credentials.json).
 */
const BASE = (process.env.DEMO_URL ?? `http://localhost:${process.env.PORT ?? 3000}`).replace(/\/$/, '');
const credentialsFile = `${process.env.DATA_DIR ?? './.data'}/dev-credentials.json`;
const KEY =
  process.env.DEMO_KEY ??
  (existsSync(credentialsFile) ? JSON.parse(readFileSync(credentialsFile, 'utf8')).keys.sandbox : undefined);
if (!KEY) {
  console.error(`No key: start \`npm run dev\` first (it writes ${credentialsFile}) or set DEMO_KEY.`);
  process.exit(2);
}
const A = `${BASE}/sandbox/v1`;
const runId = Date.now().toString(36);

async function call(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<any> {
  const headers: Record<string, string> = { Authorization: `Bearer ${KEY}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (idempotencyKey) headers['Idempotency-Key'] = `${runId}-${idempotencyKey}`;
  const res = await fetch(`${A}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
  return json;
}

function step(title: string) {
  console.log(`\n== ${title}`);
}

/** Verifies a Service-Signature header (t=<unix>,v1=<hex>) the way a receiver should. */
function verifySignature(raw: string, header: string, secret: string): boolean {
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=') as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${parts.t}.${raw}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const received: { type: string; id: string; object: string; status: string; verified: boolean }[] = [];
let secret = '';
const receiver = createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    const event = JSON.parse(raw);
    const verified = verifySignature(raw, String(req.headers['service-signature'] ?? ''), secret);
    received.push({ type: event.type, id: event.id, object: event.data?.object?.id, status: event.data?.object?.status, verified });
    res.writeHead(verified ? 200 : 400).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

async function waitFinal(id: string, wanted: string[], timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const p = await call('GET', `/payouts/${id}`);
    if (wanted.includes(p.status)) return p;
    if (Date.now() > deadline) throw new Error(`payout ${id} still ${p.status}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

try {
  step('Register a local webhook receiver (payout.*)');
  const endpoint = await call('POST', '/webhooks', { url: hookUrl, events: ['payout.*'] });
  secret = endpoint.secret;
  console.log(`endpoint ${endpoint.id} -> ${hookUrl} (secret shown once: ${secret.slice(0, 10)}…)`);

  step('Fund the sandbox balance');
  console.log(await call('POST', '/sandbox/fund', { amount: '5000.00' }));

  step('Channels');
  const channels = (await call('GET', '/channels')).data;
  const currencies = new Set(channels.map((c: any) => c.currency));
  console.log(`${channels.length} channels, ${currencies.size} currencies; e.g.`);
  for (const c of channels.filter((c: any) => ['spei_mxn', 'sepa_eur', 'claim_link'].includes(c.id))) {
    console.log(`  ${c.id.padEnd(12)} ${c.status} ${c.currency} fee ${c.fee.percent}% + ${c.fee.flat} USDC, arrives ${c.arrival.min}..${c.arrival.max}`);
  }

  step('Quote 100 USDC to Mexico (spei_mxn)');
  const quote = await call('POST', '/quotes', { channel: 'spei_mxn', source_amount: '100.00' });
  console.log(`${quote.source_amount} USDC -> ${quote.destination_amount} ${quote.destination_currency} at ${quote.rate}; fees ${quote.fees.total} USDC; expires ${quote.expires_at}`);

  step('Save recipients');
  const mx = await call('POST', '/recipients', {
    type: 'bank_account', country: 'MX', currency: 'MXN', name: 'Ana López', kind: 'individual',
    bank_account: { holder_name: 'Ana López', clabe: '002010077777777771', recipient_kind: 'individual' },
  }, 'rcp-mx');
  const eu = await call('POST', '/recipients', {
    type: 'bank_account', country: 'DE', currency: 'EUR', name: 'Jonas Weber', kind: 'individual',
    bank_account: { holder_name: 'Jonas Weber', iban: 'DE89370400440532013000' },
  }, 'rcp-eu');
  const phone = await call('POST', '/recipients', { type: 'phone', name: 'Lucía', phone: { number: '+525512345678' } }, 'rcp-phone');
  for (const r of [mx, eu, phone]) console.log(`  ${r.id} ${r.type} ${r.status} channels=${r.channels.join(',')} ${JSON.stringify(r.bank_account ?? r.phone)}`);

  step('Payouts');
  const ok = await call('POST', '/payouts', { channel: 'spei_mxn', recipient_id: mx.id, quote_id: quote.id, reference: 'Invoice 42' }, 'po-ok');
  const sepa = await call('POST', '/payouts', { channel: 'sepa_eur', recipient_id: eu.id, destination_amount: '50.00', reference: 'Rent' }, 'po-sepa');
  const declined = await call('POST', '/payouts', { channel: 'sepa_eur', recipient_id: eu.id, source_amount: '20', reference: 'sandbox:provider_declined' }, 'po-declined');
  const retried = await call('POST', '/payouts', { channel: 'spei_mxn', recipient_id: mx.id, source_amount: '15', reference: 'sandbox:provider_timeout_once' }, 'po-retry');
  const refunded = await call('POST', '/payouts', { channel: 'spei_mxn', recipient_id: mx.id, source_amount: '10', reference: 'sandbox:refunded_by_provider' }, 'po-refund');
  const claim = await call('POST', '/payouts', { channel: 'claim_link', recipient: { type: 'phone', number: '+525512345678' }, source_amount: '25', message: 'Thanks for your work!' }, 'po-claim');
  for (const p of [ok, sepa, declined, retried, refunded, claim]) console.log(`  created ${p.id} ${p.channel.padEnd(10)} ${p.status} attempts=${p.attempts} ${p.source_amount} USDC -> ${p.destination_amount} ${p.destination_currency}`);

  const awaiting = await waitFinal(claim.id, ['awaiting_claim']);
  console.log(`  claim link ${awaiting.id} is awaiting_claim; the recipient claims it (bank_transfer) ...`);
  await call('POST', `/sandbox/payouts/${claim.id}/claim`, { method: 'bank_transfer' });

  step('Final states');
  const finals = [
    await waitFinal(ok.id, ['succeeded']),
    await waitFinal(sepa.id, ['succeeded']),
    await waitFinal(declined.id, ['failed']),
    await waitFinal(retried.id, ['succeeded']),
    await waitFinal(refunded.id, ['refunded']),
    await waitFinal(claim.id, ['succeeded']),
  ];
  for (const p of finals) console.log(`  ${p.id} ${p.status.padEnd(9)} attempts=${p.attempts} failure=${p.failure ? p.failure.code : '-'} provider_ref=${p.provider_reference ?? '-'}`);
  const receipt = await call('GET', `/payouts/${ok.id}/receipt`);
  console.log(`  receipt of ${ok.id}: ${receipt.url}`);

  step('Balance');
  console.log(await call('GET', '/balance'));

  step('Signed events received');
  const deadline = Date.now() + 20_000;
  const expectedMin = 6 * 2;
  while (received.length < expectedMin && Date.now() < deadline) await new Promise((r) => setTimeout(r, 300));
  await new Promise((r) => setTimeout(r, 1000));
  for (const e of received) console.log(`  ${e.verified ? 'verified' : 'BAD SIG '} ${e.type.padEnd(22)} ${e.object} ${e.status}`);
  const bad = received.filter((e) => !e.verified).length;
  console.log(`\n${received.length} events received, ${bad} with a bad signature.`);
  if (bad > 0) process.exitCode = 1;
  if (!(await (await import('./demo-surface-c')).tourSurfaceC(BASE, KEY))) process.exitCode = 1;
} catch (err) {
  console.error(`\nDemo failed: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  receiver.close();
}
