/**
 * The NACHA file writer of the `ach_usd` bank rail (docs/rails-ach.md "File layout"; Nacha
 * Operating Rules, Appendix One "ACH File Exchange Specifications" and Appendix Three "ACH Record
 * Format Specifications"): credit-only PPD/CCD batches with optional addenda 05
 * ({@link writeNachaFile}), and the return (addenda 99) and notification-of-change (COR, addenda 98)
 * files a receiving bank sends back ({@link writeNachaReturnFile}, used by the test bank). Records are
 * exactly 94 characters; amounts are integer cents as decimal-digit strings, summed with BigInt.
 * Pure: no I/O.
 */
import { isValidAbaRouting } from '../../domain/recipients';
import { isNachaText, toNachaText } from './text';

/** Standard Entry Class codes of the entries we originate. */
export type SecCode = 'PPD' | 'CCD';

/** One credit entry (record 6) of a batch we originate, with its optional addenda 05 (record 7). */
export interface NachaCreditEntryInput {
  /** `checking` writes transaction code 22, `savings` 32. */
  accountType: 'checking' | 'savings';
  /** The receiver's bank: 9 digits with a valid ABA check digit. */
  routingNumber: string;
  /** 1 to 17 digits or letters (letters are written upper-case), left-justified in the 17-character field. */
  accountNumber: string;
  /** Cents as decimal digits: 1 to 10 digits, greater than zero. */
  amountMinor: string;
  /** Up to 15 characters after {@link toNachaText} (our payout reference); may be empty. */
  identificationNumber: string;
  /** The receiver's name as we keep it; written with {@link toNachaText} cut to 22; must not convert to ''. */
  receiverName: string;
  /** Exactly 15 digits; its first 8 are the batch's `odfiIdentification`; unique in the file. */
  traceNumber: string;
  /** Addenda 05 text, written with {@link toNachaText} cut to 80; `null` (or text that converts to ''): no addenda. */
  paymentRelatedInformation: string | null;
}

/** One batch (records 5 ... 8) of credit entries: service class 220, originator status 1. */
export interface NachaBatchInput {
  secCode: SecCode;
  /** Our company name; written with {@link toNachaText} cut to 16; must not convert to ''. */
  companyName: string;
  /** Our company identification as the ODFI knows it: 1 to 10 characters of the NACHA set (e.g. `1234567890`). */
  companyIdentification: string;
  /** Shown on the receiver's statement, e.g. `PAYOUT`; {@link toNachaText} cut to 10; must not convert to ''. */
  companyEntryDescription: string;
  /** `YYYY-MM-DD`, written `YYMMDD`. */
  effectiveEntryDate: string;
  /** Our bank's routing number without check digit: 8 digits. */
  odfiIdentification: string;
  /** 1 to 9999999, unique in the file. */
  batchNumber: number;
  /** At least one. */
  entries: NachaCreditEntryInput[];
}

/** A NACHA file to upload to our bank. */
export interface NachaFileInput {
  /** Our bank's routing number (9 digits, ABA valid), written `' ' + routing`. */
  immediateDestination: string;
  /** {@link toNachaText} cut to 23 (may be empty). */
  immediateDestinationName: string;
  /** 9 digits (written `' ' + digits`) or exactly 10 characters of the NACHA set (written as is). */
  immediateOrigin: string;
  /** {@link toNachaText} cut to 23 (may be empty). */
  immediateOriginName: string;
  /** The file creation date (`YYMMDD`) and time (`HHMM`), written in America/New_York. */
  createdAt: Date;
  /** One of `A-Z`, `0-9`. */
  fileIdModifier: string;
  /** {@link toNachaText} cut to 8; blank when absent. */
  referenceCode?: string;
  /** At least one. */
  batches: NachaBatchInput[];
}

/** Invalid input to a NACHA writer: `field` names it (e.g. `batches[0].entries[2].routingNumber`). */
export class NachaInputError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'NachaInputError';
    this.field = field;
  }
}

