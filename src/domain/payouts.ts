/**
 * A payout as the core returns it (spec "Payout"; docs/payouts.md). Each surface renders its own
 * wire shape (src/wire/surface-a/payouts.ts; Surfaces B and C in src/api/).
 */
import type { Money } from './money';
import type { PayoutFailureCode, PayoutStatus } from './payout-state';

/** One rail call of a payout (`payout_attempts`). */
export interface PayoutAttempt {
  number: number;
  status: 'processing' | 'succeeded' | 'failed';
  startedAt: Date;
  completedAt: Date | null;
  providerReference: string | null;
  error: { code: string; message: string } | null;
}

/** Why a payout failed; a rail failure adds `retryable` and the rail's own code (docs/rails.md "Status and reason codes"). */
export interface PayoutFailure {
  code: PayoutFailureCode;
  message: string;
  retryable: boolean | null;
  railReasonCode: string | null;
}

/** A claim_link payout's claim: its link (`{publicUrl}/c/<token>`, null when not known) and state. */
export interface PayoutClaim {
  url: string | null;
  expiresAt: Date | null;
  claimedAt: Date | null;
  method: string | null;
}

/** A payout. Source amounts and fees are micro-USDC; `destination` is in its currency's minor units. */
/** A payout's Verification of Payee (docs/payee-verification.md "On the payout"). */
export interface PayeeVerificationView {
  result: 'match' | 'close_match' | 'no_match' | 'not_possible';
  /** The holder's name the payee's bank returned (close match). */
  nameReturned: string | null;
  reasonCode: string;
  status: 'awaiting_confirmation' | 'confirmed' | 'canceled' | 'expired' | 'not_required';
  /** When an unconfirmed payout is canceled (close match, no match). */
  confirmBy: Date | null;
}

export interface Payout {
  id: string;
  status: PayoutStatus;
  channel: string;
  recipientId: string | null;
  /** The destination, masked (src/domain/recipients.ts maskRecipientDetails). */
  recipient: { type: string; details: Record<string, unknown> };
  source: Money;
  destination: Money;
  /** Decimal string: 1 unit of `source.currency` buys `rate` units of `destination.currency`. */
  rate: string;
  /** Micro-USDC. */
  fees: { provider: bigint; service: bigint; fxSpread: bigint; total: bigint };
  /** Live only (docs/rates.md "On the wire"). */
  rateDetails: { referenceRate: string; source: string; asOf: Date; spreadBps: number } | null;
  reference: string | null;
  memo: string | null;
  message: string | null;
  quoteId: string | null;
  estimatedArrival: Date | null;
  deliveredAt: Date | null;
  providerReference: string | null;
  failure: PayoutFailure | null;
  /** Delivery attempts begun or scheduled (1 from acceptance). */
  attempts: number;
  /** The rail calls made so far, by number; only when read one payout at a time. */
  attemptHistory?: PayoutAttempt[];
  /** claim_link payouts only. */
  claim: PayoutClaim | null;
  disbursementId: string | null;
  /** The payout's screening case (docs/screening.md "Holding payouts"); absent or null: none. */
  screening?: PayoutScreening | null;
  createdAt: Date;
  updatedAt: Date;
  /** Verification of Payee (sepa_eur), when loaded and verified. */
  payeeVerification?: PayeeVerificationView | null;
}

/** A payout's screening case as the payout shows it: `in_review` (open or taken into review), `released` or `rejected`. */
export interface PayoutScreening {
  status: 'in_review' | 'released' | 'rejected';
  caseId: string;
  /** The operators' reason once decided; before, why the payout is held. */
  reason: string | null;
}

/** A payout's receipt (spec "Receipt"). */
export interface PayoutReceipt {
  url: string;
  confirmedReceivedAt: Date | null;
}
