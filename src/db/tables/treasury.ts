import type { JSONColumnType } from 'kysely';

/** One end-of-day statement of a settlement account (docs/treasury.md), one per inbound bank file. */
export interface TreasuryStatementsTable {
  id: string;
  rail: string;
  account_id: string;
  currency: string;
  format: string;
  rail_file_id: string;
  statement_ref: string;
  sequence_number: bigint | null;
  /** YYYY-MM-DD. */
  statement_date: string;
  period_start: Date | null;
  period_end: Date;
  /** Signed minor units. */
  opening_minor: bigint;
  closing_minor: bigint;
  entries: number;
  /** Our books' position at period_end and the part not yet booked by the bank. */
  books_position_minor: bigint | null;
  in_transit_minor: bigint | null;
  reconciled_at: Date | null;
  created_at: Date;
}

/** One booked entry of a statement and what it matched in our books. */
export interface TreasuryStatementEntriesTable {
  id: string;
  statement_id: string;
  rail: string;
  position: number;
  credit_debit: 'CRDT' | 'DBIT';
  amount_minor: bigint;
  currency: string;
  type_code: string | null;
  reference: string | null;
  match_keys: JSONColumnType<string[], string, string>;
  booked_on: string | null;
  description: string | null;
  matched_key: string | null;
  created_at: Date;
}

/** A difference between a settlement account's statements and our books. */
export interface TreasuryBreaksTable {
  id: string;
  rail: string;
  account_id: string;
  currency: string;
  /** bank_only: booked by the bank, not in our books; books_only: in our books, not on any statement past its expected time; amount_mismatch: matched, other amount; balance_drift: a statement's balances do not add up or chain. */
  kind: 'bank_only' | 'books_only' | 'amount_mismatch' | 'balance_drift';
  break_key: string;
  statement_id: string | null;
  entry_id: string | null;
  reference: string | null;
  /** Signed minor units, credits positive. */
  bank_amount_minor: bigint | null;
  books_amount_minor: bigint | null;
  difference_minor: bigint;
  detail: string;
  status: 'open' | 'resolved';
  opened_at: Date;
  resolved_at: Date | null;
  updated_at: Date;
}

export interface TreasuryTables {
  treasury_statements: TreasuryStatementsTable;
  treasury_statement_entries: TreasuryStatementEntriesTable;
  treasury_breaks: TreasuryBreaksTable;
}
