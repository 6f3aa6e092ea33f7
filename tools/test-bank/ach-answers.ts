/**
 * The test bank's ACH answering rules (docs/rails-ach.md "Test bank magic account numbers"):
 * pure functions from an uploaded NACHA file of credits to the files the bank puts in its outbox
 * (returns with addenda 99, notifications of change in `COR` batches with addenda 98), and the file
 * of an incoming ACH credit to a live USD virtual account. The SFTP side (picking files up, writing
 * answers, waiting the late delay) is elsewhere; this module does no I/O.
 *
 * ## Magic values (the DFI ACCOUNT NUMBER of a credit entry, as written in the file)
 *
 * | account number | the bank answers                                                                                  | the payout ends                             |
 * |----------------|---------------------------------------------------------------------------------------------------|---------------------------------------------|
 * | any other      | nothing: ACH settles by silence on the effective date                                             | succeeded                                   |
 * | `9990000101`   | a return `R01` (insufficient funds), in the answer published now (`_1`)                          | failed `provider_declined` (retryable)      |
 * | `9990000103`   | a return `R03` (no account/unable to locate account), now (`_1`)                                 | failed `invalid_destination`                |
 * | `9990000104`   | a return `R04` (invalid account number structure), now (`_1`)                                    | failed `invalid_destination`                |
 * | `9990000202`   | a LATE return `R02` (account closed), in `_2`, published after the caller's late delay          | refunded (`refunded_by_provider`)           |
 * | `9990000301`   | a notification of change `C01` with corrected account {@link ACH_NOC_CORRECTED_ACCOUNT}, now (`_1`); the entry itself settles | succeeded; the saved recipient is corrected |
 *
 * Only live credit entries (transaction codes 22 and 32) are answered; prenotes and debits get
 * nothing.
 *
 * ## Answer files
 *
 * 1. `ach_ret_<stem>_1.ach` (file id modifier `A`): per uploaded batch with answers due now, one
 *    return batch (the original SEC code, company name, identification, entry description and
 *    effective date; ODFI = the bank) of return entries (transaction code 21 for a checking credit,
 *    31 savings, the original amount, account, identification and name; RDFI routing = the original
 *    batch's ODFI identification plus its check digit; one addenda 99 with the reason code, the
 *    original trace number and the original RDFI's 8 digits), then a `COR` batch of NOC entries
 *    (21/31, amount 0, one addenda 98 with the change code, the original trace and the corrected
 *    data) per uploaded batch with NOCs. Left out when nothing is due now.
 * 2. `ach_ret_<stem>_2.ach` (file id modifier `B`): the late returns, laid out the same way. Left
 *    out when there is none.
 *
 * `<stem>` is the upload's base name without its last extension, every character other than
 * `A-Z a-z 0-9 . -` replaced by `_`. The files go to the upload's immediate origin when it is a
 * routing number (else to the first batch's ODFI routing) from {@link ACH_BANK_ROUTING}. The bank's
 * trace numbers start with the first 8 digits of {@link ACH_BANK_ROUTING}; the other 7 count up by
 * one per entry from a digest of the upload's stem, so each batch lists its entries in ascending
 * trace number order (NACHA rules), in the order of the original entries. Every file is read back by the project's NACHA checks before it
 * is returned ({@link checkedLikeOurs}). The same upload and `now` always give the same files (names
 * and bytes).
 */
import { createHash } from 'node:crypto';
import { abaCheckDigit } from '../../src/domain/funding';
import { isFedBusinessDay, nextFedBusinessDay } from '../../src/rails/fed-calendar';
import { writeNachaFile, writeNachaReturnFile, type NachaReturnBatchInput, type NachaReturnEntryInput } from '../../src/rails/nacha/file';
import { parseNachaFile, type ParsedNachaBatch, type ParsedNachaEntry } from '../../src/rails/nacha/parse';
import { toNachaText } from '../../src/rails/nacha/text';

