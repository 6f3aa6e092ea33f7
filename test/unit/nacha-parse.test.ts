import { describe, expect, it } from 'vitest';
import { NachaParseError, parseNachaFile, writeNachaFile, type NachaFileInput } from '../../src/rails/nacha';

const INPUT: NachaFileInput = {
  immediateDestination: '021000021',
  immediateDestinationName: 'JPMorgan Chase',
  immediateOrigin: '091000019',
  immediateOriginName: 'Payouts Inc',
  createdAt: new Date('2027-01-15T20:30:00Z'),
  fileIdModifier: 'C',
  batches: [
    {
      secCode: 'CCD',
      companyName: 'Payouts Inc',
      companyIdentification: '1234567890',
      companyEntryDescription: 'PAYOUT',
      effectiveEntryDate: '2027-01-19',
      odfiIdentification: '02100002',
      batchNumber: 7,
      entries: [
        {
          accountType: 'savings',
          routingNumber: '011000015',
          accountNumber: 'ab12',
          amountMinor: '000500',
          identificationNumber: 'PO-1',
          receiverName: 'Zoë Ltd',
          traceNumber: '021000020000001',
          paymentRelatedInformation: 'Invoice 12',
        },
        {
          accountType: 'checking',
          routingNumber: '091000019',
          accountNumber: '987654321',
          amountMinor: '1',
          identificationNumber: '',
          receiverName: 'Ann',
          traceNumber: '021000020000002',
          paymentRelatedInformation: null,
        },
      ],
    },
  ],
};

const TEXT = writeNachaFile(INPUT);
const LINES = TEXT.slice(0, -1).split('\n');

function parseError(text: string): NachaParseError {
  try {
    parseNachaFile(text);
  } catch (e) {
    if (e instanceof NachaParseError) return e;
    throw e;
  }
  throw new Error('expected a NachaParseError');
}

/** The file with record `i` (0-based) replaced by `f(record)`. */
function edit(i: number, f: (r: string) => string): string {
  return LINES.map((l, j) => (j === i ? f(l) : l)).join('\n') + '\n';
}

function put(r: string, from: number, value: string): string {
  return r.slice(0, from - 1) + value + r.slice(from - 1 + value.length);
}