/** A returned credit (addenda 99) or a notification of change (addenda 98) on a return entry. */
export type NachaReturnAddendaInput =
  | {
      kind: 'return';
      /** `R01` ... `R85`. */
      reasonCode: string;
      /** The original entry's trace number (15 digits). */
      originalTraceNumber: string;
      /** `YYYY-MM-DD` (R14/R15) or null. */
      dateOfDeath: string | null;
      /** The original entry's receiving DFI identification (8 digits). */
      originalReceivingDfi: string;
      /** {@link toNachaText} cut to 44. */
      addendaInformation: string;
    }
  | {
      kind: 'noc';
      /** `C01` ... `C14`. */
      changeCode: string;
      originalTraceNumber: string;
      originalReceivingDfi: string;
      /** Up to 29 characters of the NACHA set, positions as the change code defines (written as is). */
      correctedData: string;
    };

/** One return or NOC entry a receiving bank sends back (record 6 plus one addenda 99 or 98). */
export interface NachaReturnEntryInput {
  /** `21` (return/NOC of a checking credit), `31` (savings), `26`/`36` (of a debit). */
  transactionCode: '21' | '31' | '26' | '36';
  /** The routing number the entry goes to: the original ODFI's 8 digits plus check digit (ABA valid). */
  routingNumber: string;
  /** As in {@link NachaCreditEntryInput.accountNumber}. */
  accountNumber: string;
  /** Cents as 1 to 10 digits: the original amount for a return, `0` for a NOC. */
  amountMinor: string;
  identificationNumber: string;
  receiverName: string;
  /** The returning bank's trace: 15 digits, first 8 = the batch's `odfiIdentification`; unique in the file. */
  traceNumber: string;
  addenda: NachaReturnAddendaInput;
}

/** A batch of returns (SEC code of the original batch) or of NOCs (SEC code `COR`). */
export interface NachaReturnBatchInput extends Omit<NachaBatchInput, 'secCode' | 'entries'> {
  secCode: 'PPD' | 'CCD' | 'COR';
  entries: NachaReturnEntryInput[];
}

/** A return/NOC file, with the header fields of {@link NachaFileInput}. */
export interface NachaReturnFileInput extends Omit<NachaFileInput, 'batches'> {
  batches: NachaReturnBatchInput[];
}

/** Length of every NACHA record. */
export const NACHA_RECORD_LENGTH = 94;
/** Records per block; a file is padded with all-`9` records to a whole number of blocks. */
export const NACHA_BLOCKING_FACTOR = 10;

const NY = 'America/New_York';
const TEN_POW_10 = 10n ** 10n;

// ---------------------------------------------------------------- field helpers

/** `value` left-justified, blank-filled to `width` (already checked to fit). */
function alpha(value: string, width: number): string {
  return value.padEnd(width, ' ').slice(0, width);
}

/** Non-negative `value` right-justified, zero-filled to `width`; throws when it does not fit. */
function num(value: bigint | number, width: number, field: string): string {
  const s = BigInt(value).toString();
  if (s.startsWith('-') || s.length > width) throw new NachaInputError(field, `${s} does not fit ${width} digits`);
  return s.padStart(width, '0');
}

/** `YYYY-MM-DD` -> `YYMMDD`, checking it is a real calendar day. */
function yymmdd(day: string, field: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  const d = m ? new Date(`${day}T12:00:00Z`) : null;
  if (!m || !d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== day) {
    throw new NachaInputError(field, `"${day}" is not a YYYY-MM-DD date`);
  }
  return `${m[1]!.slice(2)}${m[2]}${m[3]}`;
}

/** `YYMMDD` and `HHMM` of `at` in America/New_York. */
function nyDateTime(at: Date, field: string): { date: string; time: string } {
  if (!(at instanceof Date) || Number.isNaN(at.getTime())) throw new NachaInputError(field, 'is not a valid Date');
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: NY, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(at)
      .map((x) => [x.type, x.value]),
  );
  return { date: `${p.year!.slice(-2)}${p.month}${p.day}`, time: `${p.hour}${p.minute}` };
}

function routing(value: string, field: string): string {
  if (!isValidAbaRouting(value)) throw new NachaInputError(field, `"${value}" is not a 9-digit ABA routing number with a valid check digit`);
  return value;
}

function accountNumber(value: string, field: string): string {
  if (!/^[0-9A-Za-z]{1,17}$/.test(value)) throw new NachaInputError(field, 'must be 1 to 17 digits or letters');
  return value.toUpperCase();
}

