/**
 * The daily reconciliation of the settlement accounts end to end (docs/treasury.md): live payouts,
 * returns and deposits on both file rails through the real OpenSSH SFTP test bank, then the bank's
 * end-of-day statements (a camt.053 of the EUR account, a BAI2 of the USD account), each with one
 * planted break, read over the same connections by the real inbox poll. Every other entry is
 * matched and exactly the planted breaks are listed, with kind and amounts. Every statement read
 * is valid against its format: the camt.053 against the official XSD, the BAI2 by the independent
 * parser (PyPI bai2, tools/bai2/validator.ts), whose reading must equal ours. An unparseable
 * statement is quarantined and counted.
 *
 * The inbox is polled by calling the poll itself (no poller workflow): a poller is one per rail and
 * Temporal namespace, and the other live-rail test files run their own.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshRailHealth } from '../../src/core/rails/rail-adapters';
import { pollRailInbox } from '../../src/core/rails/inbox';
import { metricsRegistry } from '../../src/core/metrics/registry';
import { renderMetrics } from '../../src/core/metrics/scrape';
import { formatTreasuryReport, treasuryReport } from '../../src/core/treasury/report';
import { parseBai2 } from '../../src/rails/bai2';
import { validateIso20022 } from '../../src/rails/iso20022/validate';
import { ACH_BANK_ROUTING } from '../../tools/test-bank/ach-answers';
import { startTestBank, TEST_BANK_DEBTOR, type TestBank } from '../../tools/test-bank/bank';
import { TEST_BANK_USD_ACCOUNT, type ClosedStatements } from '../../tools/test-bank/statements';
import { skipWithoutTestSftpServer } from '../../tools/test-bank/sshd';
import { parseBai2Independently, skipWithoutBai2Validator } from '../../tools/bai2/validator';
import { createHarness, type Harness } from '../helpers/harness';

const SKIP = skipWithoutTestSftpServer('test/e2e/treasury-reconciliation.test.ts');
const BAI2_PARSER = !skipWithoutBai2Validator('test/e2e/treasury-reconciliation.test.ts');
const SEPA = 'sepa_credit_transfer';
const ACH = 'ach';

let h: Harness;
let bank: TestBank;
let dir: string;
let biz: { id: string; sandbox: string; live: string };
let polling = true;
let poller: Promise<void> | null = null;
const ids: Record<string, string> = {};
let first: ClosedStatements;

async function waitFor<T>(fn: () => Promise<T | undefined | false | null>, what: string, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

const status = async (id: string) => (await h.request('GET', `/v1/payouts/${id}`, { key: biz.live })).body.status as string;
const reaches = (id: string, s: string) => waitFor(async () => (await status(id)) === s, `payout ${id} ${s}`);

async function payout(body: Record<string, unknown>): Promise<string> {
  const r = await h.request('POST', '/v1/payouts', { key: biz.live, body: { source_amount: '20', ...body } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

const sepaPayout = (name: string) => payout({ channel: 'sepa_eur', recipient: { type: 'bank_account', holder_name: name, iban: 'FR1420041010050500013M02606', recipient_kind: 'individual' } });
const achPayout = (account: string) =>
  payout({ channel: 'ach_usd', recipient: { type: 'bank_account', holder_name: 'Jordan Lee', account_number: account, routing_number: '021000021', account_type: 'checking', recipient_kind: 'individual' } });

const instruction = (id: string) => h.db.selectFrom('rail_instructions').selectAll().where('payout_id', '=', id).executeTakeFirstOrThrow();
const quarantined = async () =>
  (await metricsRegistry.getSingleMetric('rail_files_total')!.get()).values.filter((v) => v.labels.outcome === 'quarantined').reduce((s, v) => s + v.value, 0);

beforeAll(async () => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), 'test-bank-treasury-'));
  bank = await startTestBank({ dir, pollMs: 100 });
  h = await createHarness({
    env: {
      ...bank.env,
      // Window lengths the other live-rail test files do not use, so no window workflow id is shared.
      RAIL_SEPA_BATCH_WINDOW: 'PT1.3S',
      RAIL_ACH_BATCH_WINDOW: 'PT1.3S',
      RAIL_ACH_SETTLE_AFTER: 'PT2S',
      RAIL_SEPA_RETURN_WINDOW: 'PT30S',
      RAIL_ACH_RETURN_WINDOW: 'PT30S',
      TREASURY_BOOKS_ONLY_GRACE: '1',
    },
  });
  await refreshRailHealth(h.core);
  poller = (async () => {
    while (polling) {
      for (const rail of [SEPA, ACH]) await pollRailInbox(h.core, rail).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  biz = await h.business();
  // Fund the live balance through both rails' incoming credits (live deposits).
  for (const currency of ['EUR', 'USD']) {
    const va = await h.request('POST', '/v1/virtual-accounts', { key: biz.live, body: { currency } });
    expect(va.status, JSON.stringify(va.body)).toBe(201);
    const row = await h.db.selectFrom('virtual_accounts').select('account_identifier').where('id', '=', va.body.id).executeTakeFirstOrThrow();
    if (currency === 'EUR') bank.credit({ creditorIban: row.account_identifier, amountMinor: '100000', debtorName: 'Client AG', debtorIban: 'DE02120300000000202051', remittance: 'Invoice 7', reference: 'CREDIT-T1' });
    else bank.achCredit({ accountNumber: row.account_identifier, routingNumber: ACH_BANK_ROUTING, amountMinor: '100000', originatorName: 'ACME CORP', reference: 'INVOICE 8' });
  }
  await waitFor(async () => (await h.db.selectFrom('deposits').select('id').where('business_id', '=', biz.id).where('status', '=', 'credited').execute()).length === 2, 'both deposits credited');
}, 180_000);

afterAll(async () => {
  polling = false;
  await poller;
  await h?.close();
  await bank?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(SKIP)('the settlement accounts reconciled from the test bank\'s end-of-day statements', () => {
  it('a camt.053 with a planted fee and a BAI2 with a withheld return: every other entry matched, exactly those two breaks listed', async () => {
    ids.sepaOk = await sepaPayout('Ana Example');
    ids.sepaReturn = await sepaPayout('Closed AC04');
    ids.achOk = await achPayout('123456789');
    ids.achReturn = await achPayout('9990000103');
    await reaches(ids.sepaOk, 'succeeded');
    await reaches(ids.sepaReturn, 'refunded');
    await reaches(ids.achOk, 'succeeded');
    await reaches(ids.achReturn, 'failed');
    const returned = await instruction(ids.achReturn);

    first = bank.closeDay({ EUR: { fee: { amountMinor: '750', text: 'Account maintenance fee' } }, USD: { withholdReturn: true } });
    expect(first.planted).toEqual([
      { account: 'EUR', kind: 'bank_only', reference: 'FEE-EUR-1', amountMinor: '-750' },
      { account: 'USD', kind: 'books_only', reference: returned.trace_number, amountMinor: returned.amount_minor.toString() },
    ]);
    // Every statement read here is valid against its format.
    expect(await validateIso20022(first.camt053.xml, 'camt.053.001.08')).toEqual({ valid: true, errors: [] });
    if (BAI2_PARSER) {
      const theirs = await parseBai2Independently(first.bai2.text);
      expect(theirs.valid, JSON.stringify(theirs)).toBe(true);
      const ours = parseBai2(first.bai2.text).groups[0].accounts[0];
      if (theirs.valid) {
        expect(theirs.accounts).toHaveLength(1);
        expect(theirs.accounts[0].amounts).toEqual(Object.fromEntries(Object.entries(ours.amounts).map(([k, v]) => [k, Number(v)])));
        expect(theirs.accounts[0].transactions.map((t) => [t.type_code, t.credit_debit === 'credit' ? 'CRDT' : 'DBIT', String(t.amount), t.customer_reference])).toEqual(
          ours.transactions.map((t) => [t.typeCode, t.creditDebit, t.amountMinor, t.customerReference]),
        );
      }
    }

    await waitFor(async () => (await h.db.selectFrom('treasury_statements').select('id').where('reconciled_at', 'is not', null).execute()).length === 2, 'both statements read and reconciled');
    const report = await treasuryReport(h.db);
    const eur = report.find((a) => a.rail === SEPA)!;
    const usd = report.find((a) => a.rail === ACH)!;
    expect(eur.accountId).toBe(TEST_BANK_DEBTOR.iban);
    expect(eur.format).toBe('camt.053');
    expect(usd.accountId).toBe(TEST_BANK_USD_ACCOUNT);
    expect(usd.format).toBe('bai2');

    // EUR: the deposit credit, two payout debits and the return credit matched; the fee is bank_only.
    const eurEntries = await h.db.selectFrom('treasury_statement_entries').selectAll().where('statement_id', '=', eur.newest.id).orderBy('position').execute();
    expect(eurEntries).toHaveLength(5);
    const sepaOk = await instruction(ids.sepaOk);
    const sepaReturn = await instruction(ids.sepaReturn);
    expect(eurEntries.filter((e) => e.matched_key).map((e) => e.matched_key).sort()).toEqual(
      ['CRDT:CREDIT-T1', `DBIT:${sepaOk.end_to_end_id}`, `DBIT:${sepaReturn.end_to_end_id}`, `CRDT:${sepaReturn.end_to_end_id}`].sort(),
    );
    expect(eur.breaks.map((b) => ({ kind: b.kind, reference: b.reference, bank: b.bankAmountMinor, books: b.booksAmountMinor, difference: b.differenceMinor }))).toEqual([
      { kind: 'bank_only', reference: 'FEE-EUR-1', bank: '-750', books: null, difference: '-750' },
    ]);
    expect(eur.breaks[0].detail).toContain('Account maintenance fee');

    // USD: the deposit credit and both entries' debits matched; the return the bank never booked is books_only.
    const usdEntries = await h.db.selectFrom('treasury_statement_entries').selectAll().where('statement_id', '=', usd.newest.id).orderBy('position').execute();
    const achOk = await instruction(ids.achOk);
    const credit = await h.db.selectFrom('rail_events').select('details').where('rail', '=', ACH).where('type', '=', 'credit').executeTakeFirstOrThrow();
    expect(usdEntries.map((e) => e.matched_key).sort()).toEqual([`CRDT:${(credit.details as { traceNumber: string }).traceNumber}`, `DBIT:${achOk.trace_number}`, `DBIT:${returned.trace_number}`].sort());
    expect(usd.breaks.map((b) => ({ kind: b.kind, reference: b.reference, bank: b.bankAmountMinor, books: b.booksAmountMinor, difference: b.differenceMinor }))).toEqual([
      { kind: 'books_only', reference: returned.trace_number, bank: null, books: returned.amount_minor.toString(), difference: `-${returned.amount_minor}` },
    ]);
    expect(usd.breaks[0].detail).toContain(`ACH return R03 of payout ${ids.achReturn}`);

    // The position: the bank's balance differs from our books by exactly the open breaks.
    for (const a of [eur, usd]) {
      const breaks = a.breaks.reduce((s, b) => s + BigInt(b.differenceMinor), 0n);
      expect(BigInt(a.newest.bankMinor) - BigInt(a.newest.booksMinor!)).toBe(breaks);
      expect(a.newest.inTransitMinor).toBe('0');
    }
    const text = formatTreasuryReport(report);
    expect(text).toContain('bank_only');
    expect(text).toContain('-7.50 EUR');
    expect(text).toContain(`books_only`);

    // The gauge the alert watches.
    const metrics = await renderMetrics(h.db);
    expect(metrics).toContain('treasury_open_breaks{rail="sepa_credit_transfer",kind="bank_only"} 1');
    expect(metrics).toContain('treasury_open_breaks{rail="ach",kind="books_only"} 1');
    expect(metrics).toContain('treasury_open_breaks{rail="ach",kind="bank_only"} 0');
  });

  it('the next statements chain on the first: no balance drift, the unresolved breaks stay open, nothing new', async () => {
    const second = bank.closeDay();
    expect(second.planted).toEqual([]);
    expect(await validateIso20022(second.camt053.xml, 'camt.053.001.08')).toEqual({ valid: true, errors: [] });
    if (BAI2_PARSER) expect((await parseBai2Independently(second.bai2.text)).valid).toBe(true);
    await waitFor(async () => (await h.db.selectFrom('treasury_statements').select('id').where('reconciled_at', 'is not', null).execute()).length === 4, 'the second statements reconciled');
    const report = await treasuryReport(h.db);
    for (const a of report) expect(a.statements).toBe(2);
    const open = await h.db.selectFrom('treasury_breaks').select(['rail', 'kind']).where('status', '=', 'open').orderBy('rail').execute();
    expect(open).toEqual([
      { rail: ACH, kind: 'books_only' },
      { rail: SEPA, kind: 'bank_only' },
    ]);
  });

  it('a statement that does not parse is quarantined and counted, on either connection; nothing is recorded from it', async () => {
    const before = await quarantined();
    // A camt.053 without its closing balance, and a BAI2 whose account control total is wrong.
    const camt = first.camt053.xml.replace(/<Bal>\s*<Tp>\s*<CdOrPrtry>\s*<Cd>CLBD<\/Cd>[\s\S]*?<\/Bal>/, '');
    expect(camt).not.toContain('CLBD');
    writeFileSync(join(bank.filesDir, 'outbox', 'camt053_broken.xml'), camt);
    const bai2 = readFileSync(join(bank.filesDir, 'ach', 'outbox', first.bai2.name), 'utf8').replace(/^49,(-?\d+),/m, (_, t: string) => `49,${BigInt(t) + 1n},`);
    writeFileSync(join(bank.filesDir, 'ach', 'outbox', 'bai2_broken.bai'), bai2);
    const rows = await waitFor(async () => {
      const r = await h.db.selectFrom('rail_files').select(['name', 'status', 'error']).where('name', 'in', ['camt053_broken.xml', 'bai2_broken.bai']).where('status', '=', 'quarantined').execute();
      return r.length === 2 ? r : null;
    }, 'both broken statements quarantined');
    expect(rows.find((r) => r.name === 'camt053_broken.xml')!.error).toContain('CLBD');
    expect(rows.find((r) => r.name === 'bai2_broken.bai')!.error).toContain('account control total');
    expect(await quarantined()).toBe(before + 2);
    expect((await h.db.selectFrom('treasury_statements').select('id').execute()).length).toBe(4);
  });
});
