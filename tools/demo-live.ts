/**
 * `npm run demo:live`: live mode on one machine (docs/rails.md "Test bank"). Starts the test bank
 * (a real OpenSSH SFTP server on loopback and the bank that answers by magic creditor names), then
 * the whole service (`npm run dev` in a fresh data directory) configured for it, and as an
 * integrator with the live key:
 *
 * 1. opens a live EUR virtual account (its IBAN from the bank's range), reads the IBAN on its
 *    payment link page as a payer would, and has the bank credit it (a camt.054 credit
 *    notification: the live deposit that funds the balance);
 * 2. sends one live sepa_eur payout of each magic outcome (booked, AC01, AM04, returned AC04,
 *    no answer) through pain.001 files over SFTP;
 * 3. prints each payout's final state with the bank's reason code where there is one;
 * 4. ends with `files: <folder>`: the folder that holds every file exchanged with the bank
 *    (`inbox/answered/` what we sent, `outbox/` what the bank answered).
 *
 * Needs Debian's openssh-server (apt-get install openssh-server) and the Temporal CLI
 * (`npm run temporal:install`). Options (env): DEMO_LIVE_DIR (default .data/demo-live-<time>).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from '../src/temporal/dev-server';
import { startTestBank } from './test-bank/bank';

const dir = resolve(process.env.DEMO_LIVE_DIR ?? join('.data', `demo-live-${new Date().toISOString().replace(/[:.]/g, '-')}`));
mkdirSync(dir, { recursive: true });
const bank = await startTestBank({ dir: join(dir, 'bank'), pollMs: 200, settleAfterMs: 1500 });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
console.log(`test bank: SFTP on ${bank.server.host}:${bank.server.port} (host key ${bank.server.hostKeySha256})`);
console.log(`service:   ${base} (data in ${join(dir, 'service')})`);

const service = spawn(process.execPath, ['--import', 'tsx', 'src/main/dev.ts'], {
  env: {
    ...process.env,
    ...bank.env,
    DATA_DIR: join(dir, 'service'),
    PORT: String(port),
    TEMPORAL_ADDRESS: '',
    LOG_LEVEL: 'warn',
    RAIL_SEPA_BATCH_WINDOW: 'PT2S',
    RAIL_SEPA_POLL_INTERVAL: 'PT0.5S',
    RAIL_SEPA_RETURN_WINDOW: 'PT30S',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
let exited = false;
service.on('exit', () => (exited = true));

async function stop(code: number): Promise<never> {
  if (!exited) {
    service.kill('SIGINT');
    await new Promise((r) => service.once('exit', r));
  }
  await bank.stop();
  process.exit(code);
}

async function call(method: string, path: string, key: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': `${method}-${path}-${JSON.stringify(body ?? null)}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function until<T>(fn: () => Promise<T | null>, timeoutMs: number): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline || exited) return null;
    await new Promise((r) => setTimeout(r, 300));
  }
}

try {
  const healthy = await until(async () => ((await fetch(`${base}/health`)).ok ? true : null), 180_000);
  if (!healthy) throw new Error('the service did not start (see its output above)');
  const live = JSON.parse(readFileSync(join(dir, 'service', 'dev-credentials.json'), 'utf8')).keys.live as string;

  const channel = await until(async () => {
    const list = await call('GET', '/v1/channels?country=DE', live);
    return list.data.find((c: any) => c.id === 'sepa_eur' && c.status === 'live') ?? null;
  }, 60_000);
  console.log(`\nchannel sepa_eur in live: ${channel ? 'live' : 'paused'}`);
  if (!channel) throw new Error('sepa_eur did not go live: the service could not reach the test bank');

  const account = await call('POST', '/v1/virtual-accounts', live, { currency: 'EUR' });
  console.log(`live virtual account ${account.id}: ${account.details.iban} (${account.details.bank_name})`);
  // The API shows the IBAN masked; a payer reads it whole on the business's payment link page.
  const link = await call('POST', '/v1/payment-links', live, { name: 'Top-ups', methods: ['bank_transfer'] });
  const page = await (await fetch(link.url.replace(/^https?:\/\/[^/]+/, base))).text();
  const creditIban = /DE\d{2}[0-9]{18}/.exec(page.replace(/\s+/g, ''))?.[0];
  if (!creditIban) throw new Error(`no IBAN on the payment link page ${link.url}`);
  console.log(`payment link page ${link.url} shows ${creditIban}`);
  const creditFile = bank.credit({ creditorIban: creditIban, amountMinor: '500000', debtorName: 'Client Europe SA', debtorIban: 'BE68539007547034', remittance: 'Top-up', reference: `DEMO-${Date.now()}` });
  console.log(`incoming credit of 5000.00 EUR: ${creditFile}`);
  const funded = await until(async () => {
    const b = await call('GET', '/v1/balance', live);
    return /^0+(\.0+)?$/.test(b.available) ? null : b;
  }, 60_000);
  console.log(`live balance after the deposit: ${funded?.available ?? '0'} ${funded?.currency ?? 'USDC'}`);
  if (!funded) throw new Error('the incoming credit was not credited');

  const outcomes: Array<[string, string]> = [
    ['booked', 'José Núñez'],
    ['rejected AC01', 'Rita AC01'],
    ['rejected AM04', 'Max AM04'],
    ['booked, then returned AC04', 'Otto AC04'],
    ['no answer', 'Sam SILENT'],
  ];
  const sent: Array<{ label: string; id: string }> = [];
  for (const [label, name] of outcomes) {
    const p = await call('POST', '/v1/payouts', live, {
      channel: 'sepa_eur',
      recipient: { type: 'bank_account', holder_name: name, iban: 'FR1420041010050500013M02606', recipient_kind: 'individual' },
      source_amount: '25.00',
      reference: `Demo ${label}`,
    });
    sent.push({ label, id: p.id });
    console.log(`payout ${p.id} (${label}, to "${name}"): ${p.status}`);
  }
  console.log('\nwaiting for the bank (files every 2 s, answers polled every 0.5 s) ...');
  const finals = ['succeeded', 'failed', 'refunded'];
  for (const s of sent) {
    const wanted = s.label === 'no answer' ? null : s.label.includes('returned') ? ['refunded'] : finals;
    const p = wanted ? await until(async () => {
      const r = await call('GET', `/v1/payouts/${s.id}`, live);
      return wanted.includes(r.status) ? r : null;
    }, 90_000) : null;
    const now = p ?? (await call('GET', `/v1/payouts/${s.id}`, live));
    const reason = now.failure ? ` ${now.failure.code}${now.failure.rail_reason_code ? ` (${now.failure.rail_reason_code})` : ''}` : '';
    console.log(`${s.label.padEnd(28)} ${s.id}  ${now.status}${reason}${now.delivered_at ? `  delivered_at ${now.delivered_at}` : ''}`);
  }
  console.log(`\nfiles: ${bank.filesDir}`);
  await stop(0);
} catch (err) {
  console.error(`demo:live failed: ${(err as Error).message}`);
  console.log(`files: ${bank.filesDir}`);
  await stop(1);
}
