import type { Generated, JSONColumnType } from 'kysely';
import type { Environment } from './platform';

/** A batch disbursement (docs/disbursements.md); approvals count only for the current `revision_id`. */
export interface DisbursementsTable {
  id: string;
  business_id: string;
  environment: Environment;
  name: string;
  status: string;
  revision_id: string;
  revision_number: number;
  /** It may not approve this revision. */
  revision_created_by_key_id: string | null;
  approved_revision_id: string | null;
  launched_revision_id: string | null;
  created_by_key_id: string;
  /** It may never approve this disbursement. */
  submitted_by_key_id: string | null;
  submitted_at: Date | null;
  launched_by_key_id: string | null;
  idempotency_key: string | null;
  item_count: number;
  /** Dedupes each round's completion event. */
  retry_round: number;
  last_rejection_reason: string | null;
  rejected_at: Date | null;
  launched_at: Date | null;
  paused_at: Date | null;
  completed_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Date;
}

export interface ReviewReason {
  code: string;
  message: string;
  param: string | null;
}

/**
 * One row of a disbursement: `needs_review` | `ready` | `pending` | `launched` (status then from its
 * payout) | `failed`. Money in micro-USDC except destination_amount (minor units of destination_currency).
 */
export interface DisbursementItemsTable {
  id: string;
  disbursement_id: string;
  business_id: string;
  environment: Environment;
  seq: number;
  row_number: number | null;
  source: string;
  input: JSONColumnType<Record<string, unknown>>;
  channel: string | null;
  source_amount: bigint | null;
  recipient_id: string | null;
  /** Unmasked; masked on every response. */
  recipient: JSONColumnType<Record<string, unknown> | null, string | null, string | null>;
  recipient_type: string | null;
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
  debit_total: bigint | null;
  payout_id: string | null;
  attempt: number;
  /** The claim that took this attempt (idempotent claims). */
  claim_seq: number | null;
  failure_code: string | null;
  failure_message: string | null;
  corrected: boolean;
  created_at: Generated<Date>;
  updated_at: Date;
}

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

export interface DisbursementTables {
  disbursements: DisbursementsTable;
  disbursement_items: DisbursementItemsTable;
  disbursement_approvals: DisbursementApprovalsTable;
}
