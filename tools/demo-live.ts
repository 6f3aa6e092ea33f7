/**
 * `npm run demo:live`: live mode on one machine (docs/rails.md "Test bank"). Starts the test bank
 * (a real OpenSSH SFTP server on loopback and the bank that answers by magic creditor names and,
 * for ACH, by magic account numbers: tools/test-bank/answers.ts and ach-answers.ts), then the
 * whole service (`npm run dev` in a fresh data directory) configured for it, and as an integrator
 * with the live key:
 *
 * 1. SEPA: opens a live EUR virtual account (its IBAN from the bank's range), reads the IBAN on its
 *    payment link page as a payer would, and has the bank credit it (a camt.054 credit
 *    notification: the live deposit that funds the balance);
 * 2. sends one live sepa_eur payout of each magic outcome (booked, AC01, AM04, returned AC04,
 *    no answer) through pain.001 files over SFTP, and prints each payout's final state with the
 *    bank's reason code where there is one;
 * 3. ACH: opens a live USD virtual account (an account number from the bank's range), reads its
 *    whole account and routing number on the same payment link page (the API masks them), and has
 *    the bank send an incoming ACH credit to it (a NACHA file: the live USD deposit);
 * 4. sends live ach_usd payouts in NACHA files over SFTP: settled by silence, returned R03 and R01
 *    (failed), returned late R02 after settlement (refunded), and one to a saved recipient whose
 *    account the bank corrects with a notification of change C01: prints the change code (from the
 *    `recipient.updated` event, GET /v1/events), the recipient's corrected (masked) account, and a
 *    second payout to it; prints each final state with failure code and the return reason code;
 * 5. lists the NACHA files exchanged (`ach/inbox/answered/` what we sent, `ach/outbox/` what the
 *    bank answered: returns, NOCs, the incoming credit);
 * 6. the bank closes the day: end-of-day statements of both settlement accounts (camt.053 EUR with
 *    a planted bank fee, BAI2 USD), read and reconciled by the service; prints the day's
 *    reconciliation report with the planted break found (tools/demo-live/treasury.ts);
 * 7. sends a live spei_mxn and a live pix_brl payout through the test payout partner
 *    (tools/demo-live/partner.ts; its requests and signed webhooks land in `partner/`);
 * 8. USDC on Solana (tools/demo-live/solana.ts): a payer sends USDC to the business's deposit
 *    address on the test chain: received, then credited after finality; a second transfer dropped
 *    before finality is never credited;
 * 9. screening (tools/demo-live/screening.ts): a payout screened clear, one to an OFAC-listed bank
 *    held before its rail and released by two operators with `npm run admin -- screening review`,
 *    and a Verification of Payee close match held with the bank's name, paid once confirmed;
 * 10. card money (tools/demo-live/cards.ts): a live card top-up paid in headless Chromium on the
 *    test card processor's checkout page, a payment request paid by card, a refund, a dispute lost
 *    and one won, the balance after each; the processor's requests and signed events in `cards/`;
 * 7. ends with `files: <folder>`: the folder that holds every file exchanged with the bank
 *    (`inbox/answered/` what we sent, `outbox/` what the bank answered; ACH under `ach/`).
 *
 * ACH timing for the demo: files every 2 s, the outbox polled every 0.5 s, entries settle 3 s
 * after upload (RAIL_ACH_SETTLE_AFTER), returns taken for 60 s after settlement; the bank publishes
 * late returns 10 s after the upload.
 *
 * Needs Debian's openssh-server (apt-get install openssh-server) and the Temporal CLI
 * (`npm run temporal:install`). Options (env): DEMO_LIVE_DIR (default .data/demo-live-<time>).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from '../src/temporal/dev-server';
import { ACH_NOC_CORRECTED_ACCOUNT } from './test-bank/ach-answers';
import { startTestBank } from './test-bank/bank';
import { treasuryPart } from './demo-live/treasury';
import { startRateSources } from './rate-sources/server';
import { DEMO_RATE_ENV, ratesDemo } from './demo-live/rates';
import { partnerPart, startDemoPartner } from './demo-live/partner';
import { startSolanaDemo } from './demo-live/solana';
import { screeningPart } from './demo-live/screening';
import { cardsPart, startDemoCards } from './demo-live/cards';
import { startPostgres } from './stack/postgres';
import { startDevServer } from '../src/temporal/dev-server';

const dir = resolve(process.env.DEMO_LIVE_DIR ?? join('.data', `demo-live-${new Date().toISOString().replace(/[:.]/g, '-')}`));
mkdirSync(dir, { recursive: true });
const bank = await startTestBank({ dir: join(dir, 'bank'), pollMs: 200, settleAfterMs: 1500, achLateReturnDelayMs: 10_000 });
const rates = await startRateSources();
const partner = await startDemoPartner(bank.filesDir);
const solana = await startSolanaDemo(); // USDC on Solana: the test chain (tools/demo-live/solana.ts)
const cards = await startDemoCards(dir); // the live card processor (tools/demo-live/cards.ts)
// PostgreSQL and Temporal of our own, so the operators' admin CLI can run beside the service
// (on PGlite only the service's process may open the database): the screening part's review.
const pg = await startPostgres().catch((err: Error) => {
  console.log(`no PostgreSQL (${err.message.split('\n')[0]}): the service runs on PGlite and the operators' review is not shown`);
  return null;
});
const temporalServer = pg ? await startDevServer({ dbFile: join(dir, 'temporal.sqlite') }) : null;
const adminEnv = pg && temporalServer ? { DATABASE_URL: pg.url, TEMPORAL_ADDRESS: temporalServer.address } : null;
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
console.log(`test bank: SFTP on ${bank.server.host}:${bank.server.port} (host key ${bank.server.hostKeySha256})`);
console.log(`service:   ${base} (data in ${join(dir, 'service')})`);

const service = spawn(process.execPath, ['--import', 'tsx', 'src/main/dev.ts'], {
  env: {
    ...process.env,
    ...bank.env,
    ...rates.env,
    ...DEMO_RATE_ENV,
    ...partner.env,
    ...solana.env,
    ...cards.env,
    DATA_DIR: join(dir, 'service'),
    PORT: String(port),
    TEMPORAL_ADDRESS: temporalServer?.address ?? '',
    ...(pg ? { DATABASE_URL: pg.url } : {}),
    // Live screening against OFAC's SDN CSV set: the repository's copy (no internet needed).
    SCREENING_LISTS: 'ofac-sdn-csv',
    SCREENING_OFAC_SDN_CSV_DIR: resolve('test/fixtures/screening/ofac-csv'),
    LOG_LEVEL: 'warn',
    RAIL_SEPA_BATCH_WINDOW: 'PT2S',
    RAIL_SEPA_POLL_INTERVAL: 'PT0.5S',
    RAIL_SEPA_RETURN_WINDOW: 'PT30S',
    RAIL_ACH_BATCH_WINDOW: 'PT2S',
    RAIL_ACH_POLL_INTERVAL: 'PT0.5S',
    RAIL_ACH_SETTLE_AFTER: 'PT3S',
    RAIL_ACH_RETURN_WINDOW: 'PT60S',
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
  await rates.stop();
  await partner.stop();
  await solana.close();
  await cards.stop();
  await temporalServer?.stop();
  pg?.stop();
  process.exit(code);
}

/** The Idempotency-Key of a request: one per method, path and body (a digest: keys are 1 to 255 characters). */
function idempotencyKey(method: string, path: string, body: unknown): string {
  return `demo-${createHash('sha256').update(`${method} ${path} ${JSON.stringify(body ?? null)}`).digest('hex')}`;
}

