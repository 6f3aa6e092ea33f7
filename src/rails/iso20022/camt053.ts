/**
 * The bank's `camt.053.001.08` end-of-day account statement (docs/treasury.md "camt.053"): the
 * booked entries of one account over one period, between its opening booked balance (`OPBD`) and
 * its closing booked balance (`CLBD`). {@link parseCamt053} reads it (the service, for the daily
 * reconciliation of the EUR settlement account); {@link writeCamt053} writes it (the test bank).
 * The entries are the same `ReportEntry10` as camt.054's (camt054.ts). Amounts are integer minor
 * units as decimal strings; a balance carries its sign from `CdtDbtInd` (`DBIT`: negative).
 */
import { decimalToMinor, minorToDecimal } from './amounts';
import { type Camt054Entry, type Camt054EntryInput, entryTree, parseEntry } from './camt054';
import { isoDateTime, parseDocument, Reader, writeDocument } from './xml';

/** A balance of a statement: signed integer minor units and its date (`YYYY-MM-DD` or a date-time, as written). */
export interface Camt053Balance {
  amountMinor: string;
  currency: string;
  date: string;
}

/** A parsed `camt.053.001.08` (its first `Stmt`; a bank sends one statement per account and file). */
export interface Camt053Statement {
  messageId: string;
  /** `GrpHdr/CreDtTm` as written. */
  createdAt: string;
  /** `Stmt/Id`. */
  statementId: string;
  /** `Stmt/ElctrncSeqNb` (the bank's running number of the account's statements), or null. */
  sequenceNumber: string | null;
  /** `Stmt/LglSeqNb`, or null. */
  legalSequenceNumber: string | null;
  /** `Stmt/FrToDt/FrDtTm` and `ToDtTm` as written, or null. */
  from: string | null;
  to: string | null;
  accountIban: string | null;
  /** `Acct/Ccy`, else the opening balance's currency. */
  currency: string;
  /** The opening booked balance (`OPBD`, else `PRCD`). */
  opening: Camt053Balance;
  /** The closing booked balance (`CLBD`). */
  closing: Camt053Balance;
  entries: Camt054Entry[];
}

function balance(b: Reader): { code: string | null } & Camt053Balance {
  const amountText = b.needText('Amt');
  const currency = b.attr('Amt', 'Ccy');
  if (!currency) throw b.error(`${b.path}/Amt has no Ccy`);
  const minor = decimalToMinor(amountText, 2);
  if (minor === null) throw b.error(`${b.path}/Amt ${JSON.stringify(amountText)} is not an amount with at most 2 decimals`);
  const cdi = b.needText('CdtDbtInd');
  if (cdi !== 'CRDT' && cdi !== 'DBIT') throw b.error(`${b.path}/CdtDbtInd is ${JSON.stringify(cdi)}, not CRDT or DBIT`);
  const date = b.text('Dt/Dt') ?? b.text('Dt/DtTm');
  if (!date) throw b.error(`${b.path}/Dt is missing`);
  return { code: b.text('Tp/CdOrPrtry/Cd'), amountMinor: cdi === 'DBIT' && minor !== '0' ? `-${minor}` : minor, currency, date };
}

/**
 * Parses a `camt.053.001.08` file. Throws `Iso20022ParseError` for input over
 * `MAX_ISO20022_BYTES`, a DOCTYPE or ENTITY declaration, malformed XML, another namespace, a missing
 * `GrpHdr/MsgId`, `GrpHdr/CreDtTm`, `Stmt`, `Stmt/Id`, an opening (`OPBD` or `PRCD`) or closing
 * (`CLBD`) balance, a balance or entry in another currency than the account's, and an entry without
 * a valid `CdtDbtInd`, `Sts`, `Amt` with `Ccy`, or with more than 2 decimals. Does not check the
 * arithmetic (the reconciliation does: src/core/treasury) and does not validate against the XSD.
 */
