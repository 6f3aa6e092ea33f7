import type { JSONColumnType } from 'kysely';
import type { RailInstructionStatus } from '../../domain/rail-instructions';

/** A file exchanged with a bank (docs/rails.md "Files"). Outbound: written -> uploaded; inbound: received -> processed | quarantined. */
export interface RailFilesTable {
  id: string;
  rail: string;
  direction: 'outbound' | 'inbound';
  name: string;
  message_id: string | null;
  /** `pain.001`, `pain.002`, `camt.054`, `nacha`, or `unknown` (did not parse). */
  kind: string;
  status: 'written' | 'uploaded' | 'received' | 'processed' | 'quarantined';
  sha256: string | null;
  bytes: number | null;
  content: string | null;
  transactions: number;
  /** Minor units. */
  control_sum_minor: bigint | null;
  /** YYYY-MM-DD. */
  execution_date: string | null;
  window_key: string | null;
  settlement_window: string | null;
  settles_at: Date | null;
  settled_at: Date | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

/** One instruction to a file rail, one payout attempt: queued -> in_file -> accepted | rejected -> settled -> returned. */
export interface RailInstructionsTable {
  payout_id: string;
  attempt: number;
  rail: string;
  business_id: string;
  /** `<payout id>-<attempt>` (ISO 20022 EndToEndId, at most 35 characters), unique. */
  end_to_end_id: string;
  uetr: string | null;
  trace_number: string | null;
  details: JSONColumnType<Record<string, string> | null, string | null, string | null>;
  /** Minor units of `currency`. */
  amount_minor: bigint;
  currency: string;
  creditor_name: string;
  creditor_iban: string | null;
  creditor_bic: string | null;
  remittance: string | null;
  status: RailInstructionStatus;
  rail_file_id: string | null;
  payment_information_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** One status read from a bank file, matched to a payout attempt, a deposit, or neither (kept for operators). */
export interface RailEventsTable {
  /** `<rail file id>:<index>`: a file read twice yields the same ids. */
  id: string;
  rail: string;
  rail_file_id: string;
  type: 'accepted' | 'settled' | 'rejected' | 'returned' | 'credit' | 'notification_of_change';
  payout_id: string | null;
  attempt: number | null;
  deposit_id: string | null;
  end_to_end_id: string | null;
  uetr: string | null;
  reason_code: string | null;
  occurred_at: Date | null;
  details: JSONColumnType<Record<string, unknown>>;
  /** When signaled to its payout or credited (null: the next poll does it). */
  dispatched_at: Date | null;
  created_at: Date;
}

export interface RailTables {
  rail_files: RailFilesTable;
  rail_instructions: RailInstructionsTable;
  rail_events: RailEventsTable;
}
