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

export interface ClaimFlowTables {
  claim_batches: ClaimBatchesTable;
  card_topups: CardTopupsTable;
}
