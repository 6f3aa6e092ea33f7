/** The NACHA file writer (docs/rails-ach.md "File layout"): 94-character records; amounts integer cents summed with BigInt. Pure. */
import { isValidAbaRouting } from '../../domain/recipients';
import { isNachaText, toNachaText } from './text';

export type SecCode = 'PPD' | 'CCD';

export interface NachaCreditEntryInput {
  /** `checking` writes transaction code 22, `savings` 32. */
  accountType: 'checking' | 'savings';
  /** 9 digits, ABA check digit valid. */
  routingNumber: string;
  /** 1 to 17 digits or letters (written upper-case). */
  accountNumber: string;
  /** Cents as 1 to 10 decimal digits, > 0. */
  amountMinor: string;
  /** Up to 15 characters after {@link toNachaText}; may be empty. */
  identificationNumber: string;
  /** Cut to 22 after {@link toNachaText}; must not convert to ''. */
  receiverName: string;
  /** 15 digits, the first 8 the batch's `odfiIdentification`; unique in the file. */
  traceNumber: string;
  /** Addenda 05 text, cut to 80; `null` or '' after conversion: no addenda. */
  paymentRelatedInformation: string | null;
}

/** Service class 220, originator status 1. */
export interface NachaBatchInput {
  secCode: SecCode;
  /** Cut to 16 after {@link toNachaText}; must not convert to ''. */
  companyName: string;
  /** 1 to 10 characters of the NACHA set. */
  companyIdentification: string;
  /** Cut to 10 after {@link toNachaText}; must not convert to ''. */
  companyEntryDescription: string;
  /** `YYYY-MM-DD`, written `YYMMDD`. */
  effectiveEntryDate: string;
  /** 8 digits (routing number without check digit). */
  odfiIdentification: string;
  /** 1 to 9999999, unique in the file. */
  batchNumber: number;
  entries: NachaCreditEntryInput[];
}

export interface NachaFileInput {
  /** 9 digits, ABA valid, written `' ' + routing`. */
  immediateDestination: string;
  immediateDestinationName: string;
  /** 9 digits (written `' ' + digits`) or exactly 10 characters of the NACHA set. */
  immediateOrigin: string;
  immediateOriginName: string;
  /** Written `YYMMDD` and `HHMM` in America/New_York. */
  createdAt: Date;
  /** `A-Z` or `0-9`. */
  fileIdModifier: string;
  referenceCode?: string;
  batches: NachaBatchInput[];
}

/** `field` names the invalid input, e.g. `batches[0].entries[2].routingNumber`. */
export class NachaInputError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'NachaInputError';
    this.field = field;
  }
}

export type NachaReturnAddendaInput =
  | {
      kind: 'return';
      reasonCode: string;
      originalTraceNumber: string;
      /** `YYYY-MM-DD` (R14/R15) or null. */
      dateOfDeath: string | null;
      originalReceivingDfi: string;
      addendaInformation: string;
    }
  | {
      kind: 'noc';
      changeCode: string;
      originalTraceNumber: string;
      originalReceivingDfi: string;
      /** Up to 29 characters of the NACHA set, written as is. */
      correctedData: string;
    };

export interface NachaReturnEntryInput {
  /** `21`/`31`: return or NOC of a checking/savings credit; `26`/`36`: of a debit. */
  transactionCode: '21' | '31' | '26' | '36';
  routingNumber: string;
  accountNumber: string;
  /** Cents: the original amount for a return, `0` for a NOC. */
  amountMinor: string;
  identificationNumber: string;
  receiverName: string;
  traceNumber: string;
  addenda: NachaReturnAddendaInput;
}

/** SEC code of the original batch, or `COR` for NOCs. */
export interface NachaReturnBatchInput extends Omit<NachaBatchInput, 'secCode' | 'entries'> {
  secCode: 'PPD' | 'CCD' | 'COR';
  entries: NachaReturnEntryInput[];
}

export interface NachaReturnFileInput extends Omit<NachaFileInput, 'batches'> {
  batches: NachaReturnBatchInput[];
}

export const NACHA_RECORD_LENGTH = 94;
/** Records per block; a file is padded with all-`9` records to whole blocks. */
export const NACHA_BLOCKING_FACTOR = 10;

const NY = 'America/New_York';
const TEN_POW_10 = 10n ** 10n;

function alpha(value: string, width: number): string {
  return value.padEnd(width, ' ').slice(0, width);
}

/** Throws when `value` does not fit `width`. */
function num(value: bigint | number, width: number, field: string): string {
  const s = BigInt(value).toString();
  if (s.startsWith('-') || s.length > width) throw new NachaInputError(field, `${s} does not fit ${width} digits`);
  return s.padStart(width, '0');
}

function yymmdd(day: string, field: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  const d = m ? new Date(`${day}T12:00:00Z`) : null;
  if (!m || !d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== day) {
    throw new NachaInputError(field, `"${day}" is not a YYYY-MM-DD date`);
  }
  return `${m[1]!.slice(2)}${m[2]}${m[3]}`;
}

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

/** Throws when nothing is left after conversion. */
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

/** Credit: second digit 0-4; debit: 5-9. */
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

/**
 * Writes a NACHA file of credits (docs/rails-ach.md "File layout"): `'\n'`-separated 94-character
 * records, padded to blocks of 10. Throws {@link NachaInputError} naming the field on any invalid input.
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
 * Writes returns (addenda 99) and notifications of change (SEC `COR`, amount 0, addenda 98) as a
 * receiving bank sends them; layout as {@link writeNachaFile}. Throws {@link NachaInputError}.
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