async function call(method: string, path: string, key: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey(method, path, body) },
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

/** One line of a payout's final state: status, failure code and the rail's reason code. */
function describe(p: any): string {
  const reason = p.failure ? ` ${p.failure.code}${p.failure.rail_reason_code ? ` (${p.failure.rail_reason_code})` : ''}` : '';
  return `${p.status}${reason}${p.delivered_at ? `  delivered_at ${p.delivered_at}` : ''}`;
}

/** Polls GET /v1/payouts/{id} until its status is one of `statuses`; returns it (or its last state after `timeoutMs`). */
async function payoutIn(live: string, id: string, statuses: string[], timeoutMs = 90_000): Promise<any> {
  const p = await until(async () => {
    const r = await call('GET', `/v1/payouts/${id}`, live);
    return statuses.includes(r.status) ? r : null;
  }, timeoutMs);
  return p ?? (await call('GET', `/v1/payouts/${id}`, live));
}

/**
 * The ACH part (steps 3-5 of the header): a live USD virtual account read on the payment link page
 * `linkUrl`, funded by an incoming ACH credit, then live ach_usd payouts of each magic outcome and a
 * notification of change. Throws when ach_usd does not go live, the page shows no USD account, the
 * credit is not credited, or a payout does not end as the bank's magic number says.
 */
