import type { Generated, JSONColumnType } from 'kysely';
import type { Environment } from './platform';

/**
 * A batch disbursement (spec "Disbursement (Surface A)", docs/disbursements.md). `status` follows the transition
 * table of src/domain/disbursement-state.ts. `revision_id` (`rev_…`) is the current execution
 * version: it changes on every money-critical edit, and approvals count only for it.
 */
export interface DisbursementsTable {
  id: string;
  business_id: string;
  environment: Environment;
  name: string;
  status: string;
  /** Current execution version (`rev_…`). */
  revision_id: string;
  /** 1 for the first revision, +1 on each money-critical change or rejection. */
  revision_number: number;
  /** Key that made the current revision (it may not approve it). */
  revision_created_by_key_id: string | null;
  /** The revision whose approvals reached the business's approvals_required (null until then). */
  approved_revision_id: string | null;
  /** The revision that was launched. */
  launched_revision_id: string | null;
  created_by_key_id: string;
  /** Key that called submit-for-approval (it may never approve this disbursement). */
  submitted_by_key_id: string | null;
  submitted_at: Date | null;
  launched_by_key_id: string | null;
  idempotency_key: string | null;
  /** Items in the disbursement (also the last `seq` handed out). */
  item_count: number;
  /** Incremented by each retry-failed (dedupes the completion event of each round). */
  retry_round: number;
  last_rejection_reason: string | null;
  rejected_at: Date | null;
  launched_at: Date | null;
  paused_at: Date | null;
  completed_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Date;
}

/** One reason an item needs review (the ApiError preparePayout threw, or a CSV parse error). */
export interface ReviewReason {
  code: string;
  message: string;
  param: string | null;
}

/**
 * One row of a disbursement. Stored `status`: `needs_review` | `ready` (drafting), `pending`
 * (launched or queued for a retry attempt, no payout yet), `launched` (the payout `payout_id` of
 * attempt `attempt` exists: the item's visible status is derived from that payout's status), or
 * `failed` (the attempt failed before a payout existed, e.g. the channel was paused at launch).
 * Money columns are micro-USDC except destination_amount (minor units of destination_currency).
 */
export interface DisbursementItemsTable {
  id: string;
  disbursement_id: string;
  business_id: string;
  environment: Environment;
  /** 1-based position in the disbursement. */
  seq: number;
  /** Line of the CSV file the item came from (header = line 1), or null for JSON items. */
  row_number: number | null;
  /** 'api' (JSON create) or 'csv' (import). */
  source: string;
  /** The item as given (for review and editing). */
  input: JSONColumnType<Record<string, unknown>>;
  channel: string | null;
  source_amount: bigint | null;
  recipient_id: string | null;
  /** Inline recipient as given (unmasked; masked on every response). */
  recipient: JSONColumnType<Record<string, unknown> | null, string | null, string | null>;
  recipient_type: string | null;
  /** Normalised identity of the recipient, for the duplicate_recipient warning. */
  recipient_key: string | null;
  reference: string | null;
  memo: string | null;
  status: string;
  review_reasons: JSONColumnType<ReviewReason[]>;
  destination_amount: bigint | null;
  destination_currency: string | null;
  rate: string | null;
  fee_provider: bigint | null;
  fee_service: bigint | null;
  fee_fx_spread: bigint | null;
  fee_total: bigint | null;
  /** source_amount + fee_total: this item's share of the batch hold. */
  debit_total: bigint | null;
  /** Payout of the current attempt. */
  payout_id: string | null;
  /** Current attempt (0 before launch). */
  attempt: number;
  /** The workflow's claim that took this attempt (makes the claim activity idempotent). */
  claim_seq: number | null;
  failure_code: string | null;
  failure_message: string | null;
  /** Edited in correction mode after its last failure (retry-failed retries it whatever its code). */
  corrected: boolean;
  created_at: Generated<Date>;
  updated_at: Date;
}

/** An approval or rejection of one revision by one key. */
export interface DisbursementApprovalsTable {
  id: Generated<string>;
  disbursement_id: string;
  business_id: string;
  environment: Environment;
  revision_id: string;
  key_id: string;
  decision: 'approve' | 'reject';
  reason: string | null;
  created_at: Generated<Date>;
}

/** Disbursement tables (docs/disbursements.md). */
export interface DisbursementTables {
  disbursements: DisbursementsTable;
  disbursement_items: DisbursementItemsTable;
  disbursement_approvals: DisbursementApprovalsTable;
}
