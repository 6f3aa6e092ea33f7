import type { Generated, JSONColumnType } from 'kysely';

/** Surface B batches of claim-link payouts (migration 0020_claim_flow). */
export interface ClaimBatchesTable {
  id: string;
  business_id: string;
  environment: 'sandbox' | 'live';
  batch_reference: string | null;
  note: string | null;
  entry_count: number;
  /** Sum of the entries' amounts, micro-USDC. */
  total_amount: bigint;
  idempotency_key: string | null;
  created_at: Date;
}

/** Surface B card top-ups (migration 0020_card_topups). */
export interface CardTopupsTable {
  id: string;
  business_id: string;
  environment: 'sandbox' | 'live';
  /** Cents of USD. */
  amount: bigint;
  status: 'pending' | 'completed' | 'cancelled';
  /** The checkout page's unguessable token. */
  token: string;
  success_url: string;
  cancel_url: string;
  deposit_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The route a live claim-link payout's recipient chose on the claim page (migration 0068; written
 * only by src/core/payouts/claim-destinations.ts): a catalog channel (`ach_usd`), its rail (`ach`)
 * and the recipient's validated fields for that channel (`holder_name`, `routing_number`, ...).
 */
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
