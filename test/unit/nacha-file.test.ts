import { describe, expect, it } from 'vitest';
import {
  NachaInputError,
  parseNachaFile,
  toNachaText,
  writeNachaFile,
  writeNachaReturnFile,
  type NachaBatchInput,
  type NachaCreditEntryInput,
  type NachaFileInput,
} from '../../src/rails/nacha';

const CREATED = new Date('2027-01-15T20:30:00Z'); // 15:30 EST

function entry(n: number, over: Partial<NachaCreditEntryInput> = {}): NachaCreditEntryInput {
  return {
    accountType: 'checking',
    routingNumber: '011000015',
    accountNumber: `12345678${n}`,
    amountMinor: String(1000 * n + 23),
    identificationNumber: `PO${n}`,
    receiverName: 'José Núñez',
    traceNumber: `02100002${String(n).padStart(7, '0')}`,
    paymentRelatedInformation: null,
    ...over,
  };
}

function batch(over: Partial<NachaBatchInput> = {}): NachaBatchInput {
  return {
    secCode: 'PPD',
    companyName: 'Payouts Inc',
    companyIdentification: '1234567890',
    companyEntryDescription: 'PAYOUT',
    effectiveEntryDate: '2027-01-19',
    odfiIdentification: '02100002',
    batchNumber: 1,
    entries: [entry(1)],
    ...over,
  };
}

function file(over: Partial<NachaFileInput> = {}): NachaFileInput {
  return {
    immediateDestination: '021000021',
    immediateDestinationName: 'JPMorgan Chase',
    immediateOrigin: '1234567890',
    immediateOriginName: 'Payouts Inc',
    createdAt: CREATED,
    fileIdModifier: 'A',
    batches: [batch()],
    ...over,
  };
}

function thrown(fn: () => unknown): NachaInputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof NachaInputError) return e;
    throw e;
  }
  throw new Error('expected a NachaInputError');
}

describe('toNachaText', () => {
  it('transliterates, upper-cases, blanks characters outside the set, collapses and cuts', () => {
    expect(toNachaText('José Núñez', 22)).toBe('JOSE NUNEZ');
    expect(toNachaText('Müller & Söhne GmbH', 40)).toBe('MUELLER & SOEHNE GMBH');
    expect(toNachaText('po_123~x', 15)).toBe('PO 123 X');
    expect(toNachaText('  a\t\n  b  ', 10)).toBe('A B');
    expect(toNachaText('O’Brien – Ltd', 20)).toBe("O'BRIEN - LTD");
    expect(toNachaText('Invoice #7: 50% (paid) @ 1/2; ok? yes! a+b*c=d', 80)).toBe('INVOICE #7: 50% (PAID) @ 1/2; OK? YES! A+B*C=D');
    // cut to the width, then trimmed again (no trailing space)
    expect(toNachaText('ABCDE FGHIJ', 6)).toBe('ABCDE');
    expect(toNachaText('~~~', 10)).toBe('');
    expect(toNachaText('abc', 0)).toBe('');
  });
});

