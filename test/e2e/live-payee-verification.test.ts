/**
 * Verification of Payee on the live sepa_eur rail against the real test bank over SFTP
 * (docs/payee-verification.md): the VoP request goes to `vop/inbox`, the pain.002.001.14 report comes
 * back from `vop/outbox`, every report the bank wrote validates against the official XSD.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPayee } from '../../src/core/payouts/payee-verification';
import { railAdapterFor, refreshRailHealth } from '../../src/core/rails/rail-adapters';
import { receiveDeposit } from '../../src/core/funding/deposits';
import type { PayeeVerificationRequest } from '../../src/rails/adapter';
import { validateIso20022 } from '../../src/rails/iso20022/validate';
import { startTestBank, type TestBank } from '../../tools/test-bank/bank';
import { skipWithoutTestSftpServer } from '../../tools/test-bank/sshd';
import { createHarness, type Harness } from '../helpers/harness';
import { waitFor as poll } from '../helpers/wait-for';

/** Skipped (with the reason) on a machine without OpenSSH, unless REQUIRE_SSHD=1 (CI): tools/test-bank/sshd.ts. */
const SKIP = skipWithoutTestSftpServer('test/e2e/live-payee-verification.test.ts');

let h: Harness;
let bank: TestBank;
let dir: string;
let biz: { id: string; sandbox: string; live: string };

const request = (payoutId: string, name: string, iban: string): PayeeVerificationRequest => ({
  payoutId,
  environment: 'live',
  businessId: 'biz_test',
  amountMinor: '2000',
  creditor: { name, kind: 'individual', country: null, account: { iban } },
});

/** The shared poll with this file's longer default (live rails over SFTP). */
const waitFor = <T>(fn: () => T | Promise<T>, what: string, timeoutMs = 60_000) => poll(fn, what, timeoutMs);

beforeAll(async () => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), 'test-bank-vop-'));
  bank = await startTestBank({ dir, pollMs: 100 });
  h = await createHarness({ env: { ...Object.fromEntries(Object.entries(bank.env).filter(([k]) => k.startsWith('RAIL_SEPA_'))), RAIL_SEPA_VOP_TIMEOUT: 'PT5S' } });
  biz = await h.business();
}, 120_000);

afterAll(async () => {
  await h?.close();
  await bank?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(SKIP)('Verification of Payee on the live sepa_eur rail, against the test bank over SFTP', () => {
  const adapter = () => railAdapterFor(h.core, 'live', 'sepa_credit_transfer')!;

  it('answers a match, a close match with the holder’s name, a no match and not possible', async () => {
    expect(await adapter().verifyPayee!(request('po_vop00000000000000000000001', 'Marie Dupont', 'FR7630006000011234567890189'))).toEqual({ result: 'match', nameReturned: null, reasonCode: 'MTCH' });
    expect(await adapter().verifyPayee!(request('po_vop00000000000000000000002', 'Maria Dupont', 'FR7630006000011234567890189'))).toEqual({ result: 'close_match', nameReturned: 'Marie Dupont', reasonCode: 'PN02' });
    expect(await adapter().verifyPayee!(request('po_vop00000000000000000000003', 'John Smith', 'DE82370400440532013999'))).toEqual({ result: 'no_match', nameReturned: null, reasonCode: 'PN01' });
    expect(await adapter().verifyPayee!(request('po_vop00000000000000000000004', 'Jane NOAP', 'NL91ABNA0417164300'))).toEqual({ result: 'not_possible', nameReturned: null, reasonCode: 'NR01' });
    // The requests the bank took: one-transaction pain.001 files under the documented names.
    expect(readdirSync(join(bank.filesDir, 'vop', 'inbox', 'answered')).sort()).toEqual([1, 2, 3, 4].map((n) => `VOP-po-vop0000000000000000000000${n}.xml`));
  }, 60_000);

  it('answers unavailable when the bank says nothing within RAIL_SEPA_VOP_TIMEOUT', async () => {
    const started = Date.now();
    expect(await adapter().verifyPayee!(request('po_vop00000000000000000000005', 'Jane VOPSILENT', 'NL91ABNA0417164300'))).toMatchObject({ result: 'unavailable' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
  }, 60_000);

  it('verifyPayee records the answer once per payout and shows it on the payout; a close match asks the business', async () => {
    // A live sepa_eur payout needs a live balance (a deposit received the core's way) and a working connection.
    // No rail poller here: pollers are one per rail and Temporal namespace (test/e2e/live-sepa-rail.test.ts has the SEPA one).
    await refreshRailHealth(h.core);
    const caller = { businessId: biz.id, environment: 'live' as const, keyId: 'test', role: 'owner' as const, policy: null };
    await receiveDeposit(h.core, caller, { source: 'crypto', amount: '1000', currency: 'USDC', externalId: `fund-${biz.id}` });
    await waitFor(async () => h.db.selectFrom('deposits').select('id').where('business_id', '=', biz.id).where('status', '=', 'credited').executeTakeFirst(), 'the live deposit');
    const created = await h.request('POST', '/v1/payouts', {
      key: biz.live,
      body: { channel: 'sepa_eur', recipient: { type: 'bank_account', holder_name: 'Maria Dupont', iban: 'FR7630006000011234567890189', recipient_kind: 'individual' }, source_amount: '20' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    // The payout's workflow asks in its checks phase; the core then answers from the record.
    await waitFor(async () => h.db.selectFrom('payee_verifications').select('payout_id').where('payout_id', '=', id).executeTakeFirst(), 'the workflow\'s verification');
    const step = await verifyPayee(h.core, id);
    expect(step).toMatchObject({ outcome: 'confirm', result: 'close_match' });
    expect((step as { confirmWithinMs: number }).confirmWithinMs).toBeGreaterThan(23 * 3600_000);
    // Idempotent: the recorded answer, no second request to the bank.
    expect(await verifyPayee(h.core, id)).toMatchObject({ outcome: 'confirm', result: 'close_match' });
    expect(readdirSync(join(bank.filesDir, 'vop', 'inbox', 'answered')).filter((n) => n.includes(id.replace('_', '-')))).toHaveLength(1);
    const row = await h.db.selectFrom('payee_verifications').selectAll().where('payout_id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ result: 'close_match', name_returned: 'Marie Dupont', reason_code: 'PN02', decision: null, environment: 'live', business_id: biz.id });
    const got = await h.request('GET', `/v1/payouts/${id}`, { key: biz.live });
    expect(got.body.payee_verification).toMatchObject({ result: 'close_match', name_returned: 'Marie Dupont', reason_code: 'PN02', confirm_by: row.confirm_by!.toISOString() });
    const events = await h.db.selectFrom('events').select('type').where('object_id', '=', id).where('type', '=', 'payout.payee_confirmation_required').execute();
    expect(events).toHaveLength(1);
  }, 120_000);

  it('every VoP report the test bank wrote validates against the official pain.002.001.14 XSD', async () => {
    const reports = readdirSync(join(bank.filesDir, 'vop', 'outbox')).filter((n) => n.endsWith('.xml'));
    expect(reports.length).toBeGreaterThanOrEqual(5);
    for (const name of reports) {
      const v = await validateIso20022(readFileSync(join(bank.filesDir, 'vop', 'outbox', name), 'utf8'), 'pain.002.001.14');
      expect(v.errors, name).toEqual([]);
    }
  }, 60_000);
});
