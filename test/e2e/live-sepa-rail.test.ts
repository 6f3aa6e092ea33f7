/**
 * The live sepa_eur rail end to end (docs/rails.md): real pain.001 files over a real OpenSSH SFTP
 * server to the test bank, which answers with pain.002 and camt.054 files by its magic creditor
 * names (tools/test-bank/answers.ts). Live deposits arrive the same way, as camt.054 credits to a
 * live virtual IBAN.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshRailHealth } from '../../src/core/rails/rail-adapters';
import { startRailPollers } from '../../src/core/rails/lifecycle';
import { payoutRailStatus, pollRailInbox } from '../../src/core/rails/inbox';
import { metricsRegistry } from '../../src/core/metrics/registry';
import { validateIso20022 } from '../../src/rails/iso20022/validate';
import { startTestBank, type TestBank } from '../../tools/test-bank/bank';
import { createHarness, type Harness } from '../helpers/harness';
import { skipWithoutTestSftpServer } from '../../tools/test-bank/sshd';

/** Skipped (with the reason) on a machine without OpenSSH, unless REQUIRE_SSHD=1 (CI): tools/test-bank/sshd.ts. */
const SKIP = skipWithoutTestSftpServer('test/e2e/live-sepa-rail.test.ts');

let h: Harness;
let bank: TestBank;
let dir: string;
let biz: { id: string; sandbox: string; live: string };
let virtualIban: string;

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
const finalStatus = (id: string, statuses: string[]) => waitFor(async () => {
  const p = await payout(id);
  return statuses.includes(p.status) ? p : null;
}, `payout ${id} to reach ${statuses.join('|')}`);
const postings = async (id: string) =>
  (await h.db.selectFrom('ledger_postings').select('key').where('key', 'like', `payout:${id}:%`).orderBy('id').execute()).map((r) => r.key.split(':')[2]);
const events = async (id: string) =>
  (await h.db.selectFrom('events').select('type').where('object_id', '=', id).orderBy('id').execute()).map((r) => r.type);

/** Sends a live 20 EUR-worth payout to `name` (the test bank's magic value) and returns its id. */
async function livePayout(name: string, iban = 'FR1420041010050500013M02606', reference?: string): Promise<string> {
  const r = await h.request('POST', '/v1/payouts', {
    key: biz.live,
    body: { channel: 'sepa_eur', recipient: { type: 'bank_account', holder_name: name, iban, recipient_kind: 'individual' }, source_amount: '20', ...(reference ? { reference } : {}) },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

beforeAll(async () => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), 'test-bank-'));
  bank = await startTestBank({ dir, pollMs: 100 });
  h = await createHarness({
    // Only the SEPA connection: pollers are one per rail and Temporal namespace, so an ACH poller
    // started here would read another test file's bank (test/e2e/live-ach-rail.test.ts).
    env: { ...Object.fromEntries(Object.entries(bank.env).filter(([k]) => k.startsWith('RAIL_SEPA_'))), RAIL_SEPA_BATCH_WINDOW: 'PT1S', RAIL_SEPA_POLL_INTERVAL: 'PT0.3S', RAIL_SEPA_RETURN_WINDOW: 'PT20S' },
  });
  await refreshRailHealth(h.core);
  await startRailPollers(h.core);
  biz = await h.business();
  // Fund the live balance the live way: a camt.054 credit to the business's live virtual IBAN.
  const va = await h.request('POST', '/v1/virtual-accounts', { key: biz.live, body: { currency: 'EUR' } });
  expect(va.status, JSON.stringify(va.body)).toBe(201);
  const row = await h.db.selectFrom('virtual_accounts').select('account_identifier').where('id', '=', va.body.id).executeTakeFirstOrThrow();
  virtualIban = row.account_identifier;
}, 120_000);