function amount(value: string, field: string, allowZero: boolean): bigint {
  if (!/^[0-9]{1,10}$/.test(value)) throw new NachaInputError(field, `"${value}" is not 1 to 10 decimal digits (cents)`);
  const cents = BigInt(value);
  if (!allowZero && cents === 0n) throw new NachaInputError(field, 'must be greater than zero');
  return cents;
}

/** `value` converted with {@link toNachaText} to `width`; throws when nothing is left. */
function requiredText(value: string, width: number, field: string): string {
  const t = toNachaText(value, width);
  if (t === '') throw new NachaInputError(field, 'is empty in the NACHA character set');
  return t;
}

function identifier(value: string, width: number, field: string): string {
  if (value.length < 1 || value.length > width || !isNachaText(value) || value.trim() === '') {
    throw new NachaInputError(field, `must be 1 to ${width} characters of the NACHA set (upper-case letters, digits, space, . , - / ' & ( ) + * : ; = ? ! # @ %)`);
  }
  return value;
}

// ---------------------------------------------------------------- serialization core

/** One entry ready to serialize: validated, converted values and its addenda records. */
interface EntryRecord {
  transactionCode: string;
  routingNumber: string;
  accountNumber: string;
  amount: bigint;
  identificationNumber: string;
  name: string;
  traceNumber: string;
  addenda: string[];
}

interface BatchRecord {
  companyName: string;
  companyIdentification: string;
  secCode: string;
  companyEntryDescription: string;
  effectiveEntryDate: string;
  odfiIdentification: string;
  batchNumber: number;
  entries: EntryRecord[];
}

interface HeaderRecord {
  immediateDestination: string;
  immediateOrigin: string;
  date: string;
  time: string;
  fileIdModifier: string;
  immediateDestinationName: string;
  immediateOriginName: string;
  referenceCode: string;
}

/** Whether transaction code `code` is a credit (second digit 0-4) rather than a debit (5-9). */
export function isCreditTransactionCode(code: string): boolean {
  return /^[0-9][0-4]$/.test(code);
}

function record(r: string): string {
  if (r.length !== NACHA_RECORD_LENGTH) throw new Error(`internal: NACHA record of ${r.length} characters`);
  return r;
}

function validateHeader(input: Omit<NachaFileInput, 'batches'>): HeaderRecord {
  const dest = routing(input.immediateDestination, 'immediateDestination');
  let origin: string;
  if (/^[0-9]{9}$/.test(input.immediateOrigin)) origin = ` ${input.immediateOrigin}`;
  else if (input.immediateOrigin.length === 10 && isNachaText(input.immediateOrigin)) origin = input.immediateOrigin;
  else throw new NachaInputError('immediateOrigin', 'must be 9 digits or 10 characters of the NACHA set');
  if (!/^[A-Z0-9]$/.test(input.fileIdModifier)) throw new NachaInputError('fileIdModifier', 'must be one of A-Z, 0-9');
  const { date, time } = nyDateTime(input.createdAt, 'createdAt');
  return {
    immediateDestination: ` ${dest}`,
    immediateOrigin: origin,
    date,
    time,
    fileIdModifier: input.fileIdModifier,
    immediateDestinationName: toNachaText(input.immediateDestinationName, 23),
    immediateOriginName: toNachaText(input.immediateOriginName, 23),
    referenceCode: toNachaText(input.referenceCode ?? '', 8),
  };
}

function validateBatchHeader(b: Omit<NachaBatchInput, 'entries' | 'secCode'> & { secCode: string }, at: string): Omit<BatchRecord, 'entries'> {
  if (!/^[0-9]{8}$/.test(b.odfiIdentification)) throw new NachaInputError(`${at}.odfiIdentification`, 'must be 8 digits');
  if (!Number.isInteger(b.batchNumber) || b.batchNumber < 1 || b.batchNumber > 9_999_999) {
    throw new NachaInputError(`${at}.batchNumber`, 'must be an integer from 1 to 9999999');
  }
  return {
    companyName: requiredText(b.companyName, 16, `${at}.companyName`),
    companyIdentification: identifier(b.companyIdentification, 10, `${at}.companyIdentification`),
    secCode: b.secCode,
    companyEntryDescription: requiredText(b.companyEntryDescription, 10, `${at}.companyEntryDescription`),
    effectiveEntryDate: yymmdd(b.effectiveEntryDate, `${at}.effectiveEntryDate`),
    odfiIdentification: b.odfiIdentification,
    batchNumber: b.batchNumber,
  };
}

