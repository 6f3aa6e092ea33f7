import { describe, expect, it } from 'vitest';
import { parseCamt054 } from '../../src/rails/iso20022/camt054';
import { writePain001, type Pain001Transfer } from '../../src/rails/iso20022/pain001';
import { parsePain002 } from '../../src/rails/iso20022/pain002';
import { schemaAvailable } from '../../src/rails/iso20022/schemas';
import { validateIso20022 } from '../../src/rails/iso20022/validate';
import { answerPain001, incomingCredit, outcomeFor, type BankFile } from '../../tools/test-bank/answers';

const NOW = new Date('2026-11-25T07:30:00Z');
const DEBTOR = { name: 'Payouts Platform GmbH', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' };
const PAIN002 = schemaAvailable('pain.002.001.10');

function tx(n: number, name: string, amountMinor = '12345'): Pain001Transfer {
  return {
    endToEndId: `E2E-${n}`,
    uetr: `3f1c2a4b-5d6e-4f70-8a9b-${n.toString(16).padStart(12, '0')}`,
    amountMinor,
    currency: 'EUR',
    creditor: { name, iban: 'ES9121000418450200051332' },
    remittanceInformation: `Payout ${n}`,
  };
}

function upload(messageId: string, transfers: Pain001Transfer[]): string {
  return writePain001({ messageId, createdAt: NOW, paymentInformationId: `${messageId}-P`, requestedExecutionDate: '2026-11-26', debtor: DEBTOR, transfers });
}

/** Every answer file validates against its official XSD (pain.002 only when the file is in place). */
async function expectValid(files: BankFile[]): Promise<void> {
  for (const f of files) {
    if (f.name.startsWith('camt054_')) expect(await validateIso20022(f.xml, 'camt.054.001.08'), f.name).toEqual({ valid: true, errors: [] });
    else if (PAIN002) expect(await validateIso20022(f.xml, 'pain.002.001.10'), f.name).toEqual({ valid: true, errors: [] });
  }
}

describe('test bank: answerPain001', () => {
  it('default: ACCP, then a camt.054 DBIT BOOK entry with EndToEndId, UETR and booking date now', async () => {
    const files = await answerPain001(upload('MSG-OK', [tx(1, 'Jose Nunez')]), NOW);
    expect(files.map((f) => f.name)).toEqual(['pain002_MSG-OK_1.xml', 'camt054_MSG-OK_2.xml']);
    await expectValid(files);
    const report = parsePain002(files[0].xml);
    expect(report).toMatchObject({ originalMessageId: 'MSG-OK', groupStatus: 'ACCP', createdAt: '2026-11-25T07:30:00Z' });
    expect(report.payments).toEqual([
      {
        originalPaymentInformationId: 'MSG-OK-P',
        status: null,
        reasonCode: null,
        transactions: [{ originalEndToEndId: 'E2E-1', uetr: tx(1, '').uetr, status: 'ACCP', reasonCode: null, additionalInfo: null }],
      },
    ]);
    const camt = parseCamt054(files[1].xml);
    expect(camt.accountIban).toBe(DEBTOR.iban);
    expect(camt.entries).toHaveLength(1);
    expect(camt.entries[0]).toMatchObject({
      creditDebit: 'DBIT',
      status: 'BOOK',
      bookingDate: NOW.toISOString(),
      amountMinor: '12345',
      currency: 'EUR',
      reversal: false,
      endToEndId: 'E2E-1',
      uetr: tx(1, '').uetr,
      originalMessageId: 'MSG-OK',
      returnReasonCode: null,
      creditorName: 'Jose Nunez',
      creditorIban: 'ES9121000418450200051332',
      remittanceInformation: 'Payout 1',
    });
  });

  it.each([
    ['AC01', 'Ann AC01 Lee'],
    ['AM04', 'am04 Bob'],
  ])('%s in the creditor name: pain.002 RJCT with that reason, and nothing booked', async (code, name) => {
    const files = await answerPain001(upload(`MSG-${code}`, [tx(1, name)]), NOW);
    expect(files.map((f) => f.name)).toEqual([`pain002_MSG-${code}_1.xml`]);
    await expectValid(files);
    const report = parsePain002(files[0].xml);
    expect(report.groupStatus).toBe('RJCT');
    expect(report.payments[0].transactions).toEqual([{ originalEndToEndId: 'E2E-1', uetr: tx(1, '').uetr, status: 'RJCT', reasonCode: code, additionalInfo: null }]);
  });

  it.each(['AC04', 'MS03'])('%s in the creditor name: ACCP, DBIT BOOK, then a CRDT return with that reason (same E2E and UETR)', async (code) => {
    const files = await answerPain001(upload(`MSG-${code}`, [tx(7, `Carl ${code}`, '500')]), NOW);
    expect(files.map((f) => f.name)).toEqual([`pain002_MSG-${code}_1.xml`, `camt054_MSG-${code}_2.xml`, `camt054_MSG-${code}_3.xml`]);
    await expectValid(files);
    expect(parsePain002(files[0].xml).payments[0].transactions[0]).toMatchObject({ status: 'ACCP', originalEndToEndId: 'E2E-7' });
    const [booking] = parseCamt054(files[1].xml).entries;
    expect(booking).toMatchObject({ creditDebit: 'DBIT', status: 'BOOK', amountMinor: '500', endToEndId: 'E2E-7', uetr: tx(7, '').uetr, returnReasonCode: null });
    const [ret] = parseCamt054(files[2].xml).entries;
    expect(ret).toMatchObject({
      creditDebit: 'CRDT',
      status: 'BOOK',
      amountMinor: '500',
      endToEndId: 'E2E-7',
      uetr: tx(7, '').uetr,
      originalMessageId: `MSG-${code}`,
      returnReasonCode: code,
      debtorName: `Carl ${code}`,
      debtorIban: 'ES9121000418450200051332',
      bookingDate: NOW.toISOString(),
    });
  });

  it('SILENT in the creditor name: no answer at all for that transaction', async () => {
    expect(await answerPain001(upload('MSG-SILENT', [tx(1, 'Dora SILENT')]), NOW)).toEqual([]);
    const files = await answerPain001(upload('MSG-MIX', [tx(1, 'Dora Silent'), tx(2, 'Eve')]), NOW);
    expect(files.map((f) => f.name)).toEqual(['pain002_MSG-MIX_1.xml', 'camt054_MSG-MIX_2.xml']);
    expect(parsePain002(files[0].xml).payments[0].transactions.map((t) => t.originalEndToEndId)).toEqual(['E2E-2']);
    expect(parseCamt054(files[1].xml).entries.map((e) => e.endToEndId)).toEqual(['E2E-2']);
  });

  it('TWICE in the creditor name: the same status file twice, under two names', async () => {
    const files = await answerPain001(upload('MSG-TWICE', [tx(1, 'Fay TWICE')]), NOW);
    expect(files.map((f) => f.name)).toEqual(['pain002_MSG-TWICE_1.xml', 'pain002_MSG-TWICE_2.xml', 'camt054_MSG-TWICE_3.xml']);
    expect(files[1].xml).toBe(files[0].xml);
    await expectValid(files);
    const twiceRejected = await answerPain001(upload('MSG-TW2', [tx(1, 'Gus TWICE AC01')]), NOW);
    expect(twiceRejected.map((f) => f.name)).toEqual(['pain002_MSG-TW2_1.xml', 'pain002_MSG-TW2_2.xml']);
    expect(parsePain002(twiceRejected[1].xml).payments[0].transactions[0]).toMatchObject({ status: 'RJCT', reasonCode: 'AC01' });
  });

  it('a file with every outcome: PART, one booking file, one return file, deterministic names and bytes', async () => {
    const xml = upload('MSG/ALL 1'.replace(' ', '-'), [tx(1, 'A'), tx(2, 'B AC01'), tx(3, 'C AM04'), tx(4, 'D AC04'), tx(5, 'E MS03'), tx(6, 'F SILENT')]);
    const files = await answerPain001(xml, NOW);
    expect(files.map((f) => f.name)).toEqual(['pain002_MSG_ALL-1_1.xml', 'camt054_MSG_ALL-1_2.xml', 'camt054_MSG_ALL-1_3.xml']);
    await expectValid(files);
    const report = parsePain002(files[0].xml);
    expect(report.groupStatus).toBe('PART');
    expect(report.payments[0].transactions.map((t) => [t.originalEndToEndId, t.status, t.reasonCode])).toEqual([
      ['E2E-1', 'ACCP', null],
      ['E2E-2', 'RJCT', 'AC01'],
      ['E2E-3', 'RJCT', 'AM04'],
      ['E2E-4', 'ACCP', null],
      ['E2E-5', 'ACCP', null],
    ]);
    expect(parseCamt054(files[1].xml).entries.map((e) => [e.endToEndId, e.creditDebit])).toEqual([
      ['E2E-1', 'DBIT'],
      ['E2E-4', 'DBIT'],
      ['E2E-5', 'DBIT'],
    ]);
    expect(parseCamt054(files[2].xml).entries.map((e) => [e.endToEndId, e.creditDebit, e.returnReasonCode])).toEqual([
      ['E2E-4', 'CRDT', 'AC04'],
      ['E2E-5', 'CRDT', 'MS03'],
    ]);
    expect(await answerPain001(xml, NOW)).toEqual(files);
    const ids = files.map((f) => (f.name.startsWith('pain002') ? parsePain002(f.xml).messageId : parseCamt054(f.xml).messageId));
    expect(new Set(ids).size).toBe(3);
    expect(ids.every((id) => id.length <= 35)).toBe(true);
  });

  it('an invalid file: one pain.002 with group status RJCT, reason FF01', async () => {
    const bad = upload('MSG-BAD', [tx(1, 'Hal')]).replace('<EndToEndId>E2E-1</EndToEndId>', `<EndToEndId>${'A'.repeat(36)}</EndToEndId>`);
    const files = await answerPain001(bad, NOW);
    expect(files.map((f) => f.name)).toEqual(['pain002_MSG-BAD_1.xml']);
    await expectValid(files);
    const report = parsePain002(files[0].xml);
    expect(report).toMatchObject({ originalMessageId: 'MSG-BAD', groupStatus: 'RJCT', groupReasonCode: 'FF01', payments: [] });
    const garbage = await answerPain001('not xml at all', NOW);
    expect(garbage.map((f) => f.name)).toEqual(['pain002_UNKNOWN_1.xml']);
    expect(parsePain002(garbage[0].xml)).toMatchObject({ originalMessageId: 'UNKNOWN', groupStatus: 'RJCT', groupReasonCode: 'FF01' });
  });

  it('decides by the first of SILENT, AC01, AM04, AC04, MS03 in the name', () => {
    expect(outcomeFor('x')).toBe('settle');
    expect(outcomeFor(null)).toBe('settle');
    expect(outcomeFor('AM04 AC01')).toBe('AC01');
    expect(outcomeFor('MS03 AC04')).toBe('AC04');
    expect(outcomeFor('ac01 silent')).toBe('SILENT');
  });
});

describe('test bank: incomingCredit', () => {
  it('a camt.054 CRDT BOOK notification for the virtual IBAN', async () => {
    const file = incomingCredit({
      creditorIban: 'DE02100100109307118603',
      amountMinor: '250075',
      debtorName: 'Müller & Söhne',
      debtorIban: 'FR1420041010050500013M02606',
      remittance: 'INV-2026-001',
      now: NOW,
      reference: 'CR-0001',
    });
    expect(file.name).toBe('camt054_credit_CR-0001_1.xml');
    expect(await validateIso20022(file.xml, 'camt.054.001.08')).toEqual({ valid: true, errors: [] });
    const n = parseCamt054(file.xml);
    expect(n.accountIban).toBe('DE02100100109307118603');
    expect(n.entries).toEqual([
      {
        entryReference: 'CR-0001',
        accountServicerReference: 'CR-0001',
        creditDebit: 'CRDT',
        status: 'BOOK',
        bookingDate: NOW.toISOString(),
        amountMinor: '250075',
        currency: 'EUR',
        reversal: false,
        endToEndId: 'NOTPROVIDED',
        uetr: null,
        originalMessageId: null,
        returnReasonCode: null,
        debtorName: 'Müller & Söhne',
        debtorIban: 'FR1420041010050500013M02606',
        creditorName: null,
        creditorIban: 'DE02100100109307118603',
        remittanceInformation: 'INV-2026-001',
        bankTransactionCode: 'PMNT/RCDT/ESCT',
        additionalEntryInfo: null,
      },
    ]);
    expect(incomingCredit({ creditorIban: 'DE02100100109307118603', amountMinor: '1', debtorName: 'A', debtorIban: 'FR1420041010050500013M02606', remittance: 'x', now: NOW, reference: 'CR-0002' }).xml).not.toBe(file.xml);
  });
});