afterAll(async () => {
  await h?.close();
  await bank?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(SKIP)('live sepa_eur over SFTP to the test bank', () => {
  it('a live channel with a working connection is live; live EUR virtual accounts get IBANs from the bank range', async () => {
    const ch = await h.request('GET', '/v1/channels', { key: biz.live });
    const sepa = ch.body.data.find((c: any) => c.id === 'sepa_eur');
    expect(sepa.status).toBe('live');
    expect(ch.body.data.find((c: any) => c.id === 'spei_mxn').status).toBe('paused');
    expect(virtualIban).toMatch(/^DE\d{2}370400440999\d{6}$/);
  });

  it('a camt.054 credit to a live virtual IBAN becomes one deposit, credited once, also when the file comes twice', async () => {
    const name = bank.credit({ creditorIban: virtualIban, amountMinor: '100000', debtorName: 'Client AG', debtorIban: 'DE02120300000000202051', remittance: 'Invoice 42', reference: 'CREDIT-0001' });
    const dep = await waitFor(
      async () => h.db.selectFrom('deposits').selectAll().where('business_id', '=', biz.id).where('environment', '=', 'live').where('status', '=', 'credited').executeTakeFirst(),
      'the live deposit credited',
    );
    expect(dep.external_id).toBe('CREDIT-0001');
    expect(dep.amount).toBe(100000n);
    // The bank delivers the same notification again under another name: no second deposit.
    const again = bank.credit({ creditorIban: virtualIban, amountMinor: '100000', debtorName: 'Client AG', debtorIban: 'DE02120300000000202051', remittance: 'Invoice 42', reference: 'CREDIT-0001' });
    expect(again).toBe(name);
    const copy = readFileSync(join(bank.filesDir, 'outbox', name));
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(bank.filesDir, 'outbox', 'copy-of-credit.xml'), copy);
    await waitFor(async () => h.db.selectFrom('rail_files').select('id').where('name', '=', 'copy-of-credit.xml').where('status', '=', 'processed').executeTakeFirst(), 'the copy processed');
    const deposits = await h.db.selectFrom('deposits').select('id').where('business_id', '=', biz.id).where('environment', '=', 'live').execute();
    expect(deposits).toHaveLength(1);
    const posts = await h.db.selectFrom('ledger_postings').select('key').where('key', '=', `deposit:${dep.id}:credit`).execute();
    expect(posts).toHaveLength(1);
  });

  it('accepted then booked: submitted, delivering with its file, then succeeded at the booking time; one pain.001 that validates', async () => {
    const id = await livePayout('José Núñez', 'FR1420041010050500013M02606', 'Payout 1');
    const delivering = await waitFor(async () => {
      const i = await h.db.selectFrom('rail_instructions').selectAll().where('payout_id', '=', id).executeTakeFirst();
      return i?.rail_file_id ? i : null;
    }, 'its file');
    expect(delivering.end_to_end_id).toMatch(/^po-[0-9a-z]{26}-1$/);
    expect(delivering.uetr).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const done = await finalStatus(id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    expect(done.delivered_at).not.toBeNull();
    expect(done.provider_reference).toBe(delivering.end_to_end_id);
    expect(await postings(id)).toEqual(['hold', 'settle']);
    expect(await events(id)).toEqual(['payout.submitted', 'payout.succeeded']);
    const file = await h.db.selectFrom('rail_files').selectAll().where('id', '=', delivering.rail_file_id!).executeTakeFirstOrThrow();
    expect(file.status).toBe('uploaded');
    // The file as the bank received it: the original name transliterated, validated by the official XSD.
    const sent = readFileSync(join(bank.filesDir, 'inbox', 'answered', file.name), 'utf8');
    expect(sent).toBe(file.content);
    expect(sent).toContain('<Nm>Jose Nunez</Nm>');
    expect((await validateIso20022(sent, 'pain.001.001.09')).valid).toBe(true);
    // Our records keep the original name.
    expect(delivering.creditor_name).toBe('José Núñez');
  });

  it('AC01 ends failed (invalid_destination) with the bank reason code and the hold released', async () => {
    const id = await livePayout('Rita AC01');
    const done = await finalStatus(id, ['failed', 'succeeded']);
    expect(done.status).toBe('failed');
    expect(done.failure).toMatchObject({ code: 'invalid_destination', rail_reason_code: 'AC01', retryable: false });
    expect(await postings(id)).toEqual(['hold', 'release']);
    expect(await events(id)).toEqual(['payout.submitted', 'payout.failed']);
  });

  it('booked then returned (AC04) ends refunded; the status file sent twice is applied once', async () => {
    const id = await livePayout('Otto AC04 TWICE');
    const done = await finalStatus(id, ['refunded', 'failed']);
    expect(done.status).toBe('refunded');
    expect(done.failure).toMatchObject({ code: 'refunded_by_provider', rail_reason_code: 'AC04' });
    expect(await postings(id)).toEqual(['hold', 'settle', 'refund']);
    expect(await events(id)).toEqual(['payout.submitted', 'payout.succeeded', 'payout.refunded']);
  });

  it('a status that matches no payout is kept as an unmatched item; a file that does not parse is quarantined and the poll goes on', async () => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(bank.filesDir, 'outbox', 'garbage.xml'), '<<<not xml');
    const unknown = readdirSync(join(bank.filesDir, 'outbox')).find((n) => n.startsWith('pain002_'))!;
    const text = readFileSync(join(bank.filesDir, 'outbox', unknown), 'utf8').replace(/po-[0-9a-z]{26}-1/g, 'po-00000000000000000000000000-9');
    writeFileSync(join(bank.filesDir, 'outbox', 'unmatched.xml'), text);
    const q = await waitFor(async () => h.db.selectFrom('rail_files').selectAll().where('name', '=', 'garbage.xml').where('status', '=', 'quarantined').executeTakeFirst(), 'quarantine');
    expect(q.error).toBeTruthy();
    await waitFor(async () => h.db.selectFrom('rail_files').select('id').where('name', '=', 'unmatched.xml').where('status', '=', 'processed').executeTakeFirst(), 'the unmatched file processed');
    const unmatched = await h.db.selectFrom('rail_events').selectAll().where('end_to_end_id', '=', 'po-00000000000000000000000000-9').execute();
    expect(unmatched.length).toBeGreaterThan(0);
    expect(unmatched.every((e) => e.payout_id === null)).toBe(true);
  });

  it('no answer (SILENT): the payout stays delivering; asked past its deadline the rail has nothing and the overdue alert is raised', async () => {
    const id = await livePayout('Sam SILENT');
    await waitFor(async () => {
      const i = await h.db.selectFrom('rail_instructions').select('status').where('payout_id', '=', id).executeTakeFirst();
      return i?.status === 'in_file';
    }, 'its file');
    await new Promise((r) => setTimeout(r, 1500)); // a few polls: the bank said nothing
    expect((await payout(id)).status).toBe('delivering');
    const before = (await metricsRegistry.getSingleMetric('payouts_rail_overdue_total')!.get()).values.find((v) => v.labels.rail === 'sepa_credit_transfer')?.value ?? 0;
    expect(await payoutRailStatus(h.core, id, 1, 86_400_000)).toEqual([]);
    const after = (await metricsRegistry.getSingleMetric('payouts_rail_overdue_total')!.get()).values.find((v) => v.labels.rail === 'sepa_credit_transfer')?.value ?? 0;
    expect(after).toBe(before + 1);
    // A status the workflow may have missed (a lost Signal) is what asking the rail returns.
    const rejected = await livePayout('Lena AC01');
    await finalStatus(rejected, ['failed']);
    const recorded = await payoutRailStatus(h.core, rejected, 1, 0);
    expect(recorded.map((e) => e.type)).toEqual(['rejected']);
    expect(recorded[0]!.failure).toMatchObject({ code: 'invalid_destination', railReasonCode: 'AC01' });
  });

  it('two workers polling at once take a new credit file once: one deposit', async () => {
    const reference = 'CREDIT-RACE-1';
    bank.credit({ creditorIban: virtualIban, amountMinor: '2500', debtorName: 'Client AG', debtorIban: 'DE02120300000000202051', remittance: 'race', reference });
    await Promise.all([pollRailInbox(h.core, 'sepa_credit_transfer'), pollRailInbox(h.core, 'sepa_credit_transfer'), pollRailInbox(h.core, 'sepa_credit_transfer')]);
    const deposits = await waitFor(async () => {
      const d = await h.db.selectFrom('deposits').selectAll().where('external_id', '=', reference).execute();
      return d.length > 0 && d.every((x) => x.status === 'credited') ? d : null;
    }, 'the race deposit credited');
    expect(deposits).toHaveLength(1);
    expect(await h.db.selectFrom('ledger_postings').select('key').where('key', '=', `deposit:${deposits[0]!.id}:credit`).execute()).toHaveLength(1);
  });

  it('a text the SEPA file cannot carry is refused when the payout is created', async () => {
    const r = await h.request('POST', '/v1/payouts', {
      key: biz.live,
      body: { channel: 'sepa_eur', recipient: { type: 'bank_account', holder_name: '王小明', iban: 'FR1420041010050500013M02606', recipient_kind: 'individual' }, source_amount: '20' },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'recipient.holder_name' });
  });

  // Verification of Payee (docs/payee-verification.md): the test bank knows FR76...0189 as Marie Dupont, DE82...3999 as Erika Mustermann.
  it('VoP close match: held submitted with the bank\'s name, never in a file; paid after the business confirms', async () => {
    const id = await livePayout('Maria Dupont', 'FR7630006000011234567890189');
    const held = await waitFor(async () => {
      const p = await payout(id);
      return p.payee_verification?.status === 'awaiting_confirmation' ? p : null;
    }, 'the payout held for its payee');
    expect(held).toMatchObject({ status: 'submitted', payee_verification: { result: 'close_match', name_returned: 'Marie Dupont', reason_code: 'PN02' } });
    expect(await h.db.selectFrom('rail_instructions').select('end_to_end_id').where('payout_id', '=', id).executeTakeFirst()).toBeUndefined();
    const r = await h.request('POST', `/v1/payouts/${id}/confirm-payee`, { key: biz.live });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const paid = await finalStatus(id, ['succeeded', 'failed', 'canceled']);
    expect(paid).toMatchObject({ status: 'succeeded', payee_verification: { status: 'confirmed' } });
    expect(await events(id)).toEqual(expect.arrayContaining(['payout.payee_confirmation_required', 'payout.succeeded']));
  });

  it('VoP no match: canceled by the business, the hold returned, nothing sent to the bank', async () => {
    const id = await livePayout('John Smith', 'DE82370400440532013999');
    await waitFor(async () => (await payout(id)).payee_verification?.status === 'awaiting_confirmation', 'the payout held for its payee');
    const r = await h.request('POST', `/v1/payouts/${id}/cancel`, { key: biz.live });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await finalStatus(id, ['canceled', 'succeeded', 'failed'])).toMatchObject({ status: 'canceled', payee_verification: { result: 'no_match', status: 'canceled' } });
    expect(await postings(id)).toEqual(['hold', 'release']);
    expect(await h.db.selectFrom('rail_instructions').select('end_to_end_id').where('payout_id', '=', id).executeTakeFirst()).toBeUndefined();
  });
});