/** The test bank's ABA routing number (check digit valid); the first 8 digits prefix its trace numbers. */
export const ACH_BANK_ROUTING = '091000019';
/** The name the test bank writes as immediate origin name. */
export const ACH_BANK_NAME = 'ACH TEST BANK';
/** The corrected account number of the `9990000301` notification of change (C01). */
export const ACH_NOC_CORRECTED_ACCOUNT = '4455667788';

/** What the test bank answers for one magic account number (see the module's table). */
export interface AchMagicAnswer {
  /** A return (addenda 99) or a notification of change (addenda 98). */
  kind: 'return' | 'noc';
  /** The NACHA return reason code (`R01`) or change code (`C01`). */
  code: string;
  /** `now`: in the answer published at once (`_1`); `late`: in `_2`, after the caller's late delay. */
  when: 'now' | 'late';
  /** The corrected data of a NOC (29 characters at most). */
  correctedData?: string;
  /** How the payout ends, for the docs and tests. */
  payoutEnds: 'failed provider_declined' | 'failed invalid_destination' | 'refunded' | 'succeeded, recipient corrected';
}

/** The magic DFI account numbers of the test bank (see the module's table). */
export const ACH_MAGIC_ACCOUNTS: Readonly<Record<string, AchMagicAnswer>> = {
  '9990000101': { kind: 'return', code: 'R01', when: 'now', payoutEnds: 'failed provider_declined' },
  '9990000103': { kind: 'return', code: 'R03', when: 'now', payoutEnds: 'failed invalid_destination' },
  '9990000104': { kind: 'return', code: 'R04', when: 'now', payoutEnds: 'failed invalid_destination' },
  '9990000202': { kind: 'return', code: 'R02', when: 'late', payoutEnds: 'refunded' },
  '9990000301': { kind: 'noc', code: 'C01', when: 'now', correctedData: ACH_NOC_CORRECTED_ACCOUNT, payoutEnds: 'succeeded, recipient corrected' },
};

/** One file the bank puts in its outbox. */
export interface AchBankFile {
  name: string;
  /** The NACHA file text (94-character records, `'\n'` separated). */
  text: string;
  /** `now`: publish at once; `late`: after the late delay. */
  when: 'now' | 'late';
}

/** What the bank answers for a credit to `accountNumber`: a magic answer, or null (settles by silence). */
export function achAnswerFor(accountNumber: string): AchMagicAnswer | null {
  return ACH_MAGIC_ACCOUNTS[accountNumber.trim()] ?? null;
}

function stemOf(uploadName: string): string {
  const base = uploadName.split(/[\\/]/).pop() ?? uploadName;
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  return stem.replace(/[^A-Za-z0-9.-]/g, '_') || 'upload';
}

function digest(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('hex');
}

/**
 * The bank's trace numbers for the answers to one upload, as an ODFI assigns them: the bank prefix
 * and a 7-digit sequence that starts at a digest of `key` (the upload's stem) and counts up by one
 * per entry written, so they ascend in file order and never repeat within the answers to one upload.
 */
function traceAllocator(key: string): () => string {
  const prefix = ACH_BANK_ROUTING.slice(0, 8);
  // Room for 100,000 entries above the start before the 7 digits would overflow.
  let n = Number(BigInt(`0x${digest('trace', key).slice(0, 15)}`) % 9_900_000n);
  return () => `${prefix}${String(n++).padStart(7, '0')}`;
}

