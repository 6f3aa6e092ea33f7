/** The NACHA file parser (docs/rails-ach.md "File layout"): checks every control record; amounts integer cents as strings. Pure. */
import { isCreditTransactionCode, NACHA_RECORD_LENGTH } from './file';

export interface NachaAddenda05 {
  paymentRelatedInformation: string;
}

export interface NachaReturn {
  reasonCode: string;
  /** 15 digits. */
  originalTraceNumber: string;
  /** `YYYY-MM-DD`, or null when blank or not a date. */
  dateOfDeath: string | null;
  originalReceivingDfi: string;
  addendaInformation: string;
}

export interface NachaNotificationOfChange {
  changeCode: string;
  originalTraceNumber: string;
  originalReceivingDfi: string;
  /** Trimmed; inner spaces kept (positions count from 1). */
  correctedData: string;
}

export interface ParsedNachaEntry {
  /** `22`, `32` (credits), `21`, `31` (returns/NOCs of credits), `27` (debit), ... */
  transactionCode: string;
  routingNumber: string;
  accountNumber: string;
  /** Cents, no leading zeros (`'0'` for zero). */
  amountMinor: string;
  identificationNumber: string;
  name: string;
  traceNumber: string;
  addenda05: NachaAddenda05 | null;
  return: NachaReturn | null;
  notificationOfChange: NachaNotificationOfChange | null;
}

/** Text fields are trimmed. */
export interface ParsedNachaBatch {
  /** `200` mixed, `220` credits, `225` debits. */
  serviceClassCode: string;
  companyName: string;
  companyIdentification: string;
  secCode: string;
  companyEntryDescription: string;
  /** `YYYY-MM-DD`, or null. */
  effectiveEntryDate: string | null;
  odfiIdentification: string;
  batchNumber: number;
  entries: ParsedNachaEntry[];
}

/** Totals and counts are the file control's, checked against the batches. */
export interface ParsedNachaFile {
  immediateDestination: string;
  immediateOrigin: string;
  immediateDestinationName: string;
  immediateOriginName: string;
  /** `YYYY-MM-DD` (`YYMMDD` read as 20YY). */
  createdAt: string;
  fileIdModifier: string;
  batches: ParsedNachaBatch[];
  /** Cents, no leading zeros. */
  totalCreditMinor: string;
  totalDebitMinor: string;
  entryAddendaCount: number;
}

/** `line`: 1-based line of the offending record. */
export class NachaParseError extends Error {
  readonly line: number;
  constructor(message: string, line: number) {
    super(`line ${line}: ${message}`);
    this.name = 'NachaParseError';
    this.line = line;
  }
}

const TEN_POW_10 = 10n ** 10n;
const PADDING = '9'.repeat(NACHA_RECORD_LENGTH);

/** 1-based inclusive columns. */
function col(rec: string, from: number, to: number): string {
  return rec.slice(from - 1, to);
}

function digits(rec: string, from: number, to: number, what: string, line: number): string {
  const v = col(rec, from, to);
  if (!/^[0-9]+$/.test(v)) throw new NachaParseError(`${what} (positions ${from}-${to}) is not numeric: "${v}"`, line);
  return v;
}

function cents(v: string): string {
  return BigInt(v).toString();
}

