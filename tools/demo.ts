import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPayoutsClient, unwrap } from '../clients/typescript';
import { LoopbackEndpoints } from './loopback-endpoints';

/**
 * `npm run demo`: acts as an integrator against a running `npm run dev`. Funds the sandbox, lists
 * channels, quotes, saves recipients (Mexico CLABE, SEPA IBAN, phone), registers a local webhook
 * receiver, sends payouts that succeed, fail and get refunded, sends a claim link and claims it as
 * the recipient, then prints the final balance and every signed event received (verified).
 *
 * Every call goes through the typed client (clients/typescript: types generated from the served
 * OpenAPI documents, openapi-fetch), so the demo also proves the client works against the service.
 *
 * Every webhook endpoint it registers (one per surface) is deleted again when it ends, also on a
 * failure or Ctrl-C (tools/loopback-endpoints.ts), as `npm run listen` does.
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
const api = createPayoutsClient({ baseUrl: BASE, apiKey: KEY, environment: 'sandbox' });
const runId = Date.now().toString(36);
/** Idempotency-Key header of one demo step (unique per run). */
const idem = (key: string) => ({ header: { 'Idempotency-Key': `${runId}-${key}` } });

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
const endpoints = new LoopbackEndpoints(BASE, KEY);
endpoints.deleteOnSignals(() => receiver.close());

async function waitFinal(id: string, wanted: string[], timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const p = unwrap(await api.GET('/payouts/{id}', { params: { path: { id } } }));
    if (wanted.includes(p.status)) return p;
    if (Date.now() > deadline) throw new Error(`payout ${id} still ${p.status}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

try {
  step('Register a local webhook receiver (payout.*)');
  const endpoint = unwrap(await api.POST('/webhooks', { body: { url: hookUrl, events: ['payout.*'] } }));
  if (!endpoint.secret) throw new Error('no secret in the creation response'); // absent only in an idempotent replay
  endpoints.add({ surface: 'A', base: '/sandbox/v1', id: endpoint.id });
  secret = endpoint.secret;
  console.log(`endpoint ${endpoint.id} -> ${hookUrl} (secret shown once: ${secret.slice(0, 10)}…)`);

  step('Fund the sandbox balance');
  console.log(unwrap(await api.POST('/sandbox/fund', { body: { amount: '5000.00' } })));

  step('Channels');
  const channels = unwrap(await api.GET('/channels')).data;
  const currencies = new Set(channels.map((c) => c.currency));
  console.log(`${channels.length} channels, ${currencies.size} currencies; e.g.`);
  for (const c of channels.filter((c) => ['spei_mxn', 'sepa_eur', 'claim_link'].includes(c.id))) {
    console.log(`  ${c.id.padEnd(12)} ${c.status} ${c.currency} fee ${c.fee.percent}% + ${c.fee.flat} USDC, arrives ${c.arrival.min}..${c.arrival.max}`);
  }

  step('Quote 100 USDC to Mexico (spei_mxn)');
  const quote = unwrap(await api.POST('/quotes', { body: { channel: 'spei_mxn', source_amount: '100.00' } }));
  console.log(`${quote.source_amount} USDC -> ${quote.destination_amount} ${quote.destination_currency} at ${quote.rate}; fees ${quote.fees.total} USDC; expires ${quote.expires_at}`);

  step('Save recipients');
  const mx = unwrap(await api.POST('/recipients', { params: idem('rcp-mx'), body: {
    type: 'bank_account', country: 'MX', currency: 'MXN', name: 'Ana López', kind: 'individual',
    bank_account: { holder_name: 'Ana López', clabe: '002010077777777771', recipient_kind: 'individual' },
  } }));
  const eu = unwrap(await api.POST('/recipients', { params: idem('rcp-eu'), body: {
    type: 'bank_account', country: 'DE', currency: 'EUR', name: 'Jonas Weber', kind: 'individual',
    bank_account: { holder_name: 'Jonas Weber', iban: 'DE89370400440532013000' },
  } }));
  const phone = unwrap(await api.POST('/recipients', { params: idem('rcp-phone'), body: { type: 'phone', name: 'Lucía', phone: { number: '+525512345678' } } }));
  for (const r of [mx, eu, phone]) console.log(`  ${r.id} ${r.type} ${r.status} channels=${r.channels.join(',')} ${JSON.stringify(r.bank_account ?? r.phone)}`);

  step('Payouts');
  const ok = unwrap(await api.POST('/payouts', { params: idem('po-ok'), body: { channel: 'spei_mxn', recipient_id: mx.id, quote_id: quote.id, reference: 'Invoice 42' } }));
  const sepa = unwrap(await api.POST('/payouts', { params: idem('po-sepa'), body: { channel: 'sepa_eur', recipient_id: eu.id, destination_amount: '50.00', reference: 'Rent' } }));
  const declined = unwrap(await api.POST('/payouts', { params: idem('po-declined'), body: { channel: 'sepa_eur', recipient_id: eu.id, source_amount: '20', reference: 'sandbox:provider_declined' } }));
  const retried = unwrap(await api.POST('/payouts', { params: idem('po-retry'), body: { channel: 'spei_mxn', recipient_id: mx.id, source_amount: '15', reference: 'sandbox:provider_timeout_once' } }));
  const refunded = unwrap(await api.POST('/payouts', { params: idem('po-refund'), body: { channel: 'spei_mxn', recipient_id: mx.id, source_amount: '10', reference: 'sandbox:refunded_by_provider' } }));
  const claim = unwrap(await api.POST('/payouts', { params: idem('po-claim'), body: { channel: 'claim_link', recipient: { type: 'phone', number: '+525512345678' }, source_amount: '25', message: 'Thanks for your work!' } }));
  for (const p of [ok, sepa, declined, retried, refunded, claim]) console.log(`  created ${p.id} ${p.channel.padEnd(10)} ${p.status} attempts=${p.attempts} ${p.source_amount} USDC -> ${p.destination_amount} ${p.destination_currency}`);

  const awaiting = await waitFinal(claim.id, ['awaiting_claim']);
  console.log(`  claim link ${awaiting.id} is awaiting_claim; the recipient claims it (bank_transfer) ...`);
  unwrap(await api.POST('/sandbox/payouts/{id}/claim', { params: { path: { id: claim.id } }, body: { method: 'bank_transfer' } }));

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
  const receipt = unwrap(await api.GET('/payouts/{id}/receipt', { params: { path: { id: ok.id } } }));
  console.log(`  receipt of ${ok.id}: ${receipt.url}`);

  step('Balance');
  console.log(unwrap(await api.GET('/balance')));

  step('Signed events received');
  const deadline = Date.now() + 20_000;
  const expectedMin = 6 * 2;
  while (received.length < expectedMin && Date.now() < deadline) await new Promise((r) => setTimeout(r, 300));
  await new Promise((r) => setTimeout(r, 1000));
  for (const e of received) console.log(`  ${e.verified ? 'verified' : 'BAD SIG '} ${e.type.padEnd(22)} ${e.object} ${e.status}`);
  const bad = received.filter((e) => !e.verified).length;
  console.log(`\n${received.length} events received, ${bad} with a bad signature.`);
  if (bad > 0) process.exitCode = 1;
  if (!(await (await import('./demo-surface-c')).tourSurfaceC(BASE, KEY, endpoints))) process.exitCode = 1;
  if (!(await (await import('./demo-surface-b')).tourSurfaceB(BASE, KEY, endpoints))) process.exitCode = 1;
} catch (err) {
  console.error(`\nDemo failed: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  await endpoints.deleteAll();
  receiver.close();
}
