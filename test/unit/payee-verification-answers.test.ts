import { describe, expect, it } from 'vitest';
import { writePain001 } from '../../src/rails/iso20022/pain001';
import { parseVopReport, vopGroupStatus, writeVopReport } from '../../src/rails/iso20022/pain002-vop';
import { validateIso20022 } from '../../src/rails/iso20022/validate';
import { composeVopRequest, sepaVerifyPayee, vopMessageId } from '../../src/rails/sepa/payee-verification';
import { sandboxVerifyPayee } from '../../src/sandbox/rail-adapter';
import { answerVopRequest, TEST_BANK_HOLDERS, verifyHolder } from '../../tools/test-bank/answers';

const debtor = { name: 'Payouts Platform GmbH', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' };

function vopRequest(name: string, iban: string, msgId = 'VOP-po-01k0000000000000000000000'): string {
  return writePain001({
    messageId: msgId,
    createdAt: new Date('2026-11-29T10:00:00Z'),
    paymentInformationId: `${msgId}-1`,
    requestedExecutionDate: '2026-11-30',
    debtor,
    batchBooking: false,
    transfers: [{ endToEndId: `${msgId}-1`, uetr: '6f1e8a2c-3b4d-4e5f-8a6b-7c8d9e0f1a2b', amountMinor: '2000', currency: 'EUR', creditor: { name, iban }, remittanceInformation: null }],
  });
}

describe('the test bank answers Verification of Payee requests (pain.002.001.14, official XSD)', () => {
  const cases: Array<[string, string, string, string, string, string | null]> = [
    ['exact name', 'Marie Dupont', 'FR7630006000011234567890189', 'RCVC', 'match', null],
    ['close match', 'Maria Dupont', 'FR7630006000011234567890189', 'RVCM', 'close_match', 'Marie Dupont'],
    ['accents and case aside', 'MARIE  DUPONT', 'FR7630006000011234567890189', 'RCVC', 'match', null],
    ['another name', 'John Smith', 'DE82370400440532013999', 'RVCM', 'no_match', null],
    ['not possible', 'Jane NOAP', 'NL91ABNA0417164300', 'RVNC', 'not_possible', null],
    ['unknown IBAN', 'Anyone', 'NL91ABNA0417164300', 'RCVC', 'match', null],
  ];
  for (const [what, name, iban, group, result, returned] of cases) {
    it(`${what}: group ${group}, ${result}, valid against the XSD`, async () => {
      const file = await answerVopRequest(vopRequest(name, iban), new Date('2026-11-29T10:00:01Z'));
      expect(file).not.toBeNull();
      expect(file!.name).toBe('vop_VOP-po-01k0000000000000000000000.xml');
      const validation = await validateIso20022(file!.xml, 'pain.002.001.14');
      expect(validation.errors).toEqual([]);
      const report = parseVopReport(file!.xml);
      expect(report.groupStatus).toBe(group);
      expect(report.originalMessageId).toBe('VOP-po-01k0000000000000000000000');
      expect(report.transactions).toEqual([{ originalEndToEndId: 'VOP-po-01k0000000000000000000000-1', result, reasonCode: { match: 'MTCH', close_match: 'PN02', no_match: 'PN01', not_possible: 'NR01' }[result], nameReturned: returned }]);
    }, 60_000);
  }

  it('does not answer VOPSILENT, and answers an invalid request RVNC FF01 (valid against the XSD)', async () => {
    expect(await answerVopRequest(vopRequest('Jane VOPSILENT', 'NL91ABNA0417164300'), new Date())).toBeNull();
    const file = await answerVopRequest('<Document/>', new Date());
    expect((await validateIso20022(file!.xml, 'pain.002.001.14')).errors).toEqual([]);
    expect(parseVopReport(file!.xml)).toMatchObject({ groupStatus: 'RVNC', transactions: [] });
    expect(file!.xml).toContain('<Cd>FF01</Cd>');
  }, 60_000);

  it('keeps the documented holders and group statuses', () => {
    expect(TEST_BANK_HOLDERS.FR7630006000011234567890189).toBe('Marie Dupont');
    expect(verifyHolder('FR76 3000 6000 0112 3456 7890 189', 'Marie Dupond')).toEqual({ result: 'close_match', nameReturned: 'Marie Dupont' });
    expect(vopGroupStatus(['match', 'no_match'])).toBe('RVCM');
    expect(vopGroupStatus(['not_possible'])).toBe('RVNC');
    const xml = writeVopReport({ messageId: 'M', createdAt: new Date(), originalMessageId: 'O', originalPaymentInformationId: 'P', transactions: [{ originalEndToEndId: 'E', iban: 'FR7630006000011234567890189', result: 'close_match', nameReturned: 'Marie Dupont' }] });
    expect(xml).toContain('<TxSts>RVMC</TxSts>');
    expect(xml).toMatch(/<Rsn>\s*<Cd>PN02<\/Cd>\s*<\/Rsn>\s*<AddtlInf>CMTC<\/AddtlInf>/);
    expect(xml).toContain('<Nm>Marie Dupont</Nm>');
  });
});

describe('the sandbox Verification of Payee (docs/sandbox.md magic holder names)', () => {
  const ask = (name: string) =>
    sandboxVerifyPayee({ payoutId: 'po_1', environment: 'sandbox', businessId: 'biz_1', amountMinor: '100', creditor: { name, kind: 'individual', country: 'FR', account: { iban: 'FR7630006000011234567890189' } } });
  it('answers by the magic words', () => {
    expect(ask('Maria Dupont')).toEqual({ result: 'match', nameReturned: null, reasonCode: 'MTCH' });
    expect(ask('Maria Close Match Dupont')).toEqual({ result: 'close_match', nameReturned: 'Maria Dupont', reasonCode: 'PN02' });
    expect(ask('Someone No Match')).toEqual({ result: 'no_match', nameReturned: null, reasonCode: 'PN01' });
    expect(ask('NOT POSSIBLE Ltd')).toEqual({ result: 'not_possible', nameReturned: null, reasonCode: 'NR01' });
  });
});

describe('the live sepa_eur verifier without a bank', () => {
  const sepa = {
    sftp: { host: '127.0.0.1', port: 1, username: 'nobody', privateKeyPath: '/nonexistent/key', hostKeySha256: `SHA256:${'A'.repeat(43)}` },
    uploadDir: 'inbox',
    downloadDir: 'outbox',
    debtor,
    bankName: 'Bank',
    cutOff: '14:00',
    timeZone: 'Europe/Brussels',
    batchWindowMs: 1000,
    maxFileTransactions: 10,
    pollIntervalMs: 1000,
    returnWindowMs: 1000,
    vop: { uploadDir: 'vop/inbox', downloadDir: 'vop/outbox', timeoutMs: 1000 },
    virtualIbanRange: null,
  };
  const warnings: string[] = [];
  const host = { now: () => new Date('2026-11-29T10:00:00Z'), log: { info() {}, warn: (_o: object, msg: string) => void warnings.push(msg), error() {} } };
  const ask = (name: string, iban: string) =>
    sepaVerifyPayee(sepa, host, { payoutId: 'po_01k0000000000000000000000', environment: 'live', businessId: 'biz_1', amountMinor: '2000', creditor: { name, kind: 'individual', country: null, account: { iban } } });

  it('an IBAN a SEPA file cannot carry is not possible (AC01), without asking', async () => {
    expect(await ask('Marie Dupont', 'FR00 not an iban')).toEqual({ result: 'not_possible', nameReturned: null, reasonCode: 'AC01' });
    expect(warnings).toEqual([]);
  });

  it('an unreachable bank answers unavailable (asked again later) and is logged', async () => {
    expect(await ask('Marie Dupont', 'FR7630006000011234567890189')).toMatchObject({ result: 'unavailable' });
    expect(warnings).toEqual(['Verification of Payee: no answer from the bank']);
  });

  it('the request is a one-transaction pain.001 valid against the official XSD, named by the payout', async () => {
    const xml = composeVopRequest(sepa, { payoutId: 'po_01k0000000000000000000000', environment: 'live', businessId: 'biz_1', amountMinor: '2000', creditor: { name: 'José Núñez', kind: 'individual', country: null, account: { iban: 'FR7630006000011234567890189' } } }, new Date('2026-11-29T10:00:00Z'));
    expect((await validateIso20022(xml, 'pain.001.001.09')).errors).toEqual([]);
    expect(vopMessageId('po_01k0000000000000000000000')).toBe('VOP-po-01k0000000000000000000000');
    expect(xml).toContain('<MsgId>VOP-po-01k0000000000000000000000</MsgId>');
    expect(xml).toContain('<Nm>Jose Nunez</Nm>');
    expect(xml.match(/<CdtTrfTxInf>/g)).toHaveLength(1);
  }, 60_000);
});