export function parseCamt053(xml: string): Camt053Statement {
  const root = new Reader(parseDocument(xml, 'camt.053.001.08', 'BkToCstmrStmt'), 'BkToCstmrStmt', 'camt.053.001.08');
  const hdr = root.need('GrpHdr');
  const stmt = root.all('Stmt')[0];
  if (!stmt) throw root.error('BkToCstmrStmt/Stmt is missing');
  const balances = stmt.all('Bal').map(balance);
  const opening = balances.find((b) => b.code === 'OPBD') ?? balances.find((b) => b.code === 'PRCD');
  const closing = balances.find((b) => b.code === 'CLBD');
  if (!opening) throw stmt.error(`${stmt.path}/Bal with Tp/CdOrPrtry/Cd OPBD (or PRCD) is missing`);
  if (!closing) throw stmt.error(`${stmt.path}/Bal with Tp/CdOrPrtry/Cd CLBD is missing`);
  const currency = stmt.text('Acct/Ccy') ?? opening.currency;
  const entries = stmt.all('Ntry').map(parseEntry);
  for (const x of [opening, closing, ...entries]) {
    if (x.currency !== currency) throw stmt.error(`${stmt.path}: an amount in ${x.currency} on an account in ${currency}`);
  }
  return {
    messageId: hdr.needText('MsgId'),
    createdAt: hdr.needText('CreDtTm'),
    statementId: stmt.needText('Id'),
    sequenceNumber: stmt.text('ElctrncSeqNb'),
    legalSequenceNumber: stmt.text('LglSeqNb'),
    from: stmt.text('FrToDt/FrDtTm'),
    to: stmt.text('FrToDt/ToDtTm'),
    accountIban: stmt.text('Acct/Id/IBAN'),
    currency,
    opening: { amountMinor: opening.amountMinor, currency: opening.currency, date: opening.date },
    closing: { amountMinor: closing.amountMinor, currency: closing.currency, date: closing.date },
    entries,
  };
}

/** What {@link writeCamt053} writes: one statement of one account. */
export interface Camt053Input {
  messageId: string;
  createdAt: Date;
  statementId: string;
  /** `ElctrncSeqNb` and `LglSeqNb`: the account's running statement number. */
  sequenceNumber: number;
  from: Date;
  to: Date;
  accountIban: string;
  currency: string;
  /** Opening and closing booked balances, signed integer minor units as decimal strings. */
  openingMinor: string;
  closingMinor: string;
  /** The balances' dates, `YYYY-MM-DD`. */
  openingDate: string;
  closingDate: string;
  entries: Camt054EntryInput[];
}

function balanceTree(code: 'OPBD' | 'CLBD', signedMinor: string, currency: string, date: string) {
  const negative = signedMinor.startsWith('-');
  return {
    Tp: { CdOrPrtry: { Cd: code } },
    Amt: { '@Ccy': currency, '#': minorToDecimal(negative ? signedMinor.slice(1) : signedMinor) },
    CdtDbtInd: negative ? 'DBIT' : 'CRDT',
    Dt: { Dt: date },
  };
}

/**
 * Writes a `camt.053.001.08` statement (UTF-8 XML text, namespace
 * `urn:iso:std:iso:20022:tech:xsd:camt.053.001.08`): one `Stmt` with `OPBD` and `CLBD` balances
 * and one `Ntry` per entry. Throws an `Error` when an amount is not integer minor units. Does not
 * check that the closing balance adds up (a test can write one that does not) and does not validate
 * against the XSD.
 */
export function writeCamt053(input: Camt053Input): string {
  return writeDocument('camt.053.001.08', {
    BkToCstmrStmt: {
      GrpHdr: { MsgId: input.messageId, CreDtTm: isoDateTime(input.createdAt) },
      Stmt: {
        Id: input.statementId,
        ElctrncSeqNb: String(input.sequenceNumber),
        LglSeqNb: String(input.sequenceNumber),
        CreDtTm: isoDateTime(input.createdAt),
        FrToDt: { FrDtTm: isoDateTime(input.from), ToDtTm: isoDateTime(input.to) },
        Acct: { Id: { IBAN: input.accountIban }, Ccy: input.currency },
        Bal: [
          balanceTree('OPBD', input.openingMinor, input.currency, input.openingDate),
          balanceTree('CLBD', input.closingMinor, input.currency, input.closingDate),
        ],
        Ntry: input.entries.length ? input.entries.map(entryTree) : undefined,
      },
    },
  });
}