function validateTrace(trace: string, odfi: string, seen: Set<string>, field: string): string {
  if (!/^[0-9]{15}$/.test(trace)) throw new NachaInputError(field, 'must be exactly 15 digits');
  if (trace.slice(0, 8) !== odfi) throw new NachaInputError(field, `must start with the batch's ODFI identification ${odfi}`);
  if (seen.has(trace)) throw new NachaInputError(field, `trace number ${trace} appears twice in the file`);
  seen.add(trace);
  return trace;
}

function identification(value: string, field: string): string {
  const t = toNachaText(value, Number.MAX_SAFE_INTEGER);
  if (t.length > 15) throw new NachaInputError(field, `is ${t.length} characters in the NACHA set, more than 15`);
  return t;
}

/** Writes the records: header, batches with controls, file control, padding. */
function serialize(h: HeaderRecord, batches: BatchRecord[]): string {
  const lines: string[] = [];
  lines.push(
    record(
      `101${h.immediateDestination}${h.immediateOrigin}${h.date}${h.time}${h.fileIdModifier}094101` +
        `${alpha(h.immediateDestinationName, 23)}${alpha(h.immediateOriginName, 23)}${alpha(h.referenceCode, 8)}`,
    ),
  );
  let fileCount = 0n;
  let fileHash = 0n;
  let fileDebit = 0n;
  let fileCredit = 0n;
  batches.forEach((b, bi) => {
    const at = `batches[${bi}]`;
    const hasDebit = b.entries.some((e) => !isCreditTransactionCode(e.transactionCode));
    const hasCredit = b.entries.some((e) => isCreditTransactionCode(e.transactionCode));
    const serviceClass = hasDebit && hasCredit ? '200' : hasDebit ? '225' : '220';
    lines.push(
      record(
        `5${serviceClass}${alpha(b.companyName, 16)}${' '.repeat(20)}${alpha(b.companyIdentification, 10)}${b.secCode}` +
          `${alpha(b.companyEntryDescription, 10)}${' '.repeat(6)}${b.effectiveEntryDate}${' '.repeat(3)}1${b.odfiIdentification}${num(b.batchNumber, 7, `${at}.batchNumber`)}`,
      ),
    );
    let count = 0n;
    let hash = 0n;
    let debit = 0n;
    let credit = 0n;
    b.entries.forEach((e, ei) => {
      const ef = `${at}.entries[${ei}]`;
      lines.push(
        record(
          `6${e.transactionCode}${e.routingNumber}${alpha(e.accountNumber, 17)}${num(e.amount, 10, `${ef}.amountMinor`)}` +
            `${alpha(e.identificationNumber, 15)}${alpha(e.name, 22)}  ${e.addenda.length > 0 ? '1' : '0'}${e.traceNumber}`,
        ),
      );
      for (const a of e.addenda) lines.push(record(a));
      count += 1n + BigInt(e.addenda.length);
      hash += BigInt(e.routingNumber.slice(0, 8));
      if (isCreditTransactionCode(e.transactionCode)) credit += e.amount;
      else debit += e.amount;
    });
    lines.push(
      record(
        `8${serviceClass}${num(count, 6, `${at}.entries`)}${num(hash % TEN_POW_10, 10, `${at}`)}${num(debit, 12, `${at}: total debit`)}` +
          `${num(credit, 12, `${at}: total credit`)}${alpha(b.companyIdentification, 10)}${' '.repeat(19)}${' '.repeat(6)}${b.odfiIdentification}${num(b.batchNumber, 7, `${at}.batchNumber`)}`,
      ),
    );
    fileCount += count;
    fileHash += hash;
    fileDebit += debit;
    fileCredit += credit;
  });
  const recordCount = lines.length + 1;
  const blocks = Math.ceil(recordCount / NACHA_BLOCKING_FACTOR);
  lines.push(
    record(
      `9${num(batches.length, 6, 'batches')}${num(blocks, 6, 'batches: block count')}${num(fileCount, 8, 'batches: entry/addenda count')}` +
        `${num(fileHash % TEN_POW_10, 10, 'batches')}${num(fileDebit, 12, 'batches: file total debit')}${num(fileCredit, 12, 'batches: file total credit')}${' '.repeat(39)}`,
    ),
  );
  while (lines.length % NACHA_BLOCKING_FACTOR !== 0) lines.push('9'.repeat(NACHA_RECORD_LENGTH));
  return `${lines.join('\n')}\n`;
}

