import type { Generated, JSONColumnType } from 'kysely';

export interface ClaimBatchesTable {
  id: string;
  business_id: string;
  environment: 'sandbox' | 'live';
  batch_reference: string | null;
  note: string | null;
  entry_count: number;
  /** Micro-USDC. */
  total_amount: bigint;
  idempotency_key: string | null;
  created_at: Date;
}

export interface CardTopupsTable {
  id: string;
  business_id: string;
  environment: 'sandbox' | 'live';
  /** US cents. */
  amount: bigint;
  status: 'pending' | 'completed' | 'cancelled';
  token: string;
  success_url: string;
  cancel_url: string;
  deposit_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The route a live claim-link payout's recipient chose: a catalog channel, its rail and the validated fields. */
export interface PayoutClaimDestinationsTable {
  payout_id: string;
  channel: string;
  rail: string;
  details: JSONColumnType<Record<string, unknown>>;
  created_at: Generated<Date>;
}

export interface ClaimFlowTables {
  claim_batches: ClaimBatchesTable;
  card_topups: CardTopupsTable;
  payout_claim_destinations: PayoutClaimDestinationsTable;
}
