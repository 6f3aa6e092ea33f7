/**
 * BAI2 (docs/treasury.md "BAI2"): our parser and writer (src/rails/bai2/), checked against the
 * independent parser (PyPI bai2, tools/bai2/validator.ts): every file written here is read by both,
 * and both must read the same balances and transactions; files the standard forbids are refused.
 */
import { describe, expect, it } from 'vitest';
import { Bai2ParseError, parseBai2, writeBai2, type Bai2Input } from '../../src/rails/bai2';
import { parseBai2Independently, skipWithoutBai2Validator } from '../../tools/bai2/validator';

const INDEPENDENT = !skipWithoutBai2Validator('test/unit/bai2.test.ts');

const statement: Bai2Input = {
  senderId: '091000019',
  receiverId: 'PAYOUTS',
  createdAt: new Date('2026-11-27T22:05:00Z'),
  fileId: '42',
  asOfDate: '2026-11-27',
  currency: 'USD',
  accountNumber: '4000123456',
  openingMinor: '100000000',
  closingMinor: '99996225',
  transactions: [
    { typeCode: '466', amountMinor: '2000', bankReference: 'S00000001', customerReference: '091000010000001', text: 'ACH SETTLEMENT' },
    { typeCode: '466', amountMinor: '2000', bankReference: 'S00000002', customerReference: '091000010000002', text: 'ACH SETTLEMENT' },
    { typeCode: '257', amountMinor: '2000', bankReference: 'R00000003', customerReference: '091000010000002', text: 'ACH RETURN R03' },
    { typeCode: '661', amountMinor: '1775', bankReference: 'FEE-USD-42', customerReference: null, text: 'ACCOUNT ANALYSIS FEE' },
  ],
};

/** Our reading in the independent parser's shape. */
function ours(text: string) {
  const a = parseBai2(text).groups[0].accounts[0];
  return {
    account: a.accountNumber,
    amounts: Object.fromEntries(Object.entries(a.amounts).map(([k, v]) => [k, Number(v)])),
    transactions: a.transactions.map((t) => ({ type_code: t.typeCode, credit_debit: t.creditDebit === 'CRDT' ? 'credit' : 'debit', amount: Number(t.amountMinor), bank_reference: t.bankReference, customer_reference: t.customerReference, text: t.text })),
  };
}