function checkBatchNumbers(batches: Array<{ batchNumber: number }>): void {
  const seen = new Set<number>();
  batches.forEach((b, i) => {
    if (seen.has(b.batchNumber)) throw new NachaInputError(`batches[${i}].batchNumber`, `batch number ${b.batchNumber} appears twice in the file`);
    seen.add(b.batchNumber);
  });
}

// ---------------------------------------------------------------- public writers

/**
 * Writes a NACHA file of credits (Nacha Operating Rules, Appendices One and Three): records of
 * exactly 94 characters separated by `'\n'` (with a final `'\n'`); the file header (1); per batch a
 * batch header (5: service class 220, originator status 1), its entries (6: transaction code 22/32,
 * discretionary data blank), each followed by its addenda 05 when given (7: addenda sequence 0001,
 * entry detail sequence = the last 7 digits of the trace number), and a batch control (8:
 * entry/addenda count, entry hash = sum of the 8-digit RDFI identifications mod 10^10, total debit
 * 0, total credit, company identification, ODFI, batch number); then the file control (9: batch
 * count, block count, entry/addenda count, entry hash, totals), padded with all-`9` records to a
 * multiple of 10 records. Amounts are summed with BigInt. Throws {@link NachaInputError} (naming the
 * field) on any invalid input: routing number with a bad check digit, trace number not 15 digits, not
 * starting with the ODFI identification or used twice in the file, amount not 1..10 digits or zero,
 * empty file or batch, a name or description empty after conversion, identification longer than 15,
 * bad dates, batch number out of range or used twice, totals that do not fit their fields.
 */
export function writeNachaFile(input: NachaFileInput): string {
  const header = validateHeader(input);
  if (!Array.isArray(input.batches) || input.batches.length === 0) throw new NachaInputError('batches', 'a file needs at least one batch');
  checkBatchNumbers(input.batches);
  const traces = new Set<string>();
  const batches = input.batches.map((b, bi): BatchRecord => {
    const at = `batches[${bi}]`;
    if (b.secCode !== 'PPD' && b.secCode !== 'CCD') throw new NachaInputError(`${at}.secCode`, 'must be PPD or CCD');
    const head = validateBatchHeader(b, at);
    if (!Array.isArray(b.entries) || b.entries.length === 0) throw new NachaInputError(`${at}.entries`, 'a batch needs at least one entry');
    const entries = b.entries.map((e, ei): EntryRecord => {
      const ef = `${at}.entries[${ei}]`;
      if (e.accountType !== 'checking' && e.accountType !== 'savings') throw new NachaInputError(`${ef}.accountType`, 'must be checking or savings');
      const trace = validateTrace(e.traceNumber, head.odfiIdentification, traces, `${ef}.traceNumber`);
      const info = e.paymentRelatedInformation === null ? '' : toNachaText(e.paymentRelatedInformation, 80);
      return {
        transactionCode: e.accountType === 'checking' ? '22' : '32',
        routingNumber: routing(e.routingNumber, `${ef}.routingNumber`),
        accountNumber: accountNumber(e.accountNumber, `${ef}.accountNumber`),
        amount: amount(e.amountMinor, `${ef}.amountMinor`, false),
        identificationNumber: identification(e.identificationNumber, `${ef}.identificationNumber`),
        name: requiredText(e.receiverName, 22, `${ef}.receiverName`),
        traceNumber: trace,
        addenda: info === '' ? [] : [`705${alpha(info, 80)}0001${trace.slice(-7)}`],
      };
    });
    return { ...head, entries };
  });
  return serialize(header, batches);
}

/**
 * Writes a file of returns (entries with one addenda 99) and notifications of change (batches with
 * SEC code `COR`, entries of amount 0 with one addenda 98), as a receiving bank sends them back
 * (Nacha Operating Rules, Appendix Three, "Addenda Record for Automated Returns" and "Addenda Record
 * for Notification of Change"); same layout rules as {@link writeNachaFile}, and it parses with
 * parseNachaFile. Addenda 99: reason code, original trace, date of death (`YYMMDD` or blank),
 * original receiving DFI, addenda information (44), the entry's trace. Addenda 98: change code,
 * original trace, 6 blanks, original receiving DFI, corrected data (29), 15 blanks, the entry's
 * trace. Throws {@link NachaInputError} on invalid input (as {@link writeNachaFile}; a COR entry must
 * carry a `noc` addenda and amount 0, a return entry a `return` addenda and an amount > 0).
 */
