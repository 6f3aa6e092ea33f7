import type { Generated, JSONColumnType } from 'kysely';
import type { Environment } from './platform';
import type { LiveRateColumns } from './rates';

/** A virtual bank account (spec "VirtualAccount"); details stored whole, masked in the API. */
export interface VirtualAccountsTable {
  id: string;
  business_id: string;
  environment: Environment;
  currency: string;
  rail: string;
  status: string;
  details: JSONColumnType<Record<string, string>>;
  /** Unique per environment (a transfer finds its account by it). */
  account_identifier: string;
  reference_required: boolean;
  label: string | null;
  created_at: Generated<Date>;
}

export interface DepositsTable extends LiveRateColumns {
  id: string;
  business_id: string;
  environment: Environment;
  source: string;
  status: string;
  virtual_account_id: string | null;
  /** Minor units of `currency`. */
  amount: bigint;
  currency: string;
  rate: string;
  /** Micro-USDC. */
  gross_amount: bigint;
  fee_fx_spread: bigint;
  fee_processing: bigint;
  fee_total: bigint;
  /** Micro-USDC credited to the available balance. */
  net_amount: bigint;
  reference: string | null;
  sender_name: string | null;
  external_id: string;
  match_result: string | null;
  payment_request_id: string | null;
  received_at: Date;
  credited_at: Date | null;
  created_at: Generated<Date>;
}

/** A payment link (spec "PaymentLink"), public page `/pay/{token}`. */
export interface PaymentLinksTable {
  id: string;
  business_id: string;
  environment: Environment;
  name: string;
  methods: JSONColumnType<string[]>;
  published: boolean;
  token: string;
  created_at: Generated<Date>;
  updated_at: Date;
}

/** A fixed-amount payment request on a link (spec "PaymentRequest"). */
export interface PaymentRequestsTable {
  id: string;
  business_id: string;
  environment: Environment;
  payment_link_id: string;
  /** Minor units of `currency`. */
  amount: bigint;
  currency: string;
  reference: string;
  reference_key: string;
  status: string;
  expires_at: Date;
  token: string;
  paid_at: Date | null;
  deposit_id: string | null;
  expired_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Micro-USDC a key's accepted payouts used of its daily budget, per UTC day. */
export interface KeyPolicyUsageTable {
  key_id: string;
  day: string;
  used: bigint;
  updated_at: Generated<Date>;
}

export interface PayoutApprovalsTable {
  payout_id: string;
  business_id: string;
  environment: Environment;
  requested_by_key_id: string;
  status: string;
  expires_at: Date;
  decided_by_key_id: string | null;
  decided_at: Date | null;
  reason: string | null;
  created_at: Generated<Date>;
}

export interface FundingTables {
  key_policy_usage: KeyPolicyUsageTable;
  payout_approvals: PayoutApprovalsTable;
  virtual_accounts: VirtualAccountsTable;
  deposits: DepositsTable;
  payment_links: PaymentLinksTable;
  payment_requests: PaymentRequestsTable;
}
