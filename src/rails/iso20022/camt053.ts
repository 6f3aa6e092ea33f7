/** The bank's `camt.053.001.08` statement (docs/treasury.md "camt.053"); balances signed minor units (`DBIT`: negative). */
import { decimalToMinor, minorToDecimal } from './amounts';
import { type Camt054Entry, type Camt054EntryInput, entryTree, parseEntry } from './camt054';
import { isoDateTime, parseDocument, Reader, writeDocument } from './xml';

/** Signed integer minor units; date as written. */
export interface Camt053Balance {
  amountMinor: string;
  currency: string;
  date: string;
}

/** The first `Stmt` (one statement per account and file). */
export interface Camt053Statement {
  messageId: string;
  createdAt: string;
  statementId: string;
  sequenceNumber: string | null;
  legalSequenceNumber: string | null;
  /** As written, or null. */
  from: string | null;
  to: string | null;
  accountIban: string | null;
  /** `Acct/Ccy`, else the opening balance's currency. */
  currency: string;
  /** `OPBD`, else `PRCD`. */
  opening: Camt053Balance;
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

/** Throws `Iso20022ParseError` like {@link parseCamt054}, also for a missing balance or another currency; no arithmetic check. */
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

export interface Camt053Input {
  messageId: string;
  createdAt: Date;
  statementId: string;
  sequenceNumber: number;
  from: Date;
  to: Date;
  accountIban: string;
  currency: string;
  /** Signed integer minor units as decimal strings. */
  openingMinor: string;
  closingMinor: string;
  /** `YYYY-MM-DD`. */
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

/** Throws an `Error` when an amount is not integer minor units; does not check the closing balance. */
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
