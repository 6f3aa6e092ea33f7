/**
 * Writes BAI2 (version 2) files (docs/treasury.md "BAI2"): the test bank's end-of-day statement of
 * the USD settlement account. One group, one account per file: 01, 02, 03 (opening ledger `010`
 * and closing ledger `015`), one 16 per transaction, 49, 98, 99, each record ended by `/` (a 16
 * record's text ends the record). Control totals and record counts are computed, never given.
 * Amounts are integer minor units; no floating point.
 */
import { bai2CreditDebit } from './parse';

/** One transaction for {@link writeBai2}. */
export interface Bai2TransactionInput {
  /** A detail type code whose range matches `creditDebit` (`466` ACH settlement debit, `142` ACH credit received, `257` ACH return item, `661` account analysis fee). */
  typeCode: string;
  /** Integer minor units as a decimal string, positive. */
  amountMinor: string;
  bankReference?: string | null;
  customerReference?: string | null;
  text?: string | null;
}

/** What {@link writeBai2} writes: one statement of one account. */
export interface Bai2Input {
  senderId: string;
  receiverId: string;
  createdAt: Date;
  fileId: string;
  /** As-of date `YYYY-MM-DD` of the statement. */
  asOfDate: string;
  currency: string;
  accountNumber: string;
  /** Opening and closing ledger balances, integer minor units (signed) as decimal strings. */
  openingMinor: string;
  closingMinor: string;
  transactions: Bai2TransactionInput[];
}

function yymmdd(iso: string): string {
  return iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);
}

function hhmm(d: Date): string {
  return d.toISOString().slice(11, 16).replace(':', '');
}

/** A field without the characters that delimit BAI2 fields and records. */
function clean(value: string | null | undefined): string {
  return (value ?? '').replace(/[,/\r\n]/g, ' ').trim();
}

/**
 * Writes the BAI2 text (lines ended by `\n`). Throws an `Error` when an amount is not integer minor
 * units or a type code is not a detail code of the right range. Does not check that the closing
 * balance is the opening plus the transactions (a test can write a statement that does not add up).
 */
export function writeBai2(input: Bai2Input): string {
  const opening = BigInt(input.openingMinor);
  const closing = BigInt(input.closingMinor);
  let accountTotal = opening + closing;
  const lines: string[] = [];
  lines.push(`03,${clean(input.accountNumber)},${input.currency},010,${opening},,Z,015,${closing},,Z/`);
  for (const t of input.transactions) {
    if (!/^[1-9][0-9]*$/.test(t.amountMinor)) throw new Error(`BAI2 amount ${JSON.stringify(t.amountMinor)} is not positive integer minor units`);
    if (!/^[0-9]{3}$/.test(t.typeCode) || !bai2CreditDebit(t.typeCode)) throw new Error(`BAI2 type code ${JSON.stringify(t.typeCode)} is not a credit or debit detail code`);
    accountTotal += BigInt(t.amountMinor);
    lines.push(`16,${t.typeCode},${t.amountMinor},Z,${clean(t.bankReference)},${clean(t.customerReference)},${clean(t.text)}/`);
  }
  lines.push(`49,${accountTotal},${lines.length + 1}/`);
  const accountRecords = lines.length;
  const created = input.createdAt.toISOString().slice(0, 10);
  return [
    `01,${clean(input.senderId)},${clean(input.receiverId)},${yymmdd(created)},${hhmm(input.createdAt)},${clean(input.fileId)},,,2/`,
    `02,${clean(input.receiverId)},${clean(input.senderId)},1,${yymmdd(input.asOfDate)},2400,${input.currency},2/`,
    ...lines,
    `98,${accountTotal},1,${accountRecords + 2}/`,
    `99,${accountTotal},1,${accountRecords + 4}/`,
    '',
  ].join('\n');
}
