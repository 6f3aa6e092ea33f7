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

export interface ClaimFlowTables {
  claim_batches: ClaimBatchesTable;
}
