import type { JSONColumnType } from 'kysely';

/**
 * A file exchanged with a bank (docs/rails.md "Files"; src/core/rails/files.ts writes it).
 * Outbound: written -> uploaded. Inbound: received -> processed | quarantined.
 */
export interface RailFilesTable {
  /** `rf_…`; also the search attribute RailFileId of the workflow that handled it. */
  id: string;
  /** Catalog rail, e.g. `sepa_credit_transfer`. */
  rail: string;
  direction: 'outbound' | 'inbound';
  /** Name on the bank's server (outbound: `<message id>.xml`, ACH `<message id>.ach`). Unique per rail and direction. */
  name: string;
  /** ISO 20022 MsgId (outbound files; inbound: the file's own MsgId once parsed). */
  message_id: string | null;
  /** `pain.001`, `pain.002`, `camt.054`, `nacha` (ACH, both directions), or `unknown` (a file that did not parse). */
  kind: string;
  status: 'written' | 'uploaded' | 'received' | 'processed' | 'quarantined';
  /** Lowercase hex sha256 of the bytes. */
  sha256: string | null;
  bytes: number | null;
  /** The file's text, exactly as sent or received. */
  content: string | null;
  transactions: number;
  /** Outbound: sum of the transactions, in minor units. */
  control_sum_minor: bigint | null;
  /** Outbound: requested execution date, YYYY-MM-DD. */
  execution_date: string | null;
  /** Outbound: the collection window (`<rail>:<window start ms>:<n>`). */
  window_key: string | null;
  /** Outbound ACH: `same_day` or `next_day` (the ACH settlement window of its effective entry date); null for other rails. */
  settlement_window: string | null;
  /** Outbound ACH: when its entries count as settled unless returned first (set at upload). */
  settles_at: Date | null;
  /** Outbound ACH: when its unreturned entries were recorded settled. */
  settled_at: Date | null;
  /** Why a file was quarantined (inbound). */
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * One payment instruction handed to a file rail: one attempt of one payout (src/core/rails/instructions.ts
 * writes it). queued -> in_file -> accepted | rejected -> settled -> returned.
 */
export interface RailInstructionsTable {
  payout_id: string;
  attempt: number;
  rail: string;
  business_id: string;
  /** Our reference of the attempt, `<payout id>-<attempt>` (ISO 20022 EndToEndId, at most 35 characters), unique. */
  end_to_end_id: string;
  /** ISO 20022 UETR (UUID v4), unique; null on ACH. */
  uetr: string | null;
  /** ACH trace number (15 digits: the ODFI's 8-digit routing prefix and a 7-digit sequence), unique per rail; null on other rails. */
  trace_number: string | null;
  /** Rail-specific creditor fields (ACH: routing_number, account_number, account_type, sec_code); null on SEPA. */
  details: JSONColumnType<Record<string, string> | null, string | null, string | null>;
  /** Integer minor units of `currency`. */
  amount_minor: bigint;
  currency: string;
  /** As stored on the recipient (the file carries its SEPA transliteration). */
  creditor_name: string;
  /** SEPA: the creditor's IBAN; null on ACH (see `details`). */
  creditor_iban: string | null;
  creditor_bic: string | null;
  remittance: string | null;
  status: 'queued' | 'in_file' | 'accepted' | 'rejected' | 'settled' | 'returned';
  rail_file_id: string | null;
  payment_information_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * One status read from a bank file (src/core/rails/rail-events.ts writes it): matched to a payout
 * attempt, to a deposit, or unmatched (both null) and kept for operators.
 */
export interface RailEventsTable {
  /** `<rail file id>:<index>`: a file read twice yields the same ids. */
  id: string;
  rail: string;
  rail_file_id: string;
  /** `notification_of_change`: an ACH NOC about the attempt's creditor account (the saved recipient is corrected). */
  type: 'accepted' | 'settled' | 'rejected' | 'returned' | 'credit' | 'notification_of_change';
  payout_id: string | null;
  attempt: number | null;
  deposit_id: string | null;
  end_to_end_id: string | null;
  uetr: string | null;
  reason_code: string | null;
  occurred_at: Date | null;
  details: JSONColumnType<Record<string, unknown>>;
  /** When it was signaled to its payout or credited as a deposit (null: still to do; the next poll does it). */
  dispatched_at: Date | null;
  created_at: Date;
}

/** Tables of the rails. */
export interface RailTables {
  rail_files: RailFilesTable;
  rail_instructions: RailInstructionsTable;
  rail_events: RailEventsTable;
}
