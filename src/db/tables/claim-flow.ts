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
  /** Sandbox only; a live top-up's status reads from its card payment (docs/surface-b.md "Card top-ups"). */
  status: 'pending' | 'completed' | 'cancelled';
  token: string;
  success_url: string;
  cancel_url: string;
  deposit_id: string | null;
  /** A live top-up's card payment (`cpay_…`, src/core/cards/card-payments.ts); null in the sandbox. */
  card_payment_id: string | null;
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

/** A claimant's identity (docs/screening.md "Identity at claim time"); `date_of_birth` and `national_id` sealed (src/core/secrets.ts). */
export interface ClaimantIdentitiesTable {
  payout_id: string;
  business_id: string;
  environment: 'sandbox' | 'live';
  channel: string;
  full_name: string;
  date_of_birth: string;
  national_id_kind: string;
  national_id: string;
  holder_name: string;
  name_match: boolean;
  created_at: Generated<Date>;
}

export interface ClaimFlowTables {
  claimant_identities: ClaimantIdentitiesTable;
  claim_batches: ClaimBatchesTable;
  card_topups: CardTopupsTable;
  payout_claim_destinations: PayoutClaimDestinationsTable;
}
