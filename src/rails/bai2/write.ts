/**
 * Writes BAI2 statements (docs/treasury.md "BAI2") for the test bank: one group, one account;
 * control totals and counts computed. Amounts are integer minor units.
 */
import { bai2CreditDebit } from './parse';

export interface Bai2TransactionInput {
  /** A detail type code whose range matches `creditDebit` (`466`, `142`, `257`, `661`). */
  typeCode: string;
  /** Positive minor units. */
  amountMinor: string;
  bankReference?: string | null;
  customerReference?: string | null;
  text?: string | null;
}

export interface Bai2Input {
  senderId: string;
  receiverId: string;
  createdAt: Date;
  fileId: string;
  asOfDate: string;
  currency: string;
  accountNumber: string;
  /** Signed minor units. */
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

function clean(value: string | null | undefined): string {
  return (value ?? '').replace(/[,/\r\n]/g, ' ').trim();
}

/** Throws an `Error` for a non-integer amount or a type code of the wrong range; does not check that the balances add up. */
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