describe('writeNachaFile', () => {
  it('writes header, batch, entry, addenda 05, controls and padding in the NACHA positions', () => {
    const text = writeNachaFile(
      file({
        referenceCode: 'ref 1',
        batches: [batch({ entries: [entry(1, { paymentRelatedInformation: 'Invoice 7 — thanks' }), entry(2, { accountType: 'savings', routingNumber: '091000019' })] })],
      }),
    );
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(lines).toHaveLength(10);
    for (const l of lines) expect(l).toHaveLength(94);
    const [h, b, e1, a1, e2, bc, fc, ...pad] = lines as [string, string, string, string, string, string, string, ...string[]];
    // file header: priority 01, ' ' + routing, origin (10), 270115 1530 (New York), A, 094, 10, 1, names, reference
    expect(h).toBe(`101 0210000211234567890${'2701151530'}A094101${'JPMORGAN CHASE'.padEnd(23)}${'PAYOUTS INC'.padEnd(23)}${'REF 1'.padEnd(8)}`);
    // batch header: 220, company name (16), discretionary (20), company id, PPD, description, descriptive date blank, 270119, settlement blank, 1, ODFI, batch 0000001
    expect(b).toBe(`5220${'PAYOUTS INC'.padEnd(16)}${' '.repeat(20)}1234567890PPD${'PAYOUT'.padEnd(10)}${' '.repeat(6)}270119${' '.repeat(3)}1021000020000001`);
    // entry: 22, RDFI 01100001 + check 5, account (17), amount (10), id (15), name (22), discretionary blank, addenda 1, trace
    expect(e1).toBe(`622011000015${'123456781'.padEnd(17)}0000001023${'PO1'.padEnd(15)}${'JOSE NUNEZ'.padEnd(22)}  1021000020000001`);
    expect(a1).toBe(`705${'INVOICE 7 - THANKS'.padEnd(80)}00010000001`);
    expect(e2).toBe(`632091000019${'123456782'.padEnd(17)}0000002023${'PO2'.padEnd(15)}${'JOSE NUNEZ'.padEnd(22)}  0021000020000002`);
    // batch control: 220, count 3 (2 entries + 1 addenda), hash 01100001 + 09100001 = 10200002, debit 0, credit 3046
    expect(bc).toBe(`8220000003${'0010200002'}${'0'.repeat(12)}${'000000003046'}1234567890${' '.repeat(25)}021000020000001`);
    // file control: 1 batch, 1 block, 3 entries+addenda, hash, totals, 39 blanks
    expect(fc).toBe(`9000001000001${'00000003'}0010200002${'0'.repeat(12)}000000003046${' '.repeat(39)}`);
    expect(pad).toEqual(Array(3).fill('9'.repeat(94)));
  });

  it('writes a 9-digit origin as blank + digits, and pads to whole blocks of 10', () => {
    const entries = Array.from({ length: 9 }, (_, i) => entry(i + 1));
    const text = writeNachaFile(file({ immediateOrigin: '091000019', batches: [batch({ entries })] }));
    const lines = text.trimEnd().split('\n');
    expect(lines[0]!.slice(3, 23)).toBe(' 021000021 091000019');
    // 1 + 1 + 9 + 1 + 1 = 13 records -> 2 blocks, 7 padding records
    expect(lines).toHaveLength(20);
    expect(lines[12]!.slice(7, 13)).toBe('000002');
    expect(lines.slice(13)).toEqual(Array(7).fill('9'.repeat(94)));
  });

  it('totals up to the 12-digit field, and refuses a total that does not fit', () => {
    const max = '9999999999'; // 10 digits, the largest entry amount
    const many = (k: number, n: number, amountMinor: string) =>
      Array.from({ length: n }, (_, i) => entry(1, { amountMinor, routingNumber: '999999992', traceNumber: `02100002${String(k * 1000 + i).padStart(7, '0')}` }));
    const full = parseNachaFile(writeNachaFile(file({ batches: [batch({ entries: many(0, 100, max) })] })));
    expect(full.totalCreditMinor).toBe('999999999900');
    expect(full.entryAddendaCount).toBe(100);
    const over = thrown(() => writeNachaFile(file({ batches: [batch({ entries: many(0, 100, max) }), batch({ batchNumber: 2, entries: many(1, 1, max) })] })));
    expect(over.field).toBe('batches: file total credit');
  });

  it('keeps the entry hash mod 10^10', () => {
    const entries = Array.from({ length: 200 }, (_, i) => entry(1, { routingNumber: '999999992', traceNumber: `02100002${String(i).padStart(7, '0')}` }));
    const text = writeNachaFile(file({ batches: [batch({ entries })] }));
    const lines = text.trimEnd().split('\n');
    const bc = lines.find((l) => l.startsWith('8'))!;
    const fc = lines.find((l) => l.startsWith('9') && l !== '9'.repeat(94))!;
    // 200 x 99999999 = 19999999800 -> its last 10 digits
    expect(bc.slice(10, 20)).toBe('9999999800');
    expect(fc.slice(21, 31)).toBe('9999999800');
    expect(parseNachaFile(text).batches[0]!.entries).toHaveLength(200);
  });

  it.each<[string, (f: NachaFileInput) => NachaFileInput, string]>([
    ['bad routing check digit', (f) => ({ ...f, batches: [batch({ entries: [entry(1, { routingNumber: '011000016' })] })] }), 'batches[0].entries[0].routingNumber'],
    ['routing not 9 digits', (f) => ({ ...f, batches: [batch({ entries: [entry(1, { routingNumber: '11000015' })] })] }), 'batches[0].entries[0].routingNumber'],
    ['trace not 15 digits', (f) => ({ ...f, batches: [batch({ entries: [entry(1, { traceNumber: '0210000200001' })] })] }), 'batches[0].entries[0].traceNumber'],
    ['trace prefix not the ODFI', (f) => ({ ...f, batches: [batch({ entries: [entry(1, { traceNumber: '091000010000001' })] })] }), 'batches[0].entries[0].traceNumber'],
    ['duplicate trace in the file', (f) => ({ ...f, batches: [batch(), batch({ batchNumber: 2 })] }), 'batches[1].entries[0].traceNumber'],
    ['amount of 11 digits', (f) => ({ ...f, batches: [batch({ entries: [entry(1, { amountMinor: '10000000000' })] })] }), 'batches[0].entries[0].amountMinor'],
    ['amount zero', (f) => ({ ...f, batches: [batch({ entries: [entry(1, { amountMinor: '0' })] })] }), 'batches[0].entries[0].amountMinor'],
    ['amount with decimals', (f) => ({ ...f, batches: [batch({ entries: [entry(1, { amountMinor: '12.50' })] })] }), 'batches[0].entries[0].amountMinor'],
    ['empty batch', (f) => ({ ...f, batches: [batch({ entries: [] })] }), 'batches[0].entries'],
    ['no batch', (f) => ({ ...f, batches: [] }), 'batches'],
    ['empty name after conversion', (f) => ({ ...f, batches: [batch({ entries: [entry(1, { receiverName: '~~ ~' })] })] }), 'batches[0].entries[0].receiverName'],
    ['identification longer than 15', (f) => ({ ...f, batches: [batch({ entries: [entry(1, { identificationNumber: 'po_0123456789abcdef' })] })] }), 'batches[0].entries[0].identificationNumber'],
    ['account number of 18', (f) => ({ ...f, batches: [batch({ entries: [entry(1, { accountNumber: '123456789012345678' })] })] }), 'batches[0].entries[0].accountNumber'],
    ['account number with a dash', (f) => ({ ...f, batches: [batch({ entries: [entry(1, { accountNumber: '1234-5678' })] })] }), 'batches[0].entries[0].accountNumber'],
    ['ODFI of 9 digits', (f) => ({ ...f, batches: [batch({ odfiIdentification: '021000021' })] }), 'batches[0].odfiIdentification'],
    ['batch number 0', (f) => ({ ...f, batches: [batch({ batchNumber: 0 })] }), 'batches[0].batchNumber'],
    ['duplicate batch number', (f) => ({ ...f, batches: [batch(), batch({ entries: [entry(2)] })] }), 'batches[1].batchNumber'],
    ['effective date not a day', (f) => ({ ...f, batches: [batch({ effectiveEntryDate: '2027-02-30' })] }), 'batches[0].effectiveEntryDate'],
    ['company id of 11', (f) => ({ ...f, batches: [batch({ companyIdentification: '12345678901' })] }), 'batches[0].companyIdentification'],
    ['empty company name', (f) => ({ ...f, batches: [batch({ companyName: '' })] }), 'batches[0].companyName'],
    ['unknown SEC code', (f) => ({ ...f, batches: [batch({ secCode: 'WEB' as 'PPD' })] }), 'batches[0].secCode'],
    ['destination check digit', (f) => ({ ...f, immediateDestination: '021000022' }), 'immediateDestination'],
    ['origin of 8', (f) => ({ ...f, immediateOrigin: '12345678' }), 'immediateOrigin'],
    ['file id modifier lower-case', (f) => ({ ...f, fileIdModifier: 'a' }), 'fileIdModifier'],
    ['invalid createdAt', (f) => ({ ...f, createdAt: new Date('nope') }), 'createdAt'],
  ])('throws NachaInputError on %s', (_name, change, field) => {
    const e = thrown(() => writeNachaFile(change(file())));
    expect(e.field).toBe(field);
    expect(e.message.startsWith(`${field}: `)).toBe(true);
  });

  it('writes the creation time in New York time across the DST change', () => {
    const summer = writeNachaFile(file({ createdAt: new Date('2027-07-01T03:05:00Z') })); // 23:05 EDT on 30 June
    expect(summer.slice(23, 33)).toBe('2706302305');
    const winter = writeNachaFile(file({ createdAt: new Date('2027-01-01T03:05:00Z') })); // 22:05 EST on 31 December
    expect(winter.slice(23, 33)).toBe('2612312205');
  });

  it('an empty or blank addenda text writes no addenda (indicator 0)', () => {
    const text = writeNachaFile(file({ batches: [batch({ entries: [entry(1, { paymentRelatedInformation: '  ' })] })] }));
    const lines = text.split('\n');
    expect(lines[2]![78]).toBe('0');
    expect(lines[3]![0]).toBe('8');
  });
});