describe('BAI2', () => {
  it('writes a statement whose records, counts and control totals read back the same', () => {
    const text = writeBai2(statement);
    expect(text.split('\n').filter(Boolean).map((l) => l.slice(0, 2))).toEqual(['01', '02', '03', '16', '16', '16', '16', '49', '98', '99']);
    expect(text).toContain('\n49,200004000,6/\n');
    const f = parseBai2(text);
    expect(f).toMatchObject({ senderId: '091000019', receiverId: 'PAYOUTS', createdDate: '2026-11-27', createdTime: '22:05', fileId: '42' });
    expect(f.groups[0]).toMatchObject({ asOfDate: '2026-11-27', asOfTime: '24:00', currency: 'USD', groupStatus: '1' });
    const a = f.groups[0].accounts[0];
    expect(a.amounts).toEqual({ '010': '100000000', '015': '99996225' });
    expect(a.transactions.map((t) => [t.typeCode, t.creditDebit, t.amountMinor, t.customerReference])).toEqual([
      ['466', 'DBIT', '2000', '091000010000001'],
      ['466', 'DBIT', '2000', '091000010000002'],
      ['257', 'CRDT', '2000', '091000010000002'],
      ['661', 'DBIT', '1775', null],
    ]);
  });

  it.skipIf(!INDEPENDENT)('the independent parser accepts what we write and reads it as we do', async () => {
    for (const input of [statement, { ...statement, transactions: [], closingMinor: statement.openingMinor }, { ...statement, openingMinor: '-5000', closingMinor: '-14225' }]) {
      const text = writeBai2(input);
      const theirs = await parseBai2Independently(text);
      expect(theirs.valid, JSON.stringify(theirs)).toBe(true);
      if (!theirs.valid) continue;
      const { as_of_date, currency, ...rest } = theirs.accounts[0];
      expect(as_of_date).toBe('2026-11-27');
      expect(currency).toBe('USD');
      expect(rest).toEqual(ours(text));
    }
  });

  it('reads a bank file with continuations, funds types with availability, a text with commas and no trailing slash', async () => {
    const text = [
      '01,BANK,PAYOUTS,261127,0200,7,80,,2/',
      '02,PAYOUTS,BANK,1,261126,,USD,2/',
      '03,4000123456,,010,500000,,Z/',
      '88,015,497000,,Z/',
      '16,142,1000,V,261127,0900,B1,091000019999999,ACH CREDIT, ACME CORP, INV 7',
      '16,466,2500,S,1000,500,1000,B2,091000010000009,ACH SETTLEMENT/',
      '88,SECOND LINE',
      '16,698,500,Z,,/',
      '49,1001000,7/',
      '98,1001000,1,9/',
      '99,1001000,1,11/',
    ].join('\r\n');
    const a = parseBai2(text).groups[0].accounts[0];
    expect(a.amounts).toEqual({ '010': '500000', '015': '497000' });
    expect(a.transactions).toMatchObject([
      { typeCode: '142', creditDebit: 'CRDT', amountMinor: '1000', fundsType: 'V', bankReference: 'B1', customerReference: '091000019999999', text: 'ACH CREDIT, ACME CORP, INV 7' },
      { typeCode: '466', creditDebit: 'DBIT', amountMinor: '2500', fundsType: 'S', bankReference: 'B2', customerReference: '091000010000009', text: 'ACH SETTLEMENT SECOND LINE' },
      { typeCode: '698', creditDebit: 'DBIT', amountMinor: '500', bankReference: null, customerReference: null, text: null },
    ]);
    expect(parseBai2(text).groups[0].asOfTime).toBeNull();
    if (INDEPENDENT) {
      const theirs = await parseBai2Independently(text);
      expect(theirs.valid, JSON.stringify(theirs)).toBe(true);
      if (theirs.valid) expect(theirs.accounts[0].transactions.map((t) => [t.type_code, t.amount, t.customer_reference])).toEqual(a.transactions.map((t) => [t.typeCode, Number(t.amountMinor), t.customerReference]));
    }
  });

  it('refuses what the standard forbids, naming the line, as the independent parser does', async () => {
    const good = writeBai2(statement);
    const cases: Array<[string, string, RegExp]> = [
      ['wrong account control total', good.replace('49,200004000,', '49,200004001,'), /line 8: account control total 200004001 is not the sum/],
      ['wrong account record count', good.replace(/49,(\d+),6\//, '49,$1,7/'), /line 8: number of records 7 is not the account's 6/],
      ['wrong group control total', good.replace(/^98,\d+,/m, '98,1,'), /line 9: group control total 1/],
      ['wrong file record count', good.replace(/^99,(\d+),1,\d+\//m, '99,$1,1,11/'), /line 10: number of records is not the file's 10/],
      ['version 3', good.replace(/,2\/\n02/, ',3/\n02'), /line 1: version "3" is not BAI2 version 2/],
      ['a status code in a 16 record', good.replace('16,661,', '16,015,'), /type code "015" is not a credit or debit detail code/],
      ['a negative transaction amount', good.replace('16,661,1775', '16,661,-1775'), /amount "-1775" is not an unsigned integer amount/],
      ['a missing trailer', good.replace(/^99,.*\n/m, ''), /the file ends where the file trailer \(99\) should be/],
      ['a bad date', good.replace('02,PAYOUTS,091000019,1,261127', '02,PAYOUTS,091000019,1,261327'), /as-of date "261327" is not a date/],
      ['not BAI2 at all', 'Hello', /line 1: not a BAI2 record/],
    ];
    for (const [what, text, error] of cases) {
      expect(() => parseBai2(text), what).toThrow(Bai2ParseError);
      expect(() => parseBai2(text), what).toThrow(error);
    }
    if (INDEPENDENT) {
      // The integrity failures are refused by the independent parser too.
      for (const [what, text] of cases.slice(0, 4)) expect((await parseBai2Independently(text)).valid, what).toBe(false);
    }
  });

  it('refuses to write a zero or fractional amount or a status type code', () => {
    expect(() => writeBai2({ ...statement, transactions: [{ typeCode: '466', amountMinor: '0' }] })).toThrow(/not positive integer minor units/);
    expect(() => writeBai2({ ...statement, transactions: [{ typeCode: '466', amountMinor: '12.50' }] })).toThrow(/not positive integer minor units/);
    expect(() => writeBai2({ ...statement, transactions: [{ typeCode: '010', amountMinor: '100' }] })).toThrow(/not a credit or debit detail code/);
  });
});
