/**
 * The test bank's end-of-day statements of the platform's settlement accounts (docs/treasury.md
 * "Test bank statements"). The bank books, as it answers:
 *
 * - on the EUR account (IBAN `TEST_BANK_DEBTOR.iban`): every `BOOK` entry of every camt.054 it
 *   publishes: the debit of each executed credit transfer, the credit of each return, each incoming
 *   credit to a virtual IBAN (virtual IBANs are sub-accounts of the settlement account);
 * - on the USD account ({@link TEST_BANK_USD_ACCOUNT}): a debit per credit entry of every NACHA
 *   file it accepts (it takes the funds of a file on acceptance), a credit per return it publishes,
 *   a credit per incoming ACH credit it publishes.
 *
 * `close()` ends the statement period: it writes a `camt.053.001.08` of the EUR account (period
 * from the previous close to now, `ElctrncSeqNb` counting from 1) and a BAI2 file of the USD
 * account (as-of today, end of day, file id = the same running number): opening balance, the
 * period's entries, closing balance; the next statement opens with this closing balance.
 *
 * **Planted breaks** (`close({ EUR: plant, USD: plant })`, per account):
 * - `fee`: a bank fee the platform never booked, on this statement (camt.053 `ACMT/MDOP/CHRG`;
 *   BAI2 type 661), in the closing balance: reconciled as `bank_only`;
 * - `withholdReturn`: the bank leaves out a return it had announced (camt.054 / NACHA return) from
 *   the statement and from the balance (`true`: the period's first return; a string: the return of
 *   that EndToEndId or original trace number): reconciled as `books_only`.
 *
 * A notification delivered twice (the same bank reference, or the same trace number) is booked once.
 * No I/O: bank.ts publishes what this returns.
 */
import { parseCamt054, type Camt054EntryInput } from '../../src/rails/iso20022/camt054';
import { writeCamt053 } from '../../src/rails/iso20022/camt053';
import { writeBai2, type Bai2TransactionInput } from '../../src/rails/bai2/write';
import { parseNachaFile } from '../../src/rails/nacha/parse';

/** The USD settlement account number of the platform at the test bank (the ODFI). */
export const TEST_BANK_USD_ACCOUNT = '4000123456';
/** Where both settlement accounts start: 1,000,000.00 (minor units). */
export const TEST_BANK_OPENING_MINOR = '100000000';

/** What the bank plants in one account's statement (see the module comment). */
export interface StatementPlant {
  /** A fee the platform never booked: amount in minor units, and its text. */
  fee?: { amountMinor: string; text?: string };
  /** Leave out a return announced earlier: `true` the period's first, or the EndToEndId / original trace number of one. */
  withholdReturn?: boolean | string;
}

/** What one close planted, for tests and the demo: the references and amounts of the planted breaks. */
export interface PlantedBreak {
  account: 'EUR' | 'USD';
  kind: 'bank_only' | 'books_only';
  reference: string;
  /** Signed minor units as the statement (would have) booked it: a fee negative, a withheld return positive. */
  amountMinor: string;
}

/** The files of one close. */
export interface ClosedStatements {
  sequence: number;
  camt053: { name: string; xml: string };
  bai2: { name: string; text: string };
  planted: PlantedBreak[];
}

interface EurMovement {
  entry: Camt054EntryInput;
  isReturn: boolean;
}
interface UsdMovement {
  tx: Bai2TransactionInput;
  creditDebit: 'CRDT' | 'DBIT';
  isReturn: boolean;
}

const signed = (cd: 'CRDT' | 'DBIT', amount: string) => (cd === 'CRDT' ? BigInt(amount) : -BigInt(amount));

/** The test bank's book of the two settlement accounts (see the module comment). */
export class StatementBook {
  private eur: EurMovement[] = [];
  private usd: UsdMovement[] = [];
  private eurBalance = BigInt(TEST_BANK_OPENING_MINOR);
  private usdBalance = BigInt(TEST_BANK_OPENING_MINOR);
  private sequence = 0;
  private periodStart: Date;
  private bankRefs = 0;
  /** What was booked, by the bank's own reference: a notification delivered twice is booked once. */
  private booked = new Set<string>();