describe('writeNachaReturnFile', () => {
  it('writes addenda 99 and 98 in their positions, and the result parses', () => {
    const text = writeNachaReturnFile({
      immediateDestination: '021000021',
      immediateDestinationName: 'Payouts Inc',
      immediateOrigin: '011000015',
      immediateOriginName: 'Bank',
      createdAt: CREATED,
      fileIdModifier: 'B',
      batches: [
        {
          ...batch({ odfiIdentification: '01100001' }),
          entries: [
            {
              transactionCode: '21',
              routingNumber: '021000021',
              accountNumber: '123',
              amountMinor: '1023',
              identificationNumber: 'PO1',
              receiverName: 'Jose',
              traceNumber: '011000010000009',
              addenda: { kind: 'return', reasonCode: 'R15', originalTraceNumber: '021000020000001', dateOfDeath: '2027-01-02', originalReceivingDfi: '01100001', addendaInformation: 'deceased' },
            },
          ],
        },
        {
          ...batch({ odfiIdentification: '01100001', batchNumber: 2 }),
          secCode: 'COR',
          entries: [
            {
              transactionCode: '31',
              routingNumber: '021000021',
              accountNumber: '456',
              amountMinor: '0',
              identificationNumber: 'PO2',
              receiverName: 'Ann',
              traceNumber: '011000010000010',
              addenda: { kind: 'noc', changeCode: 'C03', originalTraceNumber: '021000020000002', originalReceivingDfi: '01100001', correctedData: '091000019   4455667788' },
            },
          ],
        },
      ],
    });
    const lines = text.split('\n');
    expect(lines[3]).toBe(`799R15021000020000001${'270102'}01100001${'DECEASED'.padEnd(44)}011000010000009`);
    expect(lines[7]).toBe(`798C03021000020000002${' '.repeat(6)}01100001${'091000019   4455667788'.padEnd(29)}${' '.repeat(15)}011000010000010`);
    const parsed = parseNachaFile(text);
    expect(parsed.batches.map((b) => b.secCode)).toEqual(['PPD', 'COR']);
    expect(parsed.batches[0]!.entries[0]!.return).toEqual({ reasonCode: 'R15', originalTraceNumber: '021000020000001', dateOfDeath: '2027-01-02', originalReceivingDfi: '01100001', addendaInformation: 'DECEASED' });
    expect(parsed.batches[1]!.entries[0]!.notificationOfChange).toEqual({ changeCode: 'C03', originalTraceNumber: '021000020000002', originalReceivingDfi: '01100001', correctedData: '091000019   4455667788' });
    expect(parsed.totalCreditMinor).toBe('1023');
  });

  it('refuses a COR entry with an amount and a return entry without one', () => {
    const base = {
      immediateDestination: '021000021',
      immediateDestinationName: '',
      immediateOrigin: '011000015',
      immediateOriginName: '',
      createdAt: CREATED,
      fileIdModifier: 'A',
    };
    const e = {
      transactionCode: '21' as const,
      routingNumber: '021000021',
      accountNumber: '1',
      identificationNumber: '',
      receiverName: 'X',
      traceNumber: '011000010000001',
    };
    expect(
      thrown(() =>
        writeNachaReturnFile({ ...base, batches: [{ ...batch({ odfiIdentification: '01100001' }), secCode: 'COR', entries: [{ ...e, amountMinor: '5', addenda: { kind: 'noc', changeCode: 'C01', originalTraceNumber: '021000020000001', originalReceivingDfi: '01100001', correctedData: '1' } }] }] }),
      ).field,
    ).toBe('batches[0].entries[0].amountMinor');
    expect(
      thrown(() =>
        writeNachaReturnFile({ ...base, batches: [{ ...batch({ odfiIdentification: '01100001' }), entries: [{ ...e, amountMinor: '0', addenda: { kind: 'return', reasonCode: 'R01', originalTraceNumber: '021000020000001', dateOfDeath: null, originalReceivingDfi: '01100001', addendaInformation: '' } }] }] }),
      ).field,
    ).toBe('batches[0].entries[0].amountMinor');
  });
});
