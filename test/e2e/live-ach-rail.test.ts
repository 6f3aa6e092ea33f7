/**
 * The live ach_usd rail end to end (docs/rails.md "ACH"): real NACHA files over a real OpenSSH SFTP
 * server to the test bank (the ODFI), which answers by its magic account numbers
 * (tools/test-bank/ach-answers.ts) with return and NOC files; entries nothing returns settle by
 * silence (RAIL_ACH_SETTLE_AFTER here). Live USD deposits arrive as incoming ACH credits to a live
 * virtual account number. Every NACHA file the service writes is checked by the independent
 * validator (tools/nacha/validator.ts).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshRailHealth } from '../../src/core/rails/rail-adapters';
import { startRailPollers } from '../../src/core/rails/lifecycle';
import { listRailFiles } from '../../src/core/rails/operators';
import { renderRailFile } from '../../src/main/admin-rails';
import { metricsRegistry } from '../../src/core/metrics/registry';
import { parseNachaFile } from '../../src/rails/nacha';
import { ACH_BANK_ROUTING, ACH_MAGIC_ACCOUNTS, ACH_NOC_CORRECTED_ACCOUNT } from '../../tools/test-bank/ach-answers';
import { startTestBank, TEST_BANK_ACH_ACCOUNT_PREFIX, type TestBank } from '../../tools/test-bank/bank';
import { skipWithoutTestSftpServer } from '../../tools/test-bank/sshd';
import { skipWithoutNachaValidator, validateNacha } from '../../tools/nacha/validator';
import { createHarness, type Harness } from '../helpers/harness';

/** The test bank's magic account numbers (tools/test-bank/ach-answers.ts), by what they answer. */
const MAGIC = { R01: '9990000101', R03: '9990000103', late: '9990000202', noc: '9990000301' } as const;

/** Skipped (with the reason) on a machine without OpenSSH, unless REQUIRE_SSHD=1 (CI): tools/test-bank/sshd.ts. */
const SKIP = skipWithoutTestSftpServer('test/e2e/live-ach-rail.test.ts');
/** The independent validator is required in CI (REQUIRE_NACHA_VALIDATOR=1); elsewhere its checks are skipped when it cannot run. */
const VALIDATOR = !skipWithoutNachaValidator('test/e2e/live-ach-rail.test.ts');

let h: Harness;
let bank: TestBank;
let dir: string;
let biz: { id: string; sandbox: string; live: string };
let virtualAccount: string;

/** The test bank's environment without the other rail's connection variables. */
function onlyRail(env: Record<string, string>, prefix: string): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith(prefix)));
}