  /** False when `key` was booked before (then it is not booked again). */
  private once(key: string | null): boolean {
    if (!key) return true;
    if (this.booked.has(key)) return false;
    this.booked.add(key);
    return true;
  }

  constructor(
    private readonly eurIban: string,
    start: Date = new Date(),
  ) {
    this.periodStart = start;
  }

  private bankRef(prefix: string): string {
    this.bankRefs += 1;
    return `${prefix}${String(this.bankRefs).padStart(8, '0')}`;
  }

  /** Books what a published file moves (a camt.054 on the EUR account; a NACHA return or credit file on the USD account). */
  observe(file: { name: string; xml?: string; text?: string }): void {
    if (file.xml !== undefined) {
      if (!file.xml.includes('camt.054.')) return;
      const n = parseCamt054(file.xml);
      for (const e of n.entries) {
        if (e.status !== 'BOOK' || !this.once(e.accountServicerReference ? `EUR:${e.creditDebit}:${e.accountServicerReference}` : null)) continue;
        this.eur.push({
          isReturn: e.creditDebit === 'CRDT' && !!e.returnReasonCode,
          entry: {
            creditDebit: e.creditDebit,
            status: 'BOOK',
            bookingDate: e.bookingDate,
            amountMinor: e.amountMinor,
            currency: e.currency,
            entryReference: e.entryReference,
            accountServicerReference: e.accountServicerReference,
            endToEndId: e.endToEndId,
            uetr: e.uetr,
            originalMessageId: e.originalMessageId,
            returnReasonCode: e.returnReasonCode,
            debtorName: e.debtorName,
            debtorIban: e.debtorIban,
            creditorName: e.creditorName,
            creditorIban: e.creditorIban,
            remittanceInformation: e.remittanceInformation,
          },
        });
      }
      return;
    }
    if (file.text === undefined) return;
    for (const batch of parseNachaFile(file.text).batches) {
      for (const entry of batch.entries) {
        if (entry.amountMinor === '0' || !this.once(`USD:${entry.return ? 'return' : 'credit'}:${entry.return?.originalTraceNumber ?? entry.traceNumber}`)) continue;
        if (entry.return) {
          this.usd.push({ creditDebit: 'CRDT', isReturn: true, tx: { typeCode: '257', amountMinor: entry.amountMinor, bankReference: this.bankRef('R'), customerReference: entry.return.originalTraceNumber, text: `ACH RETURN ${entry.return.reasonCode}` } });
        } else if (entry.transactionCode === '22' || entry.transactionCode === '32') {
          this.usd.push({ creditDebit: 'CRDT', isReturn: false, tx: { typeCode: '142', amountMinor: entry.amountMinor, bankReference: this.bankRef('C'), customerReference: entry.traceNumber, text: `ACH CREDIT ${batch.companyName}` } });
        }
      }
    }
  }

  /** Books the debit of every credit entry of a NACHA file the bank accepted from the platform. */
  observeAchUpload(text: string): void {
    for (const batch of parseNachaFile(text).batches) {
      for (const entry of batch.entries) {
        if ((entry.transactionCode !== '22' && entry.transactionCode !== '32') || entry.amountMinor === '0' || !this.once(`USD:debit:${entry.traceNumber}`)) continue;
        this.usd.push({ creditDebit: 'DBIT', isReturn: false, tx: { typeCode: '466', amountMinor: entry.amountMinor, bankReference: this.bankRef('S'), customerReference: entry.traceNumber, text: 'ACH SETTLEMENT' } });
      }
    }
  }

