import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { parsePain001, writePain001, type Pain001Input, type Pain001Transfer } from '../../src/rails/iso20022/pain001';
import { validateIso20022 } from '../../src/rails/iso20022/validate';

function uetr(n: number): string {
  return `3f1c2a4b-5d6e-4f70-8a9b-${n.toString(16).padStart(12, '0')}`;
}

function transfer(n: number, over: Partial<Pain001Transfer> = {}): Pain001Transfer {
  return {
    endToEndId: `E2E-${n}`,
    uetr: uetr(n),
    amountMinor: '12345',
    currency: 'EUR',
    creditor: { name: 'José Núñez', iban: 'ES91 2100 0418 4502 0005 1332', bic: null },
    remittanceInformation: 'Invoice 42',
    ...over,
  };
}

function input(transfers: Pain001Transfer[]): Pain001Input {
  return {
    messageId: 'MSG-20261125-1',
    createdAt: new Date('2026-11-25T06:00:00.123Z'),
    paymentInformationId: 'PMT-20261125-1',
    requestedExecutionDate: '2026-11-26',
    debtor: { name: 'Payouts Platform GmbH', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
    transfers,
  };
}

describe('writePain001', () => {
  it('writes a file that validates against the official pain.001.001.09 XSD', async () => {
    const xml = writePain001(input([transfer(1), transfer(2, { amountMinor: '5', creditor: { name: 'Ann Lee', iban: 'FR1420041010050500013M02606', bic: 'bnpafrpp' }, remittanceInformation: null })]));
    expect(xml).toContain('xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"');
    expect(await validateIso20022(xml, 'pain.001.001.09')).toEqual({ valid: true, errors: [] });
    const file = parsePain001(xml);
    expect(file.messageId).toBe('MSG-20261125-1');
    expect(file.createdAt).toBe('2026-11-25T06:00:00Z');
    expect(file.numberOfTransactions).toBe('2');
    expect(file.controlSum).toBe('123.50');
    const [pmt] = file.payments;
    expect(pmt).toMatchObject({ paymentInformationId: 'PMT-20261125-1', requestedExecutionDate: '2026-11-26', numberOfTransactions: '2', controlSum: '123.50' });
    expect(pmt.debtor).toEqual({ name: 'Payouts Platform GmbH', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' });
    expect(pmt.transfers[0]).toEqual({
      endToEndId: 'E2E-1',
      uetr: uetr(1),
      amountMinor: '12345',
      currency: 'EUR',
      creditor: { name: 'Jose Nunez', iban: 'ES9121000418450200051332', bic: null },
      remittanceInformation: 'Invoice 42',
    });
    expect(pmt.transfers[1]).toMatchObject({ amountMinor: '5', creditor: { name: 'Ann Lee', bic: 'BNPAFRPP' }, remittanceInformation: null });
    expect(xml).toContain('<InstdAmt Ccy="EUR">0.05</InstdAmt>');
    expect(xml).toMatch(/<SvcLvl>\s*<Cd>SEPA<\/Cd>/);
    expect(xml).toContain('<ChrgBr>SLEV</ChrgBr>');
    expect(xml).toContain('<BtchBookg>true</BtchBookg>');
  });

  it('validates a file over 1 MiB with the system xmllint: schema errors by line, the SEPA rules beside it, no temporary file left', async () => {
    const many = Array.from({ length: 5000 }, (_, i) => transfer(i + 1));
    const xml = writePain001(input(many));
    expect(xml.length).toBeGreaterThan(1024 * 1024);
    const leftovers = () => readdirSync(tmpdir()).filter((f) => f.startsWith('payouts-xmllint-')).length;
    const before = leftovers();
    expect(await validateIso20022(xml, 'pain.001.001.09')).toEqual({ valid: true, errors: [] });
    const broken = xml.replace('<EndToEndId>E2E-4000</EndToEndId>', '<EndToEndId>E2E-4000</EndToEndId><Unknown/>');
    const line = broken.slice(0, broken.indexOf('<Unknown/>')).split('\n').length;
    const v = await validateIso20022(broken, 'pain.001.001.09');
    expect(v.valid).toBe(false);
    // libxml2 names the line where it met the element's end: this one, or the next.
    expect(v.errors.some((e) => (e.startsWith(`line ${line}:`) || e.startsWith(`line ${line + 1}:`)) && e.includes('Unknown'))).toBe(true);
    const tooBig = await validateIso20022(writePain001(input(many.map((t, i) => (i === 10 ? { ...t, amountMinor: '100000000000' } : t)))), 'pain.001.001.09');
    expect(tooBig.valid).toBe(false);
    expect(tooBig.errors).toEqual([expect.stringMatching(/^SEPA rule:.*outside 0.01 to 999999999.99/)]);
    expect(leftovers()).toBe(before);
  });

  it('computes NbOfTxs and CtrlSum from minor units without floating point, for many and large amounts', async () => {
    // 0.10 + 0.20 + ... : float sums drift; 1,000 x 9,999,999,999,999.99 exceeds 2^53 in minor units.
    const small = Array.from({ length: 300 }, (_, i) => transfer(i + 1, { amountMinor: i % 2 ? '10' : '20' }));
    const smallXml = writePain001(input(small));
    expect(parsePain001(smallXml).controlSum).toBe('45.00');
    expect(parsePain001(smallXml).numberOfTransactions).toBe('300');

    const big = Array.from({ length: 1000 }, (_, i) => transfer(i + 1, { amountMinor: '999999999999999' }));
    const bigXml = writePain001(input(big));
    const file = parsePain001(bigXml);
    expect(file.numberOfTransactions).toBe('1000');
    expect(file.controlSum).toBe('9999999999999990.00');
    expect(file.payments[0].controlSum).toBe('9999999999999990.00');
    // The official XSD takes it; the SEPA rule refuses amounts above 999,999,999.99.
    const v = await validateIso20022(bigXml, 'pain.001.001.09');
    expect(v.errors.every((e) => e.startsWith('SEPA rule:') && e.includes('outside 0.01 to 999999999.99'))).toBe(true);
    expect(v.valid).toBe(false);

    const mixed = [transfer(1, { amountMinor: '99999999999' }), transfer(2, { amountMinor: '1' }), transfer(3, { amountMinor: '99999999999' })];
    const mixedXml = writePain001(input(mixed));
    expect(parsePain001(mixedXml).controlSum).toBe('1999999999.99');
    expect(await validateIso20022(mixedXml, 'pain.001.001.09')).toEqual({ valid: true, errors: [] });
  });

  it('writes BtchBookg false when asked, and the file still validates', async () => {
    const xml = writePain001({ ...input([transfer(1)]), batchBooking: false });
    expect(xml).toContain('<BtchBookg>false</BtchBookg>');
    expect(await validateIso20022(xml, 'pain.001.001.09')).toEqual({ valid: true, errors: [] });
  });

  it('a three-decimal amount does not validate (file post-edited past the writer)', async () => {
    const xml = writePain001(input([transfer(1), transfer(2)]));
    expect((await validateIso20022(xml, 'pain.001.001.09')).valid).toBe(true);
    const bad = xml.replace('<InstdAmt Ccy="EUR">123.45</InstdAmt>', '<InstdAmt Ccy="EUR">123.456</InstdAmt>');
    expect(bad).not.toBe(xml);
    const v = await validateIso20022(bad, 'pain.001.001.09');
    expect(v.valid).toBe(false);
    expect(v.errors.join('\n')).toMatch(/InstdAmt "123\.456" is not an amount with at most 2 decimals/);
    const badSum = xml.replace('<CtrlSum>246.90</CtrlSum>', '<CtrlSum>246.900</CtrlSum>');
    expect((await validateIso20022(badSum, 'pain.001.001.09')).errors.join('\n')).toMatch(/CtrlSum 246\.900 has more than 2 decimals/);
  });

  it('a 36-character EndToEndId does not validate against the XSD', async () => {
    const xml = writePain001(input([transfer(1)]));
    const bad = xml.replace('<EndToEndId>E2E-1</EndToEndId>', `<EndToEndId>${'A'.repeat(36)}</EndToEndId>`);
    const v = await validateIso20022(bad, 'pain.001.001.09');
    expect(v.valid).toBe(false);
    expect(v.errors.join('\n')).toMatch(/EndToEndId.*maxLength.*36.*35/);
  });

  it('a wrong CtrlSum or NbOfTxs does not validate, nor does a missing element', async () => {
    const xml = writePain001(input([transfer(1)]));
    const v1 = await validateIso20022(xml.replace('<CtrlSum>123.45</CtrlSum>', '<CtrlSum>123.46</CtrlSum>'), 'pain.001.001.09');
    expect(v1).toEqual({ valid: false, errors: ['SEPA rule: GrpHdr/CtrlSum 123.46 is not the sum of the amounts'] });
    const v2 = await validateIso20022(xml.replace('<NbOfTxs>1</NbOfTxs>', '<NbOfTxs>2</NbOfTxs>'), 'pain.001.001.09');
    expect(v2.errors).toEqual(['SEPA rule: GrpHdr/NbOfTxs is 2, the file has 1 transactions']);
    const v3 = await validateIso20022(xml.replace(/<ChrgBr>SLEV<\/ChrgBr>/, '').replace('<PmtMtd>TRF</PmtMtd>', ''), 'pain.001.001.09');
    expect(v3.valid).toBe(false);
    expect(v3.errors.join('\n')).toMatch(/PmtMtd/);
  });

  it('throws a clear error for text that cannot be carried and for malformed input', () => {
    expect(() => writePain001(input([transfer(1, { creditor: { name: 'Smith & Co', iban: 'DE89370400440532013000' } })]))).toThrow(
      /transfers\[0\]\.creditor\.name cannot be carried in the SEPA character set: "&"/,
    );
    expect(() => writePain001(input([transfer(1, { remittanceInformation: 'x'.repeat(141) })]))).toThrow(/remittanceInformation is 141 characters/);
    expect(() => writePain001(input([transfer(1, { endToEndId: 'A'.repeat(36) })]))).toThrow(/endToEndId/);
    expect(() => writePain001(input([transfer(1, { amountMinor: '12.5' })]))).toThrow(/amountMinor/);
    expect(() => writePain001(input([transfer(1, { amountMinor: '0' })]))).toThrow(/amountMinor/);
    expect(() => writePain001(input([transfer(1, { uetr: uetr(1).toUpperCase() })]))).toThrow(/uetr/);
    expect(() => writePain001(input([]))).toThrow(/at least one transfer/);
    expect(() => writePain001({ ...input([transfer(1)]), requestedExecutionDate: '26.11.2026' })).toThrow(/requestedExecutionDate/);
  });
});