describe('parseNachaFile', () => {
  it('reads back what writeNachaFile wrote', () => {
    expect(parseNachaFile(TEXT)).toEqual({
      immediateDestination: '021000021',
      immediateOrigin: '091000019',
      immediateDestinationName: 'JPMORGAN CHASE',
      immediateOriginName: 'PAYOUTS INC',
      createdAt: '2027-01-15',
      fileIdModifier: 'C',
      totalCreditMinor: '501',
      totalDebitMinor: '0',
      entryAddendaCount: 3,
      batches: [
        {
          serviceClassCode: '220',
          companyName: 'PAYOUTS INC',
          companyIdentification: '1234567890',
          secCode: 'CCD',
          companyEntryDescription: 'PAYOUT',
          effectiveEntryDate: '2027-01-19',
          odfiIdentification: '02100002',
          batchNumber: 7,
          entries: [
            {
              transactionCode: '32',
              routingNumber: '011000015',
              accountNumber: 'AB12',
              amountMinor: '500',
              identificationNumber: 'PO-1',
              name: 'ZOE LTD',
              traceNumber: '021000020000001',
              addenda05: { paymentRelatedInformation: 'INVOICE 12' },
              return: null,
              notificationOfChange: null,
            },
            {
              transactionCode: '22',
              routingNumber: '091000019',
              accountNumber: '987654321',
              amountMinor: '1',
              identificationNumber: '',
              name: 'ANN',
              traceNumber: '021000020000002',
              addenda05: null,
              return: null,
              notificationOfChange: null,
            },
          ],
        },
      ],
    });
  });

  it("tolerates '\\r\\n', a missing final newline and no padding", () => {
    const crlf = TEXT.replace(/\n/g, '\r\n');
    expect(parseNachaFile(crlf)).toEqual(parseNachaFile(TEXT));
    const bare = LINES.filter((l) => l !== '9'.repeat(94)).join('\n');
    expect(parseNachaFile(bare)).toEqual(parseNachaFile(TEXT));
  });

  it('reads a zero amount as "0" and a blank effective date as null', () => {
    // make the second entry 0 cents and fix both controls accordingly
    let text = edit(4, (r) => put(r, 30, '0000000000'));
    text = text.replace(/^8220(.{28})000000000501/m, '8220$1000000000500').replace(/^9(.{42})000000000501/m, '9$1000000000500');
    text = text.split('\n').map((l) => (l.startsWith('5') ? put(l, 70, '      ') : l)).join('\n');
    const parsed = parseNachaFile(text);
    expect(parsed.batches[0]!.entries[1]!.amountMinor).toBe('0');
    expect(parsed.batches[0]!.effectiveEntryDate).toBeNull();
    expect(parsed.totalCreditMinor).toBe('500');
  });

  it.each<[string, () => string, number, RegExp]>([
    ['a short record', () => edit(2, (r) => r.slice(0, 93)), 3, /94 characters, this one is 93/],
    ['a long record', () => edit(0, (r) => `${r} `), 1, /this one is 95/],
    ['an unknown record type', () => edit(4, (r) => put(r, 1, '4')), 5, /unknown record type "4"/],
    ['an entry before any batch', () => [LINES[0], LINES[2], ...LINES.slice(1)].join('\n'), 2, /outside a batch/],
    ['a batch header before the file header', () => LINES.slice(1).join('\n'), 1, /before the file header/],
    ['a second file header', () => [LINES[0], LINES[0], ...LINES.slice(1)].join('\n'), 2, /second file header/],
    ['a missing batch control', () => LINES.filter((l) => !l.startsWith('8')).join('\n'), 6, /inside an open batch/],
    ['a missing file control', () => LINES.slice(0, 6).join('\n'), 6, /file control record is missing/],
    ['an addenda the entry does not announce', () => edit(2, (r) => put(r, 79, '0')), 4, /indicator is 0/],
    ['an announced addenda that is missing', () => edit(4, (r) => put(r, 79, '1')), 6, /none follows/],
    ['an unknown addenda type', () => edit(3, (r) => put(r, 2, '02')), 4, /addenda type code "02"/],
    ['a record after the file control', () => edit(7, () => LINES[1]!), 8, /after the file control/],
    ['a non-numeric amount', () => edit(2, (r) => put(r, 30, '00000005X0')), 3, /amount .* not numeric/],
    ['a batch entry/addenda count that disagrees', () => edit(5, (r) => put(r, 5, '000004')), 6, /batch control entry\/addenda count is 4, the batch \(line 2\) has 3/],
    ['a batch entry hash that disagrees', () => edit(5, (r) => put(r, 11, '0010200003')), 6, /batch control entry hash/],
    ['a batch total credit that disagrees', () => edit(5, (r) => put(r, 33, '000000000502')), 6, /batch control total credit is 502, .* has 501/],
    ['a batch number that disagrees', () => edit(5, (r) => put(r, 88, '0000008')), 6, /batch control batch number/],
    ['a file batch count that disagrees', () => edit(6, (r) => put(r, 2, '000002')), 7, /file control batch count is 2, the batches have 1/],
    ['a file entry/addenda count that disagrees', () => edit(6, (r) => put(r, 14, '00000004')), 7, /file control entry\/addenda count/],
    ['a file entry hash that disagrees', () => edit(6, (r) => put(r, 22, '0000000001')), 7, /file control entry hash/],
    ['a file total credit that disagrees', () => edit(6, (r) => put(r, 44, '000000000500')), 7, /file control total credit is 500/],
    ['a file total debit that disagrees', () => edit(6, (r) => put(r, 32, '000000000001')), 7, /file control total debit is 1/],
    ['an empty file', () => '', 1, /empty/],
  ])('throws NachaParseError on %s, with its line', (_name, make, line, message) => {
    const e = parseError(make());
    expect(e.line).toBe(line);
    expect(e.message).toMatch(message);
  });
});

describe('parseNachaFile: ascending trace numbers (issue #35)', () => {
  it('refuses a batch whose entries are not in ascending trace number order, naming the line', () => {
    const swapped = writeNachaFile({
      ...INPUT,
      batches: [{ ...INPUT.batches[0]!, entries: [{ ...INPUT.batches[0]!.entries[1]! }, { ...INPUT.batches[0]!.entries[0]!, traceNumber: '021000020000001' }] }],
    });
    const e = parseError(swapped);
    expect(e.message).toMatch(/trace number 021000020000001 is not above the batch's previous entry's 021000020000002 .*ascending trace number order/);
    expect(e.line).toBeGreaterThan(2);
  });

  it('refuses a trace number repeated within a batch', () => {
    // The writer refuses a repeated trace number itself: edit the second entry's record instead.
    const second = LINES.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith('6'))[1]![1];
    const repeated = edit(second, (r) => put(r, 80, '021000020000001'));
    expect(parseError(repeated).message).toMatch(/ascending trace number order/);
  });
});
