/**
 * camt.053.001.08 (docs/treasury.md "camt.053"): the writer's statements are valid against the
 * official ISO 20022 XSD (pinned, src/rails/iso20022/schemas.ts) and read back the same; the
 * parser refuses what it must.
 */
import { describe, expect, it } from 'vitest';
import { Iso20022ParseError, parseCamt053, validateIso20022, writeCamt053, type Camt053Input } from '../../src/rails/iso20022';

const input: Camt053Input = {
  messageId: 'STMT-EUR-7',
  createdAt: new Date('2026-11-27T22:00:00Z'),
  statementId: 'EUR-2026-11-27-7',
  sequenceNumber: 7,
  from: new Date('2026-11-26T22:00:00Z'),
  to: new Date('2026-11-27T22:00:00Z'),
  accountIban: 'DE89370400440532013000',
  currency: 'EUR',
  openingMinor: '1000',
  closingMinor: '-1150',
  openingDate: '2026-11-26',
  closingDate: '2026-11-27',
  entries: [
    { creditDebit: 'DBIT', status: 'BOOK', bookingDate: '2026-11-27T10:00:00Z', amountMinor: '1840', currency: 'EUR', endToEndId: 'po-01abc-1', uetr: '8a562c67-ca16-48ba-b074-65581be6f011', accountServicerReference: 'BOOK-1', creditorName: 'Ana Example', creditorIban: 'FR1420041010050500013M02606' },
    { creditDebit: 'CRDT', status: 'BOOK', bookingDate: '2026-11-27T11:00:00Z', amountMinor: '440', currency: 'EUR', endToEndId: 'po-01abc-1', returnReasonCode: 'AC04', accountServicerReference: 'RTRN-1' },
    { creditDebit: 'DBIT', status: 'BOOK', bookingDate: '2026-11-27', amountMinor: '750', currency: 'EUR', accountServicerReference: 'FEE-EUR-7', bankTransactionCode: { domain: 'ACMT', family: 'MDOP', subFamily: 'CHRG' }, additionalEntryInfo: 'Account maintenance fee' },
  ],
};

describe('camt.053.001.08', () => {
  it('writes a statement valid against the official XSD that reads back with signed balances, sequence, period and entries', async () => {
    const xml = writeCamt053(input);
    expect(await validateIso20022(xml, 'camt.053.001.08')).toEqual({ valid: true, errors: [] });
    const s = parseCamt053(xml);
    expect(s).toMatchObject({
      messageId: 'STMT-EUR-7',
      statementId: 'EUR-2026-11-27-7',
      sequenceNumber: '7',
      from: '2026-11-26T22:00:00Z',
      to: '2026-11-27T22:00:00Z',
      accountIban: 'DE89370400440532013000',
      currency: 'EUR',
      opening: { amountMinor: '1000', date: '2026-11-26' },
      closing: { amountMinor: '-1150', date: '2026-11-27' },
    });
    expect(s.entries.map((e) => [e.creditDebit, e.amountMinor, e.endToEndId, e.returnReasonCode, e.accountServicerReference, e.bankTransactionCode, e.additionalEntryInfo])).toEqual([
      ['DBIT', '1840', 'po-01abc-1', null, 'BOOK-1', 'PMNT/ICDT/ESCT', null],
      ['CRDT', '440', 'po-01abc-1', 'AC04', 'RTRN-1', 'PMNT/ICDT/RRTN', null],
      ['DBIT', '750', null, null, 'FEE-EUR-7', 'ACMT/MDOP/CHRG', 'Account maintenance fee'],
    ]);
  });

  it('a statement with no entries is valid too', async () => {
    const xml = writeCamt053({ ...input, entries: [], closingMinor: input.openingMinor });
    expect(await validateIso20022(xml, 'camt.053.001.08')).toEqual({ valid: true, errors: [] });
    expect(parseCamt053(xml).entries).toEqual([]);
  });

  it('the XSD refuses a statement without its account', async () => {
    const xml = writeCamt053(input).replace(/<Acct>[\s\S]*?<\/Acct>/, '');
    const v = await validateIso20022(xml, 'camt.053.001.08');
    expect(v.valid).toBe(false);
    expect(v.errors.join(' ')).toMatch(/Bal|Acct/);
  });

  it('refuses a missing closing balance, a foreign currency, three decimals, another message and a DOCTYPE', () => {
    const xml = writeCamt053(input);
    const cases: Array<[string, RegExp]> = [
      [xml.replace(/<Bal>\s*<Tp>\s*<CdOrPrtry>\s*<Cd>CLBD<\/Cd>[\s\S]*?<\/Bal>/, ''), /CLBD is missing/],
      [xml.replace('<Amt Ccy="EUR">7.50</Amt>', '<Amt Ccy="USD">7.50</Amt>'), /an amount in USD on an account in EUR/],
      [xml.replace('<Amt Ccy="EUR">7.50</Amt>', '<Amt Ccy="EUR">7.505</Amt>'), /not an amount with at most 2 decimals/],
      [xml.replaceAll('camt.053.001.08', 'camt.053.001.02'), /wrong namespace/],
      [`<!DOCTYPE x [<!ENTITY a "b">]>${xml}`, /DOCTYPE and ENTITY declarations are refused/],
    ];
    for (const [text, error] of cases) {
      expect(() => parseCamt053(text)).toThrow(Iso20022ParseError);
      expect(() => parseCamt053(text)).toThrow(error);
    }
  });
});