/** `YYMMDD` -> `YYYY-MM-DD` (20YY), or null when not a calendar date. */
function date6(v: string): string | null {
  if (!/^[0-9]{6}$/.test(v)) return null;
  const day = `20${v.slice(0, 2)}-${v.slice(2, 4)}-${v.slice(4, 6)}`;
  const d = new Date(`${day}T12:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === day ? day : null;
}

interface OpenBatch {
  batch: ParsedNachaBatch;
  line: number;
  count: bigint;
  hash: bigint;
  debit: bigint;
  credit: bigint;
}

/**
 * Parses a NACHA file (`'\r\n'` tolerated, padding ignored). Throws {@link NachaParseError} when a
 * record is not 94 characters, out of order or malformed, or a control disagrees with what it controls.
 */
export function parseNachaFile(text: string): ParsedNachaFile {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) throw new NachaParseError('the file is empty', 1);

  let file: ParsedNachaFile | null = null;
  let open: OpenBatch | null = null;
  let lastEntry: { entry: ParsedNachaEntry; expectsAddenda: boolean; addendaSeen: number } | null = null;
  let closed = false;
  let count = 0n;
  let hash = 0n;
  let debit = 0n;
  let credit = 0n;

  for (let i = 0; i < lines.length; i++) {
    const rec = lines[i]!;
    const line = i + 1;
    if (rec.length !== NACHA_RECORD_LENGTH) throw new NachaParseError(`a record is ${NACHA_RECORD_LENGTH} characters, this one is ${rec.length}`, line);
    if (rec === PADDING) continue;
    if (closed) throw new NachaParseError('a record after the file control record', line);
    const type = rec[0];
    if (type !== '7' && lastEntry && lastEntry.expectsAddenda && lastEntry.addendaSeen === 0) {
      throw new NachaParseError('the previous entry announces an addenda record (indicator 1) but none follows', line);
    }
    switch (type) {
      case '1': {
        if (file) throw new NachaParseError('a second file header record', line);
        const created = date6(col(rec, 24, 29));
        if (!created) throw new NachaParseError(`file creation date "${col(rec, 24, 29)}" is not a YYMMDD date`, line);
        file = {
          immediateDestination: col(rec, 4, 13).trim(),
          immediateOrigin: col(rec, 14, 23).trim(),
          immediateDestinationName: col(rec, 41, 63).trim(),
          immediateOriginName: col(rec, 64, 86).trim(),
          createdAt: created,
          fileIdModifier: col(rec, 34, 34),
          batches: [],
          totalCreditMinor: '0',
          totalDebitMinor: '0',
          entryAddendaCount: 0,
        };
        continue;
      }
      case '5': {
        if (!file) throw new NachaParseError('a batch header before the file header', line);
        if (open) throw new NachaParseError('a batch header inside an open batch (batch control missing)', line);
        const batch: ParsedNachaBatch = {
          serviceClassCode: digits(rec, 2, 4, 'service class code', line),
          companyName: col(rec, 5, 20).trim(),
          companyIdentification: col(rec, 41, 50).trim(),
          secCode: col(rec, 51, 53),
          companyEntryDescription: col(rec, 54, 63).trim(),
          effectiveEntryDate: date6(col(rec, 70, 75)),
          odfiIdentification: digits(rec, 80, 87, 'originating DFI identification', line),
          batchNumber: Number(digits(rec, 88, 94, 'batch number', line)),
          entries: [],
        };
        open = { batch, line, count: 0n, hash: 0n, debit: 0n, credit: 0n };
        lastEntry = null;
        continue;
      }
      case '6': {
        if (!open) throw new NachaParseError('an entry detail record outside a batch', line);
        const transactionCode = digits(rec, 2, 3, 'transaction code', line);
        const rdfi = digits(rec, 4, 11, 'receiving DFI identification', line);
        const check = col(rec, 12, 12);
        if (!/^[0-9]$/.test(check)) throw new NachaParseError(`check digit (position 12) is not numeric: "${check}"`, line);
        const amount = BigInt(digits(rec, 30, 39, 'amount', line));
        const indicator = col(rec, 79, 79);
        if (indicator !== '0' && indicator !== '1') throw new NachaParseError(`addenda record indicator (position 79) is "${indicator}", not 0 or 1`, line);
        const entry: ParsedNachaEntry = {
          transactionCode,
          routingNumber: `${rdfi}${check}`,
          accountNumber: col(rec, 13, 29).trim(),
          amountMinor: amount.toString(),
          identificationNumber: col(rec, 40, 54).trim(),
          name: col(rec, 55, 76).trim(),
          traceNumber: digits(rec, 80, 94, 'trace number', line),
          addenda05: null,
          return: null,
          notificationOfChange: null,
        };
        // NACHA rules: a batch's entries are in ascending trace number order.
        const previous = open.batch.entries[open.batch.entries.length - 1];
        if (previous && previous.traceNumber >= entry.traceNumber) {
          throw new NachaParseError(`trace number ${entry.traceNumber} is not above the batch's previous entry's ${previous.traceNumber} (a batch's entries must be in ascending trace number order)`, line);
        }
        open.batch.entries.push(entry);
        open.count += 1n;
        open.hash += BigInt(rdfi);
        if (isCreditTransactionCode(transactionCode)) open.credit += amount;
        else open.debit += amount;
        lastEntry = { entry, expectsAddenda: indicator === '1', addendaSeen: 0 };
        continue;
      }
      case '7': {
        if (!open || !lastEntry) throw new NachaParseError('an addenda record without an entry before it', line);
        if (!lastEntry.expectsAddenda) throw new NachaParseError('an addenda record after an entry whose addenda indicator is 0', line);
        if (lastEntry.addendaSeen > 0) throw new NachaParseError('more than one addenda record for an entry', line);
        lastEntry.addendaSeen += 1;
        open.count += 1n;
        const kind = col(rec, 2, 3);
        const entry = lastEntry.entry;
        if (kind === '05') {
          entry.addenda05 = { paymentRelatedInformation: col(rec, 4, 83).trim() };
        } else if (kind === '99') {
          entry.return = {
            reasonCode: col(rec, 4, 6),
            originalTraceNumber: digits(rec, 7, 21, 'original entry trace number', line),
            dateOfDeath: date6(col(rec, 22, 27)),
            originalReceivingDfi: digits(rec, 28, 35, 'original receiving DFI identification', line),
            addendaInformation: col(rec, 36, 79).trim(),
          };
        } else if (kind === '98') {
          entry.notificationOfChange = {
            changeCode: col(rec, 4, 6),
            originalTraceNumber: digits(rec, 7, 21, 'original entry trace number', line),
            originalReceivingDfi: digits(rec, 28, 35, 'original receiving DFI identification', line),
            correctedData: col(rec, 36, 64).trim(),
          };
        } else {
          throw new NachaParseError(`unsupported addenda type code "${kind}" (05, 98 and 99 are read)`, line);
        }
        continue;
      }
      case '8': {
        if (!open || !file) throw new NachaParseError('a batch control record outside a batch', line);
        const b = open.batch;
        const checks: Array<[string, string, string]> = [
          ['service class code', col(rec, 2, 4), b.serviceClassCode],
          ['entry/addenda count', BigInt(digits(rec, 5, 10, 'entry/addenda count', line)).toString(), open.count.toString()],
          ['entry hash', BigInt(digits(rec, 11, 20, 'entry hash', line)).toString(), (open.hash % TEN_POW_10).toString()],
          ['total debit', cents(digits(rec, 21, 32, 'total debit', line)), open.debit.toString()],
          ['total credit', cents(digits(rec, 33, 44, 'total credit', line)), open.credit.toString()],
          ['company identification', col(rec, 45, 54).trim(), b.companyIdentification],
          ['originating DFI identification', col(rec, 80, 87), b.odfiIdentification],
          ['batch number', String(Number(digits(rec, 88, 94, 'batch number', line))), String(b.batchNumber)],
        ];
        for (const [what, stated, actual] of checks) {
          if (stated !== actual) throw new NachaParseError(`batch control ${what} is ${stated}, the batch (line ${open.line}) has ${actual}`, line);
        }
        file.batches.push(b);
        count += open.count;
        hash += open.hash;
        debit += open.debit;
        credit += open.credit;
        open = null;
        lastEntry = null;
        continue;
      }
      case '9': {
        if (!file) throw new NachaParseError('a file control record before the file header', line);
        if (open) throw new NachaParseError('the file control record inside an open batch (batch control missing)', line);
        const stated = {
          batches: Number(digits(rec, 2, 7, 'batch count', line)),
          count: BigInt(digits(rec, 14, 21, 'entry/addenda count', line)),
          hash: BigInt(digits(rec, 22, 31, 'entry hash', line)),
          debit: BigInt(digits(rec, 32, 43, 'total debit', line)),
          credit: BigInt(digits(rec, 44, 55, 'total credit', line)),
        };
        digits(rec, 8, 13, 'block count', line);
        const checks: Array<[string, string, string]> = [
          ['batch count', String(stated.batches), String(file.batches.length)],
          ['entry/addenda count', stated.count.toString(), count.toString()],
          ['entry hash', stated.hash.toString(), (hash % TEN_POW_10).toString()],
          ['total debit', stated.debit.toString(), debit.toString()],
          ['total credit', stated.credit.toString(), credit.toString()],
        ];
        for (const [what, s, actual] of checks) {
          if (s !== actual) throw new NachaParseError(`file control ${what} is ${s}, the batches have ${actual}`, line);
        }
        file.totalCreditMinor = stated.credit.toString();
        file.totalDebitMinor = stated.debit.toString();
        file.entryAddendaCount = Number(stated.count);
        closed = true;
        continue;
      }
      default:
        throw new NachaParseError(`unknown record type "${type}"`, line);
    }
  }
  if (!file) throw new NachaParseError('no file header record', 1);
  if (!closed) throw new NachaParseError(open ? 'the file ends inside a batch (batch control missing)' : 'the file control record is missing', lines.length);
  return file;
}