async function waitFor<T>(fn: () => Promise<T | undefined | false | null>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const payout = async (id: string) => (await h.request('GET', `/v1/payouts/${id}`, { key: biz.live })).body;
const finalStatus = (id: string, statuses: string[]) =>
  waitFor(async () => {
    const p = await payout(id);
    return statuses.includes(p.status) ? p : null;
  }, `payout ${id} to reach ${statuses.join('|')}`);
const postings = async (id: string) =>
  (await h.db.selectFrom('ledger_postings').select('key').where('key', 'like', `payout:${id}:%`).orderBy('id').execute()).map((r) => r.key.split(':')[2]);
const events = async (id: string) => (await h.db.selectFrom('events').select('type').where('object_id', '=', id).orderBy('id').execute()).map((r) => r.type);
const instruction = (id: string) => h.db.selectFrom('rail_instructions').selectAll().where('payout_id', '=', id).executeTakeFirst();
const returnsCounted = async (code: string, late: string) =>
  (await metricsRegistry.getSingleMetric('rail_returns_total')!.get()).values.find((v) => v.labels.rail === 'ach' && v.labels.code === code && v.labels.late === late)?.value ?? 0;

/** A live 20 USD payout on ach_usd to `accountNumber` (the test bank's magic numbers), returns its id. */
async function livePayout(accountNumber: string, name = 'Jordan Lee', extra: Record<string, unknown> = {}): Promise<string> {
  const r = await h.request('POST', '/v1/payouts', {
    key: biz.live,
    body: {
      channel: 'ach_usd',
      recipient: { type: 'bank_account', holder_name: name, account_number: accountNumber, routing_number: '021000021', account_type: 'checking', recipient_kind: 'individual' },
      source_amount: '20',
      ...extra,
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

beforeAll(async () => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), 'test-bank-ach-'));
  bank = await startTestBank({ dir, pollMs: 100, achLateReturnDelayMs: 7000 });
  h = await createHarness({
    // Only the ACH connection: pollers are one per rail and Temporal namespace, so a SEPA poller
    // started here would read another test file's bank (test/e2e/live-sepa-rail.test.ts).
    env: { ...onlyRail(bank.env, 'RAIL_ACH_'), RAIL_ACH_BATCH_WINDOW: 'PT1S', RAIL_ACH_POLL_INTERVAL: 'PT0.3S', RAIL_ACH_SETTLE_AFTER: 'PT3S', RAIL_ACH_RETURN_WINDOW: 'PT30S' },
  });
  await refreshRailHealth(h.core);
  await startRailPollers(h.core);
  biz = await h.business();
  const va = await h.request('POST', '/v1/virtual-accounts', { key: biz.live, body: { currency: 'USD' } });
  expect(va.status, JSON.stringify(va.body)).toBe(201);
  const row = await h.db.selectFrom('virtual_accounts').select(['account_identifier', 'details']).where('id', '=', va.body.id).executeTakeFirstOrThrow();
  virtualAccount = row.account_identifier;
}, 120_000);

afterAll(async () => {
  await h?.close();
  await bank?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(SKIP)('live ach_usd over SFTP to the test bank', () => {
  it('the magic numbers are the test bank\'s', () => {
    expect([MAGIC.R01, MAGIC.R03, MAGIC.late, MAGIC.noc].map((n) => ACH_MAGIC_ACCOUNTS[n]?.code)).toEqual(['R01', 'R03', 'R02', 'C01']);
  });

  it('ach_usd is live with a working connection; live USD virtual accounts get account numbers from the bank range', async () => {
    const ch = await h.request('GET', '/v1/channels', { key: biz.live });
    expect(ch.body.data.find((c: any) => c.id === 'ach_usd').status).toBe('live');
    expect(virtualAccount).toMatch(new RegExp(`^${TEST_BANK_ACH_ACCOUNT_PREFIX}\\d{7}$`));
  });

  it('an incoming ACH credit to a live virtual account number becomes one deposit, credited once, also when the file comes twice', async () => {
    const name = bank.achCredit({ accountNumber: virtualAccount, routingNumber: ACH_BANK_ROUTING, amountMinor: '100000', originatorName: 'ACME CORP', reference: 'INVOICE 42' });
    const dep = await waitFor(
      async () => h.db.selectFrom('deposits').selectAll().where('business_id', '=', biz.id).where('environment', '=', 'live').where('status', '=', 'credited').executeTakeFirst(),
      'the live deposit credited',
    );
    expect(dep.amount).toBe(100000n);
    expect(dep.currency).toBe('USD');
    expect(dep.external_id).toMatch(/^ach:\d{15}$/);
    copyFileSync(join(bank.filesDir, 'ach', 'outbox', name), join(bank.filesDir, 'ach', 'outbox', 'copy-of-credit.ach'));
    await waitFor(async () => h.db.selectFrom('rail_files').select('id').where('name', '=', 'copy-of-credit.ach').where('status', '=', 'processed').executeTakeFirst(), 'the copy processed');
    expect(await h.db.selectFrom('deposits').select('id').where('business_id', '=', biz.id).where('environment', '=', 'live').execute()).toHaveLength(1);
    expect(await h.db.selectFrom('ledger_postings').select('key').where('key', '=', `deposit:${dep.id}:credit`).execute()).toHaveLength(1);
  });

  it('an incoming ACH credit that fits an open payment request pays it', async () => {
    const link = await h.request('POST', '/v1/payment-links', { key: biz.live, body: { name: 'Invoices', methods: ['bank_transfer'] } });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    const req = await h.request('POST', '/v1/payment-requests', {
      key: biz.live,
      body: { payment_link_id: link.body.id, amount: '123.45', currency: 'USD', reference: 'INV-ACH-1', expires_at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(req.status, JSON.stringify(req.body)).toBe(201);
    bank.achCredit({ accountNumber: virtualAccount, routingNumber: ACH_BANK_ROUTING, amountMinor: '12345', originatorName: 'CLIENT INC', reference: 'INV-ACH-1' });
    const paid = await waitFor(async () => {
      const r = await h.request('GET', `/v1/payment-requests/${req.body.id}`, { key: biz.live });
      return r.body.status === 'paid' ? r.body : null;
    }, 'the payment request paid');
    const dep = await h.db.selectFrom('deposits').selectAll().where('id', '=', paid.deposit_id).executeTakeFirstOrThrow();
    expect(dep).toMatchObject({ amount: 12345n, currency: 'USD', status: 'credited', payment_request_id: req.body.id });
  });

  it('settles by silence: submitted, delivering in a NACHA file the independent validator accepts, then succeeded at the settlement time', async () => {
    const id = await livePayout('123456789', 'José Núñez-Ortiz Martínez de la Cruz', { reference: 'Invoice 7 / März' });
    const inFile = await waitFor(async () => {
      const i = await instruction(id);
      return i?.rail_file_id ? i : null;
    }, 'its file');
    expect(inFile.trace_number).toMatch(new RegExp(`^${ACH_BANK_ROUTING.slice(0, 8)}\\d{7}$`));
    const done = await finalStatus(id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    expect(done.provider_reference).toBe(inFile.trace_number);
    expect(await postings(id)).toEqual(['hold', 'settle']);
    expect(await events(id)).toEqual(['payout.submitted', 'payout.succeeded']);
    const file = await h.db.selectFrom('rail_files').selectAll().where('id', '=', inFile.rail_file_id!).executeTakeFirstOrThrow();
    expect(file).toMatchObject({ status: 'uploaded', kind: 'nacha', settlement_window: expect.stringMatching(/^(same_day|next_day)$/) });
    expect(file.settled_at).not.toBeNull();
    // The file as the bank received it, parsed back: a PPD batch, the name converted and cut to 22, the reference as addenda.
    const sent = readFileSync(join(bank.filesDir, 'ach', 'inbox', 'answered', file.name), 'utf8');
    expect(sent).toBe(file.content);
    const parsed = parseNachaFile(sent);
    const entry = parsed.batches.flatMap((b) => b.entries).find((e) => e.traceNumber === inFile.trace_number)!;
    expect(parsed.batches[0]!.secCode).toBe('PPD');
    // The entry carries the payout's destination amount: 20 USDC at the live USDC/USD rate less the spread (docs/rates.md).
    expect(done.destination_amount).toMatch(/^19\.9\d$/);
    expect(entry).toMatchObject({ transactionCode: '22', accountNumber: '123456789', routingNumber: '021000021', amountMinor: done.destination_amount.replace('.', ''), name: 'JOSE NUNEZ-ORTIZ MARTI' });
    expect(entry.addenda05?.paymentRelatedInformation).toBe('INVOICE 7 / MAERZ');
    expect(inFile.creditor_name).toBe('José Núñez-Ortiz Martínez de la Cruz');
    if (VALIDATOR) expect(await validateNacha(sent)).toEqual({ valid: true, errors: [] });
    // Operators see it with its window and count.
    const listed = (await listRailFiles(h.db)).map(renderRailFile).find((f) => f.id === file.id)!;
    expect(listed).toMatchObject({ rail: 'ach', kind: 'nacha', transactions: file.transactions, settlement_window: file.settlement_window, execution_date: file.execution_date });
  });

  it('returned R03 before settlement ends failed (invalid_destination) with the return code and the hold released', async () => {
    const before = await returnsCounted('R03', 'false');
    const id = await livePayout(MAGIC.R03);
    const done = await finalStatus(id, ['failed', 'succeeded']);
    expect(done.status).toBe('failed');
    expect(done.failure).toMatchObject({ code: 'invalid_destination', rail_reason_code: 'R03', retryable: false });
    expect(await postings(id)).toEqual(['hold', 'release']);
    expect(await events(id)).toEqual(['payout.submitted', 'payout.failed']);
    expect((await instruction(id))!.status).toBe('rejected');
    expect(await returnsCounted('R03', 'false')).toBe(before + 1);
  });

  it('returned R01 before settlement ends failed (provider_declined)', async () => {
    const id = await livePayout(MAGIC.R01);
    const done = await finalStatus(id, ['failed', 'succeeded']);
    expect(done.failure).toMatchObject({ code: 'provider_declined', rail_reason_code: 'R01' });
    expect(await postings(id)).toEqual(['hold', 'release']);
  });

  it('a late return after settlement ends refunded, flagged late; the same return file taken twice changes nothing', async () => {
    const before = await returnsCounted('R02', 'true');
    const id = await livePayout(MAGIC.late);
    await finalStatus(id, ['succeeded']);
    const done = await finalStatus(id, ['refunded']);
    expect(done.failure).toMatchObject({ code: 'refunded_by_provider', rail_reason_code: 'R02' });
    expect(await postings(id)).toEqual(['hold', 'settle', 'refund']);
    expect(await events(id)).toEqual(['payout.submitted', 'payout.succeeded', 'payout.refunded']);
    expect(await returnsCounted('R02', 'true')).toBe(before + 1);
    const returned = await h.db.selectFrom('rail_events').selectAll().where('payout_id', '=', id).where('type', '=', 'returned').executeTakeFirstOrThrow();
    expect(returned.details).toMatchObject({ late: true });
    // The bank delivers the same return file again under another name.
    const original = await h.db.selectFrom('rail_files').select('name').where('id', '=', returned.rail_file_id).executeTakeFirstOrThrow();
    copyFileSync(join(bank.filesDir, 'ach', 'outbox', original.name), join(bank.filesDir, 'ach', 'outbox', 'again.ach'));
    await waitFor(async () => h.db.selectFrom('rail_files').select('id').where('name', '=', 'again.ach').where('status', '=', 'processed').executeTakeFirst(), 'the copy processed');
    await new Promise((r) => setTimeout(r, 1000));
    expect((await payout(id)).status).toBe('refunded');
    expect(await postings(id)).toEqual(['hold', 'settle', 'refund']);
    expect(await events(id)).toEqual(['payout.submitted', 'payout.succeeded', 'payout.refunded']);
  });

  it('a NOC C01 corrects the saved recipient (masked in the API, recipient.updated emitted); its next payout uses the corrected account', async () => {
    const rec = await h.request('POST', '/v1/recipients', {
      key: biz.live,
      body: { type: 'bank_account', country: 'US', currency: 'USD', name: 'Casey Noc', kind: 'individual', bank_account: { holder_name: 'Casey Noc', account_number: MAGIC.noc, routing_number: '021000021', account_type: 'savings' } },
    });
    expect(rec.status, JSON.stringify(rec.body)).toBe(201);
    const first = await h.request('POST', '/v1/payouts', { key: biz.live, body: { channel: 'ach_usd', recipient_id: rec.body.id, source_amount: '20' } });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const corrected = await waitFor(async () => {
      const r = await h.request('GET', `/v1/recipients/${rec.body.id}`, { key: biz.live });
      return r.body.bank_account.account_number === `••••${ACH_NOC_CORRECTED_ACCOUNT.slice(-4)}` ? r.body : null;
    }, 'the recipient corrected');
    expect(corrected.status).toBe('ready');
    const evt = await h.db.selectFrom('events').selectAll().where('object_id', '=', rec.body.id).where('type', '=', 'recipient.updated').execute();
    expect(evt).toHaveLength(1);
    // Stored as the domain object (docs/webhooks.md "Event data").
    expect(evt[0]!.data_format).toBe('domain');
    expect(evt[0]!.data).toMatchObject({ v: 1, object: 'recipient', id: rec.body.id, details: { account_number: `••••${ACH_NOC_CORRECTED_ACCOUNT.slice(-4)}` }, correction: { changeCode: 'C01', payoutId: first.body.id } });
    // The business reads it through the API as its endpoints receive it.
    const listed = await h.request('GET', '/v1/events?type=recipient.*', { key: biz.live });
    expect(listed.status).toBe(200);
    expect(listed.body.data[0]).toMatchObject({ type: 'recipient.updated', data: { object: { id: rec.body.id, object: 'recipient', status: 'ready', bank_account: { account_number: `••••${ACH_NOC_CORRECTED_ACCOUNT.slice(-4)}` } } } });
    // The entry itself was posted: the payout settles.
    expect((await finalStatus(first.body.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    const second = await h.request('POST', '/v1/payouts', { key: biz.live, body: { channel: 'ach_usd', recipient_id: rec.body.id, source_amount: '20' } });
    expect(second.status).toBe(201);
    const i = await waitFor(async () => instruction(second.body.id), 'the second instruction');
    expect(i.details).toMatchObject({ account_number: ACH_NOC_CORRECTED_ACCOUNT, account_type: 'savings' });
    expect((await finalStatus(second.body.id, ['succeeded', 'failed'])).status).toBe('succeeded');
  });

  it('a withdrawal to the business\'s own US account runs on ACH in a CCD batch and settles', async () => {
    const own = await h.request('POST', '/v1/recipients', {
      key: biz.live,
      body: { type: 'bank_account', country: 'US', currency: 'USD', name: 'Our operating account', kind: 'business', bank_account: { holder_name: 'Example Corp LLC', account_number: '000123456789', routing_number: '021000021', account_type: 'checking' } },
    });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    const w = await h.request('POST', '/v1/withdrawals', { key: biz.live, body: { currency: 'USD', payout_destination_id: own.body.id, source_amount: '15' } });
    expect(w.status, JSON.stringify(w.body)).toBe(201);
    expect((await finalStatus(w.body.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    const i = (await instruction(w.body.id))!;
    expect(i.details).toMatchObject({ sec_code: 'CCD', account_number: '000123456789' });
    const file = await h.db.selectFrom('rail_files').select('content').where('id', '=', i.rail_file_id!).executeTakeFirstOrThrow();
    const batch = parseNachaFile(file.content!).batches.find((b) => b.entries.some((e) => e.traceNumber === i.trace_number))!;
    expect(batch.secCode).toBe('CCD');
  });

  it('a routing number failing its ABA check digit is a validation_error naming the field, on a recipient and on a payout', async () => {
    const rec = await h.request('POST', '/v1/recipients', {
      key: biz.live,
      body: { type: 'bank_account', country: 'US', currency: 'USD', name: 'Bad Routing', kind: 'individual', bank_account: { holder_name: 'Bad Routing', account_number: '123456789', routing_number: '021000022', account_type: 'checking' } },
    });
    expect(rec.status).toBe(400);
    expect(rec.body.error).toMatchObject({ code: 'validation_error', param: 'bank_account.routing_number' });
    const p = await h.request('POST', '/v1/payouts', {
      key: biz.live,
      body: { channel: 'ach_usd', recipient: { type: 'bank_account', holder_name: 'Bad Routing', account_number: '123456789', routing_number: '021000022', account_type: 'checking', recipient_kind: 'individual' }, source_amount: '20' },
    });
    expect(p.status).toBe(400);
    expect(p.body.error).toMatchObject({ code: 'validation_error', param: 'recipient.routing_number' });
  });

  it('a name with nothing a NACHA file can carry is refused when the payout is created', async () => {
    const r = await h.request('POST', '/v1/payouts', {
      key: biz.live,
      body: { channel: 'ach_usd', recipient: { type: 'bank_account', holder_name: '王小明', account_number: '123456789', routing_number: '021000021', account_type: 'checking', recipient_kind: 'individual' }, source_amount: '20' },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'recipient.holder_name' });
  });

  it('a connection check that fails once is asked again before the channel pauses; a bank that stays down pauses it, and it comes back', async () => {
    const status = async () => (await h.request('GET', '/v1/channels', { key: biz.live })).body.data.find((c: any) => c.id === 'ach_usd').status;
    await bank.server.stop();
    // The server comes back within the retries (a restart): the check still says working.
    const check = refreshRailHealth(h.core);
    await new Promise((r) => setTimeout(r, 300));
    await bank.server.restart();
    expect((await check).ach).toBe('working');
    expect(await status()).toBe('live');
    // Down for longer than the retries: failing, and the channel is paused until a check works again.
    await bank.server.stop();
    expect((await refreshRailHealth(h.core)).ach).toBe('failing');
    expect(await status()).toBe('paused');
    await bank.server.restart();
    expect((await refreshRailHealth(h.core)).ach).toBe('working');
    expect(await status()).toBe('live');
  });

  it.skipIf(!VALIDATOR)('every NACHA file the service wrote in this run is accepted by the independent validator', async () => {
    const files = await h.db.selectFrom('rail_files').select(['name', 'content']).where('rail', '=', 'ach').where('direction', '=', 'outbound').execute();
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const f of files) expect(await validateNacha(f.content ?? ''), f.name).toEqual({ valid: true, errors: [] });
  });
});