async function achPart(live: string, linkUrl: string): Promise<void> {
  const channel = await until(async () => {
    const list = await call('GET', '/v1/channels?country=US', live);
    return list.data.find((c: any) => c.id === 'ach_usd' && c.status === 'live') ?? null;
  }, 60_000);
  console.log(`\nchannel ach_usd in live: ${channel ? 'live' : 'paused'}`);
  if (!channel) throw new Error('ach_usd did not go live: the service could not reach the test bank');

  const account = await call('POST', '/v1/virtual-accounts', live, { currency: 'USD' });
  console.log(`live virtual account ${account.id}: account ${account.details.account_number}, routing ${account.details.routing_number} (${account.details.bank_name ?? 'masked in the API'})`);
  // The API masks the account number; the payment link page shows each active account whole, one
  // <div class="account" data-currency="..."> per account with a <dd data-field="..."> per detail.
  const page = await (await fetch(linkUrl.replace(/^https?:\/\/[^/]+/, base))).text();
  const usd = /<div class="account" data-currency="USD">(.*?)<\/div>/s.exec(page)?.[1] ?? '';
  const field = (name: string) => new RegExp(`data-field="${name}">([^<]*)<`).exec(usd)?.[1] ?? null;
  const accountNumber = field('account_number');
  const routingNumber = field('routing_number');
  if (!accountNumber || !routingNumber) throw new Error(`no USD account number on the payment link page ${linkUrl}`);
  console.log(`payment link page ${linkUrl} shows account ${accountNumber}, routing ${routingNumber}`);
  const creditFile = bank.achCredit({ accountNumber, routingNumber, amountMinor: '300000', originatorName: 'ACME CORP', reference: 'INVOICE 42' });
  console.log(`incoming ACH credit of 3000.00 USD: ${creditFile}`);
  const deposit = await until(async () => {
    const list = await call('GET', '/v1/deposits?currency=USD', live);
    return list.data.find((d: any) => d.status === 'credited') ?? null;
  }, 60_000);
  if (!deposit) throw new Error('the incoming ACH credit was not credited');
  console.log(`deposit ${deposit.id}: ${deposit.amount} ${deposit.currency} credited as ${deposit.credited_amount} ${deposit.credited_currency}`);
  const balance = await call('GET', '/v1/balance', live);
  console.log(`live balance after the ACH deposit: ${balance.available} ${balance.currency}`);

  const achBody = (accountNo: string, name: string, reference: string) => ({
    channel: 'ach_usd',
    recipient: { type: 'bank_account', holder_name: name, account_number: accountNo, routing_number: '021000021', account_type: 'checking', recipient_kind: 'individual' },
    source_amount: '20',
    reference,
  });
  const outcomes: Array<{ label: string; account: string; name: string; wanted: string[] }> = [
    { label: 'settled by silence', account: '123456789', name: 'Jordan Lee', wanted: ['succeeded', 'failed'] },
    { label: 'returned R03', account: '9990000103', name: 'Riley R03', wanted: ['failed', 'succeeded'] },
    { label: 'returned R01', account: '9990000101', name: 'Robin R01', wanted: ['failed', 'succeeded'] },
    { label: 'late return R02', account: '9990000202', name: 'Lee Late', wanted: ['refunded'] },
  ];
  const sent: Array<{ label: string; id: string; wanted: string[] }> = [];
  for (const o of outcomes) {
    const p = await call('POST', '/v1/payouts', live, achBody(o.account, o.name, `Demo ACH ${o.label}`));
    sent.push({ label: o.label, id: p.id, wanted: o.wanted });
    console.log(`payout ${p.id} (${o.label}, to account ${o.account}): ${p.status}`);
  }
  // A saved recipient whose account the bank corrects by a notification of change (C01).
  const recipient = await call('POST', '/v1/recipients', live, {
    type: 'bank_account',
    country: 'US',
    currency: 'USD',
    name: 'Casey Noc',
    kind: 'individual',
    bank_account: { holder_name: 'Casey Noc', account_number: '9990000301', routing_number: '021000021', account_type: 'savings' },
  });
  console.log(`recipient ${recipient.id} (Casey Noc, savings): account ${recipient.bank_account.account_number}`);
  const nocFirst = await call('POST', '/v1/payouts', live, { channel: 'ach_usd', recipient_id: recipient.id, source_amount: '20', reference: 'Demo ACH NOC first' });
  sent.push({ label: 'NOC C01, first payout', id: nocFirst.id, wanted: ['succeeded', 'failed'] });
  console.log(`payout ${nocFirst.id} (to recipient ${recipient.id}, account 9990000301): ${nocFirst.status}`);

  console.log('\nwaiting for the bank (NACHA files every 2 s, answers polled every 0.5 s, settlement 3 s after upload, late returns 10 s after) ...');
  const last4 = `••••${ACH_NOC_CORRECTED_ACCOUNT.slice(-4)}`;
  const corrected = await until(async () => {
    const r = await call('GET', `/v1/recipients/${recipient.id}`, live);
    return r.bank_account.account_number === last4 ? r : null;
  }, 90_000);
  if (!corrected) throw new Error(`recipient ${recipient.id} was not corrected by the notification of change`);
  const events = await call('GET', '/v1/events?type=recipient.updated', live);
  const event = events.data.find((e: any) => e.data.object.id === recipient.id);
  const change = event?.data.object.correction;
  console.log(
    `notification of change ${change?.change_code ?? '(no recipient.updated event)'} (event ${event?.id ?? '-'}, payout ${change?.payout_id ?? '-'}): ` +
      `recipient ${recipient.id} account now ${corrected.bank_account.account_number} (${corrected.bank_account.account_type}), status ${corrected.status}`,
  );
  const nocSecond = await call('POST', '/v1/payouts', live, { channel: 'ach_usd', recipient_id: recipient.id, source_amount: '20', reference: 'Demo ACH NOC second' });
  sent.push({ label: 'NOC C01, second payout', id: nocSecond.id, wanted: ['succeeded', 'failed'] });
  console.log(`payout ${nocSecond.id} (to the corrected recipient): ${nocSecond.status}`);

  console.log('');
  const expected: Record<string, string> = {
    'settled by silence': 'succeeded',
    'returned R03': 'failed invalid_destination (R03)',
    'returned R01': 'failed provider_declined (R01)',
    'late return R02': 'refunded refunded_by_provider (R02)',
    'NOC C01, first payout': 'succeeded',
    'NOC C01, second payout': 'succeeded',
  };
  const wrong: string[] = [];
  for (const s of sent) {
    const p = await payoutIn(live, s.id, s.wanted);
    const line = describe(p);
    console.log(`${s.label.padEnd(28)} ${s.id}  ${line}`);
    if (!line.startsWith(expected[s.label]!)) wrong.push(`${s.label}: ${line} (want ${expected[s.label]})`);
  }
  if (!change || change.change_code !== 'C01') wrong.push(`the recipient.updated event carries no change code C01 (${JSON.stringify(event ?? null)})`);
  if (wrong.length) throw new Error(`ACH outcomes not as the bank's magic numbers say: ${wrong.join('; ')}`);
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
  await achPart(live, link.url);
  await ratesDemo({ base, liveKey: live, rates });
  await partnerPart(partner, bank.filesDir, { base, live, call, until });
  await solana.part(call, live);
  await screeningPart({ base, live, call, until }, adminEnv);
  await cardsPart({ base, live, call, until }, cards);
  for (const sub of ['inbox/answered', 'outbox']) {
    const folder = join(bank.filesDir, 'ach', sub);
    const names = readdirSync(folder).filter((n) => n.endsWith('.ach')).sort();
    console.log(`\nach/${sub}: ${folder}`);
    for (const n of names) console.log(`  ${n}`);
  }
  await treasuryPart({ bank, base, service, dataDir: join(dir, 'service'), databaseUrl: pg?.url });
  console.log(`\nfiles: ${bank.filesDir}`);
  await stop(0);
} catch (err) {
  console.error(`demo:live failed: ${(err as Error).message}`);
  console.log(`files: ${bank.filesDir}`);
  await stop(1);
}
