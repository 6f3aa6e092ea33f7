import type { EventDataFormat } from '../../domain/event-objects';
import type { Generated, JSONColumnType } from 'kysely';
import type { Environment } from './platform';
import type { LiveRateColumns } from './rates';


/** One balance per business, environment and currency; both columns CHECK (>= 0) in the schema. */
export interface BalancesTable {
  business_id: string;
  environment: Environment;
  currency: string;
  /** Micro-USDC spendable now. */
  available: bigint;
  /** Micro-USDC held for payouts in flight. */
  held: bigint;
  /** Micro-USDC of card money in the rolling reserve (docs/getting-paid.md "Card payments"). */
  reserve: bigint;
  updated_at: Date;
}

/**
 * Double-entry ledger posting: `amount` moves from `debit_account` to `credit_account` (available,
 * held, sent, external). `key` is unique per business and environment: a retry never posts twice.
 */
export interface LedgerPostingsTable {
  id: Generated<string>;
  business_id: string;
  environment: Environment;
  key: string;
  currency: string;
  debit_account: string;
  credit_account: string;
  amount: bigint;
  created_at: Generated<Date>;
}

export interface PayoutsTable extends LiveRateColumns {
  id: string;
  business_id: string;
  environment: Environment;
  status: string;
  channel: string;
  rail: string;
  recipient_id: string | null;
  recipient_type: string;
  recipient_details: JSONColumnType<Record<string, unknown>>;
  source_amount: bigint;
  source_currency: string;
  destination_amount: bigint;
  destination_currency: string;
  rate: string;
  fee_provider: bigint;
  fee_service: bigint;
  fee_fx_spread: bigint;
  fee_total: bigint;
  debit_total: bigint;
  reference: string | null;
  memo: string | null;
  message: string | null;
  quote_id: string | null;
  idempotency_key: string | null;
  estimated_arrival: Date | null;
  delivered_at: Date | null;
  provider_reference: string | null;
  failure_code: string | null;
  failure_message: string | null;
  failure_retryable: boolean | null;
  failure_rail_reason_code: string | null;
  attempt_count: number;
  claim_token: string | null;
  claimed_at: Date | null;
  claim_method: string | null;
  claim_expires_at: Date | null;
  receipt_token: string;
  confirmed_received_at: Date | null;
  disbursement_id: string | null;
  disbursement_item_id: string | null;
  claim_started_at: Date | null;
  cancel_requested_at: Date | null;
  claim_batch_id: string | null;
  created_by_key_id: string | null;
  created_at: Generated<Date>;
  updated_at: Date;
}

export interface PayoutAttemptsTable {
  payout_id: string;
  number: number;
  status: 'processing' | 'succeeded' | 'failed';
  provider_reference: string | null;
  error_code: string | null;
  error_message: string | null;
  started_at: Date;
  completed_at: Date | null;
}

export interface EventsTable {
  id: string;
  business_id: string;
  environment: Environment;
  type: string;
  object_type: string;
  object_id: string;
  data: JSONColumnType<Record<string, unknown>>;
  data_format: Generated<EventDataFormat>;
  /** Unique: one event per transition. */
  dedupe_key: string;
  created_at: Generated<Date>;
  dispatched_at: Date | null;
}

/** One Verification of Payee answer per payout and the business's decision on it (docs/payee-verification.md). Written only by src/core/payouts/payee-verification.ts. */
export interface PayeeVerificationsTable {
  payout_id: string;
  business_id: string;
  environment: Environment;
  /** `match`, `close_match`, `no_match` or `not_possible`. */
  result: string;
  name_returned: string | null;
  reason_code: string;
  requested_at: Date;
  answered_at: Date;
  /** Close match or no match: when an unconfirmed payout is canceled; null otherwise. */
  confirm_by: Date | null;
  decision: 'confirmed' | 'canceled' | 'expired' | null;
  decided_by: string | null;
  decided_at: Date | null;
}

export interface PayoutTables {
  payee_verifications: PayeeVerificationsTable;
  balances: BalancesTable;
  ledger_postings: LedgerPostingsTable;
  payouts: PayoutsTable;
  payout_attempts: PayoutAttemptsTable;
  events: EventsTable;
}