/** `YYYY-MM-DD` of `now` in America/New_York. */
function newYorkDay(now: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/**
 * Every NACHA file the test bank writes is read back by the project's NACHA checks
 * (parseNachaFile: record layout, controls, totals, counts, ascending trace numbers within a
 * batch) before it is published, as the service checks its own; tests also run the independent
 * validator on them (tools/test-bank/nacha-check.ts). Returns `text`; throws NachaParseError.
 */
export function checkedLikeOurs(text: string): string {
  parseNachaFile(text);
  return text;
}

interface Answered {
  batch: ParsedNachaBatch;
  entry: ParsedNachaEntry;
  answer: AchMagicAnswer;
}

/**
 * Answers an uploaded NACHA file (see the module's table) at `now` (the answers' creation time).
 * Returns 0 to 2 files: `ach_ret_<stem>_1.ach` (`when: 'now'`) with the returns and NOCs due now,
 * and `ach_ret_<stem>_2.ach` (`when: 'late'`) with the late returns; every file parses with
 * parseNachaFile. Throws NachaParseError when the upload does not parse (the bank then rejects the
 * file), and NachaInputError when an answered entry cannot be written back (e.g. an empty name).
 */
export function answerNacha(text: string, uploadName: string, now: Date): AchBankFile[] {
  const upload = parseNachaFile(text);
  const stem = stemOf(uploadName);
  const answered: Answered[] = [];
  for (const batch of upload.batches) {
    if (batch.secCode !== 'PPD' && batch.secCode !== 'CCD') continue;
    for (const entry of batch.entries) {
      if (entry.transactionCode !== '22' && entry.transactionCode !== '32') continue;
      const answer = achAnswerFor(entry.accountNumber);
      if (answer) answered.push({ batch, entry, answer });
    }
  }
  const destination = /^[0-9]{9}$/.test(upload.immediateOrigin)
    ? upload.immediateOrigin
    : `${upload.batches[0]!.odfiIdentification}${abaCheckDigit(upload.batches[0]!.odfiIdentification)}`;
  const nextTrace = traceAllocator(stem);
  const bankOdfi = ACH_BANK_ROUTING.slice(0, 8);
  const today = newYorkDay(now);

  const out: AchBankFile[] = [];
  for (const [when, modifier, n] of [['now', 'A', 1], ['late', 'B', 2]] as const) {
    const due = answered.filter((a) => a.answer.when === when);
    if (due.length === 0) continue;
    const batches: NachaReturnBatchInput[] = [];
    const header = (b: ParsedNachaBatch, secCode: 'PPD' | 'CCD' | 'COR') => ({
      secCode,
      companyName: b.companyName || 'UNKNOWN',
      companyIdentification: b.companyIdentification || '0000000000',
      companyEntryDescription: b.companyEntryDescription || 'RETURN',
      effectiveEntryDate: b.effectiveEntryDate ?? today,
      odfiIdentification: bankOdfi,
      batchNumber: batches.length + 1,
    });
    const entryOf = (a: Answered): NachaReturnEntryInput => {
      const trace = nextTrace();
      const base = {
        transactionCode: a.entry.transactionCode === '22' ? ('21' as const) : ('31' as const),
        routingNumber: `${a.batch.odfiIdentification}${abaCheckDigit(a.batch.odfiIdentification)}`,
        accountNumber: a.entry.accountNumber,
        identificationNumber: a.entry.identificationNumber,
        receiverName: a.entry.name || 'UNKNOWN',
        traceNumber: trace,
      };
      const originalReceivingDfi = a.entry.routingNumber.slice(0, 8);
      return a.answer.kind === 'return'
        ? { ...base, amountMinor: a.entry.amountMinor, addenda: { kind: 'return', reasonCode: a.answer.code, originalTraceNumber: a.entry.traceNumber, dateOfDeath: null, originalReceivingDfi, addendaInformation: '' } }
        : { ...base, amountMinor: '0', addenda: { kind: 'noc', changeCode: a.answer.code, originalTraceNumber: a.entry.traceNumber, originalReceivingDfi, correctedData: a.answer.correctedData ?? '' } };
    };
    // NACHA rules: a batch lists its entries in ascending trace number order (as an ODFI writes them).
    const ascending = (entries: NachaReturnEntryInput[]) => entries.sort((x, y) => (x.traceNumber < y.traceNumber ? -1 : x.traceNumber > y.traceNumber ? 1 : 0));
    for (const batch of upload.batches) {
      const returns = due.filter((a) => a.batch === batch && a.answer.kind === 'return');
      if (returns.length > 0) batches.push({ ...header(batch, batch.secCode as 'PPD' | 'CCD'), entries: ascending(returns.map(entryOf)) });
    }
    for (const batch of upload.batches) {
      const nocs = due.filter((a) => a.batch === batch && a.answer.kind === 'noc');
      if (nocs.length > 0) batches.push({ ...header(batch, 'COR'), entries: ascending(nocs.map(entryOf)) });
    }
    out.push({
      name: `ach_ret_${stem}_${n}.ach`,
      when,
      text: checkedLikeOurs(writeNachaReturnFile({
        immediateDestination: destination,
        immediateDestinationName: upload.immediateOriginName,
        immediateOrigin: ACH_BANK_ROUTING,
        immediateOriginName: ACH_BANK_NAME,
        createdAt: now,
        fileIdModifier: modifier,
        batches,
      })),
    });
  }
  return out;
}

/** An ACH credit from an outside originator to one of the business's live USD virtual accounts. */
export interface IncomingAchCreditInput {
  /** The virtual account number credited (1 to 17 digits or letters). */
  accountNumber: string;
  /** The virtual account's routing number (9 digits, ABA valid). */
  routingNumber: string;
  /** Cents as decimal digits (1 to 10 digits, > 0). */
  amountMinor: string;
  /** The originating company's name (batch header company name, 16 in the NACHA set). */
  originatorName: string;
  /** The originating company's identification (1 to 10 NACHA characters); default: 10 digits from the digest. */
  originatorId?: string;
  /** The payer's reference: identification number (first 15 in the NACHA set) and addenda 05 (80). */
  reference?: string | null;
  /** Creation time of the file; the effective date is its New York day when that is a Fed business day, else the next one. */
  now: Date;
}

/**
 * The NACHA file of an incoming ACH credit (how a deposit to a live USD virtual account arrives):
 * one PPD batch (company = the originator, entry description `DEPOSIT`, ODFI = the bank) with one
 * credit entry (transaction code 22) of `amountMinor` to `accountNumber` at `routingNumber`, receiver
 * name `VIRTUAL ACCOUNT <last 4>`, the reference as identification number and addenda 05 (none when
 * absent). Named `ach_in_<digest>.ach` (16 hex characters of a digest of the input); deterministic
 * per input. Throws NachaInputError on invalid input (routing check digit, amount, names).
 */
export function incomingAchCredit(input: IncomingAchCreditInput): AchBankFile {
  const hash = digest(
    'incoming',
    input.accountNumber,
    input.routingNumber,
    input.amountMinor,
    input.originatorName,
    input.originatorId ?? '',
    input.reference ?? '',
    input.now.toISOString(),
  );
  const bankOdfi = ACH_BANK_ROUTING.slice(0, 8);
  const digits = BigInt(`0x${hash.slice(0, 15)}`).toString().padStart(17, '0');
  const today = newYorkDay(input.now);
  const effectiveDate = isFedBusinessDay(today) ? today : nextFedBusinessDay(today);
  const reference = input.reference ?? null;
  return {
    name: `ach_in_${hash.slice(0, 16)}.ach`,
    when: 'now',
    text: checkedLikeOurs(writeNachaFile({
      immediateDestination: input.routingNumber,
      immediateDestinationName: '',
      immediateOrigin: ACH_BANK_ROUTING,
      immediateOriginName: ACH_BANK_NAME,
      createdAt: input.now,
      fileIdModifier: 'A',
      batches: [
        {
          secCode: 'PPD',
          companyName: input.originatorName,
          companyIdentification: input.originatorId ?? `1${digits.slice(-9)}`,
          companyEntryDescription: 'DEPOSIT',
          effectiveEntryDate: effectiveDate,
          odfiIdentification: bankOdfi,
          batchNumber: 1,
          entries: [
            {
              accountType: 'checking',
              routingNumber: input.routingNumber,
              accountNumber: input.accountNumber,
              amountMinor: input.amountMinor,
              identificationNumber: reference === null ? '' : toNachaText(reference, 15),
              receiverName: `VIRTUAL ACCOUNT ${input.accountNumber.slice(-4)}`,
              traceNumber: `${bankOdfi}${digits.slice(0, 7)}`,
              paymentRelatedInformation: reference,
            },
          ],
        },
      ],
    })),
  };
}