export function writeNachaReturnFile(input: NachaReturnFileInput): string {
  const header = validateHeader(input);
  if (!Array.isArray(input.batches) || input.batches.length === 0) throw new NachaInputError('batches', 'a file needs at least one batch');
  checkBatchNumbers(input.batches);
  const traces = new Set<string>();
  const batches = input.batches.map((b, bi): BatchRecord => {
    const at = `batches[${bi}]`;
    if (b.secCode !== 'PPD' && b.secCode !== 'CCD' && b.secCode !== 'COR') throw new NachaInputError(`${at}.secCode`, 'must be PPD, CCD or COR');
    const head = validateBatchHeader(b, at);
    if (!Array.isArray(b.entries) || b.entries.length === 0) throw new NachaInputError(`${at}.entries`, 'a batch needs at least one entry');
    const entries = b.entries.map((e, ei): EntryRecord => {
      const ef = `${at}.entries[${ei}]`;
      if (!['21', '31', '26', '36'].includes(e.transactionCode)) throw new NachaInputError(`${ef}.transactionCode`, 'must be 21, 31, 26 or 36');
      const trace = validateTrace(e.traceNumber, head.odfiIdentification, traces, `${ef}.traceNumber`);
      const a = e.addenda;
      const isNoc = b.secCode === 'COR';
      if (isNoc !== (a.kind === 'noc')) throw new NachaInputError(`${ef}.addenda`, isNoc ? 'a COR batch carries NOC addenda only' : 'a return batch carries return addenda only');
      const cents = amount(e.amountMinor, `${ef}.amountMinor`, true);
      if (isNoc && cents !== 0n) throw new NachaInputError(`${ef}.amountMinor`, 'a notification of change has amount 0');
      if (!isNoc && cents === 0n) throw new NachaInputError(`${ef}.amountMinor`, 'a return carries the original amount, greater than zero');
      if (!/^[0-9]{15}$/.test(a.originalTraceNumber)) throw new NachaInputError(`${ef}.addenda.originalTraceNumber`, 'must be exactly 15 digits');
      if (!/^[0-9]{8}$/.test(a.originalReceivingDfi)) throw new NachaInputError(`${ef}.addenda.originalReceivingDfi`, 'must be 8 digits');
      let addenda: string;
      if (a.kind === 'return') {
        if (!/^R[0-9]{2}$/.test(a.reasonCode)) throw new NachaInputError(`${ef}.addenda.reasonCode`, 'must be R followed by 2 digits');
        const death = a.dateOfDeath === null ? '      ' : yymmdd(a.dateOfDeath, `${ef}.addenda.dateOfDeath`);
        addenda = `799${a.reasonCode}${a.originalTraceNumber}${death}${a.originalReceivingDfi}${alpha(toNachaText(a.addendaInformation, 44), 44)}${trace}`;
      } else {
        if (!/^C[0-9]{2}$/.test(a.changeCode)) throw new NachaInputError(`${ef}.addenda.changeCode`, 'must be C followed by 2 digits');
        if (a.correctedData.length > 29 || !isNachaText(a.correctedData) || a.correctedData.trim() === '') {
          throw new NachaInputError(`${ef}.addenda.correctedData`, 'must be 1 to 29 characters of the NACHA set');
        }
        addenda = `798${a.changeCode}${a.originalTraceNumber}${' '.repeat(6)}${a.originalReceivingDfi}${alpha(a.correctedData, 29)}${' '.repeat(15)}${trace}`;
      }
      return {
        transactionCode: e.transactionCode,
        routingNumber: routing(e.routingNumber, `${ef}.routingNumber`),
        accountNumber: accountNumber(e.accountNumber, `${ef}.accountNumber`),
        amount: cents,
        identificationNumber: identification(e.identificationNumber, `${ef}.identificationNumber`),
        name: requiredText(e.receiverName, 22, `${ef}.receiverName`),
        traceNumber: trace,
        addenda: [addenda],
      };
    });
    return { ...head, entries };
  });
  return serialize(header, batches);
}