  /** Ends the period at `now` (see the module comment) and answers both statements. */
  close(now: Date, plant: { EUR?: StatementPlant; USD?: StatementPlant } = {}): ClosedStatements {
    this.sequence += 1;
    const seq = this.sequence;
    const date = now.toISOString().slice(0, 10);
    const planted: PlantedBreak[] = [];

    let eur = this.eur.splice(0);
    const eurWithheld = pick(eur, plant.EUR?.withholdReturn, (m) => m.isReturn, (m) => m.entry.endToEndId ?? '');
    if (eurWithheld) {
      eur = eur.filter((m) => m !== eurWithheld);
      planted.push({ account: 'EUR', kind: 'books_only', reference: eurWithheld.entry.endToEndId ?? '', amountMinor: eurWithheld.entry.amountMinor });
    }
    if (plant.EUR?.fee) {
      const ref = `FEE-EUR-${seq}`;
      eur.push({
        isReturn: false,
        entry: { creditDebit: 'DBIT', status: 'BOOK', bookingDate: date, amountMinor: plant.EUR.fee.amountMinor, currency: 'EUR', accountServicerReference: ref, bankTransactionCode: { domain: 'ACMT', family: 'MDOP', subFamily: 'CHRG' }, additionalEntryInfo: plant.EUR.fee.text ?? 'Account maintenance fee' },
      });
      planted.push({ account: 'EUR', kind: 'bank_only', reference: ref, amountMinor: `-${plant.EUR.fee.amountMinor}` });
    }
    const eurOpening = this.eurBalance;
    this.eurBalance += eur.reduce((s, m) => s + signed(m.entry.creditDebit, m.entry.amountMinor), 0n);

    let usd = this.usd.splice(0);
    const usdWithheld = pick(usd, plant.USD?.withholdReturn, (m) => m.isReturn, (m) => m.tx.customerReference ?? '');
    if (usdWithheld) {
      usd = usd.filter((m) => m !== usdWithheld);
      planted.push({ account: 'USD', kind: 'books_only', reference: usdWithheld.tx.customerReference ?? '', amountMinor: usdWithheld.tx.amountMinor });
    }
    if (plant.USD?.fee) {
      const ref = `FEE-USD-${seq}`;
      usd.push({ creditDebit: 'DBIT', isReturn: false, tx: { typeCode: '661', amountMinor: plant.USD.fee.amountMinor, bankReference: ref, customerReference: null, text: plant.USD.fee.text ?? 'ACCOUNT ANALYSIS FEE' } });
      planted.push({ account: 'USD', kind: 'bank_only', reference: ref, amountMinor: `-${plant.USD.fee.amountMinor}` });
    }
    const usdOpening = this.usdBalance;
    this.usdBalance += usd.reduce((s, m) => s + signed(m.creditDebit, m.tx.amountMinor), 0n);

    const from = this.periodStart;
    this.periodStart = now;
    const xml = writeCamt053({
      messageId: `STMT-EUR-${seq}`,
      createdAt: now,
      statementId: `EUR-${date}-${seq}`,
      sequenceNumber: seq,
      from,
      to: now,
      accountIban: this.eurIban,
      currency: 'EUR',
      openingMinor: eurOpening.toString(),
      closingMinor: this.eurBalance.toString(),
      openingDate: from.toISOString().slice(0, 10),
      closingDate: date,
      entries: eur.map((m) => m.entry),
    });
    const text = writeBai2({
      senderId: '091000019',
      receiverId: 'PAYOUTS',
      createdAt: now,
      fileId: String(seq),
      asOfDate: date,
      currency: 'USD',
      accountNumber: TEST_BANK_USD_ACCOUNT,
      openingMinor: usdOpening.toString(),
      closingMinor: this.usdBalance.toString(),
      transactions: usd.map((m) => m.tx),
    });
    return { sequence: seq, camt053: { name: `camt053_${seq}_${date}.xml`, xml }, bai2: { name: `bai2_${seq}_${date}.bai`, text }, planted };
  }
}

/** The movement a `withholdReturn` plant names: the first return, or the return whose reference is the given string. */
function pick<T>(list: T[], which: boolean | string | undefined, isReturn: (m: T) => boolean, ref: (m: T) => string): T | null {
  if (!which) return null;
  return list.find((m) => isReturn(m) && (which === true || ref(m) === which)) ?? null;
}
