import type { JSONColumnType } from 'kysely';

/**
 * One end-of-day statement of a settlement account, read from the bank (docs/treasury.md;
 * src/core/treasury/statements.ts writes it). One per inbound bank file.
 */
export interface TreasuryStatementsTable {
  /** `stm_…`. */
  id: string;
  /** The rail whose connection delivered it, which names the settlement account: `sepa_credit_transfer` (EUR), `ach` (USD). */
  rail: string;
  /** The account as the bank names it (IBAN, or the BAI2 account number). */
  account_id: string;
  currency: string;
  /** `camt.053` or `bai2`. */
  format: string;
  /** The rail_files row it was read from. */
  rail_file_id: string;
  /** The bank's id of the statement (camt.053 `Stmt/Id`, BAI2 file id). */
  statement_ref: string;
  /** The bank's running number of the account's statements (camt.053 `ElctrncSeqNb`, a numeric BAI2 file id); consecutive statements chain. */
  sequence_number: bigint | null;
  /** YYYY-MM-DD: the day it reports. */
  statement_date: string;
  period_start: Date | null;
  /** Everything the bank booked up to this instant is on this statement or an earlier one. */
  period_end: Date;
  /** Opening and closing booked balances, signed integer minor units. */
  opening_minor: bigint;
  closing_minor: bigint;
  entries: number;
  /** What our books say the account holds at period_end, and how much of it the bank had not booked yet (grace), set by the last reconciliation. */
  books_position_minor: bigint | null;
  in_transit_minor: bigint | null;
  reconciled_at: Date | null;
  created_at: Date;
}

/** One booked entry of a statement and what it matched in our books (src/core/treasury/statements.ts writes it). */
export interface TreasuryStatementEntriesTable {
  /** `<statement id>:<position>`. */
  id: string;
  statement_id: string;
  rail: string;
  position: number;
  credit_debit: 'CRDT' | 'DBIT';
  /** Integer minor units, positive. */
  amount_minor: bigint;
  currency: string;
  /** BAI2 type code, or camt.053 bank transaction code `<domain>/<family>/<sub-family>`. */
  type_code: string | null;
  /** The reference shown to operators (EndToEndId, trace number, the bank's reference). */
  reference: string | null;
  /** Keys this entry may match in the books, best first (`DBIT:<EndToEndId>`, `CRDT:<trace number>`). */
  match_keys: JSONColumnType<string[], string, string>;
  booked_on: string | null;
  description: string | null;
  /** The expected movement it matched (one of match_keys), or null (a bank_only break). */
  matched_key: string | null;
  created_at: Date;
}

/** A difference between a settlement account's statements and our books (src/core/treasury/statements.ts writes it). */
export interface TreasuryBreaksTable {
  /** `tbr_…`. */
  id: string;
  rail: string;
  account_id: string;
  currency: string;
  /** bank_only: booked by the bank, not in our books; books_only: in our books, not on any statement past its expected time; amount_mismatch: matched, other amount; balance_drift: a statement's balances do not add up or chain. */
  kind: 'bank_only' | 'books_only' | 'amount_mismatch' | 'balance_drift';
  /** Unique per rail and kind: the entry id (bank_only), the expected movement's key (books_only, amount_mismatch), `arithmetic:<statement id>` / `chain:<statement id>` / `gap:<statement id>` (balance_drift). */
  break_key: string;
  statement_id: string | null;
  entry_id: string | null;
  reference: string | null;
  /** Signed integer minor units (credits positive): what the bank booked, what our books expect, and bank minus books. */
  bank_amount_minor: bigint | null;
  books_amount_minor: bigint | null;
  difference_minor: bigint;
  detail: string;
  /** open until a later reconciliation no longer finds it (then resolved). */
  status: 'open' | 'resolved';
  opened_at: Date;
  resolved_at: Date | null;
  updated_at: Date;
}

/** Tables of the treasury reconciliation. */
export interface TreasuryTables {
  treasury_statements: TreasuryStatementsTable;
  treasury_statement_entries: TreasuryStatementEntriesTable;
  treasury_breaks: TreasuryBreaksTable;
}
