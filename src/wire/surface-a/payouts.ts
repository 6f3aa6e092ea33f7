/** Surface A's payout (spec "Payout", "Receipt"; snake_case, amounts as decimal strings, ISO 8601 UTC times). */
import { formatAmount } from '../../domain/money';
import type { PayoutFailureCode, PayoutStatus } from '../../domain/payout-state';
import type { Payout, PayoutReceipt } from '../../domain/payouts';
import { formatRateDetails, type WireFees, type WireRateDetails } from './fees';

/** One element of `attempt_history` (extension; the spec leaves the element fields open). */
export interface WireAttempt {
  number: number;
  status: 'processing' | 'succeeded' | 'failed';
  started_at: string;
  completed_at: string | null;
  provider_reference: string | null;
  error: { code: string; message: string } | null;
}

/** Spec "Payout" on Surface A, plus documented extensions. */
export interface WirePayout {
  id: string;
  object: 'payout';
  status: PayoutStatus;
  channel: string;
  recipient_id: string | null;
  /** Extension: the destination, masked (`{type, ...fields}`). */
  recipient: Record<string, unknown>;
  source_amount: string;
  source_currency: string;
  destination_amount: string;
  destination_currency: string;
  rate: string;
  fees: WireFees;
  /** Extension, live only (docs/rates.md "On the wire"). */
  rate_details?: WireRateDetails;
  reference: string | null;
  memo: string | null;
  message: string | null;
  quote_id: string | null;
  estimated_arrival: string | null;
  delivered_at: string | null;
  provider_reference: string | null;
  /** Spec failure object; a rail failure adds `retryable` and `rail_reason_code` (docs/rails.md "Status and reason codes"). */
  failure: { code: PayoutFailureCode; message: string; retryable?: boolean; rail_reason_code?: string } | null;
  attempts: number;
  /** Only on GET /payouts/{id}. */
  attempt_history?: WireAttempt[];
  /** Extension, claim_link payouts only. */
  claim: { url: string | null; expires_at: string | null; claimed_at: string | null; method: string | null } | null;
  /** Extension: the disbursement this payout is an item of, or null. */
  disbursement_id: string | null;
  /** Extension: the payout's screening case, null when none; absent where not read (docs/screening.md "Holding payouts"). */
  screening?: { status: 'in_review' | 'released' | 'rejected'; case_id: string; reason: string | null } | null;
  /** Extension, sepa_eur payouts once verified (docs/payee-verification.md "On the payout"). */
  payee_verification?: WirePayeeVerification | null;
  created_at: string;
  updated_at: string;
}

/** A payout's Verification of Payee on the wire. */
export interface WirePayeeVerification {
  result: 'match' | 'close_match' | 'no_match' | 'not_possible';
  name_returned: string | null;
  reason_code: string;
  status: 'awaiting_confirmation' | 'confirmed' | 'canceled' | 'expired' | 'not_required';
  confirm_by: string | null;
}

/** Spec "Receipt" on Surface A. */
export interface WireReceipt {
  url: string;
  confirmed_received_at: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Surface A's payout; `attempt_history` only when the payout carries it. */
export function renderPayout(p: Payout): WirePayout {
  // Absent keys are undefined (JSON leaves them out): one object shape for every payout, keys in order.
  const out: WirePayout = {
    id: p.id,
    object: 'payout',
    status: p.status,
    channel: p.channel,
    recipient_id: p.recipientId,
    recipient: { type: p.recipient.type, ...p.recipient.details },
    source_amount: formatAmount(p.source.minor, p.source.currency),
    source_currency: p.source.currency,
    destination_amount: formatAmount(p.destination.minor, p.destination.currency),
    destination_currency: p.destination.currency,
    rate: p.rate,
    fees: renderPayoutFees(p),
    rate_details: p.rateDetails ? formatRateDetails(p.rateDetails) : undefined,
    reference: p.reference,
    memo: p.memo,
    message: p.message,
    quote_id: p.quoteId,
    estimated_arrival: iso(p.estimatedArrival),
    delivered_at: iso(p.deliveredAt),
    provider_reference: p.providerReference,
    failure: renderPayoutFailure(p),
    attempts: p.attempts,
    claim: p.claim ? { url: p.claim.url, expires_at: iso(p.claim.expiresAt), claimed_at: iso(p.claim.claimedAt), method: p.claim.method } : null,
    disbursement_id: p.disbursementId,
    screening: p.screening ? { status: p.screening.status, case_id: p.screening.caseId, reason: p.screening.reason } : p.screening,
    payee_verification: p.payeeVerification
      ? { result: p.payeeVerification.result, name_returned: p.payeeVerification.nameReturned, reason_code: p.payeeVerification.reasonCode, status: p.payeeVerification.status, confirm_by: iso(p.payeeVerification.confirmBy) }
      : undefined,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
  if (p.attemptHistory) {
    out.attempt_history = p.attemptHistory.map((a) => ({
      number: a.number,
      status: a.status,
      started_at: a.startedAt.toISOString(),
      completed_at: iso(a.completedAt),
      provider_reference: a.providerReference,
      error: a.error,
    }));
  }
  return out;
}

/** A payout's fees on Surfaces A and C. */
export function renderPayoutFees(p: Payout): WirePayout['fees'] {
  return {
    provider: formatAmount(p.fees.provider, 'USDC'),
    service: formatAmount(p.fees.service, 'USDC'),
    fx_spread: formatAmount(p.fees.fxSpread, 'USDC'),
    total: formatAmount(p.fees.total, 'USDC'),
    currency: 'USDC',
  };
}

/** A payout's failure on the wire (extensions present only when known), as Surface A and Surface C render it. */
export function renderPayoutFailure(p: Payout): WirePayout['failure'] {
  return p.failure
    ? {
        code: p.failure.code,
        message: p.failure.message,
        retryable: p.failure.retryable ?? undefined,
        rail_reason_code: p.failure.railReasonCode || undefined,
      }
    : null;
}

/** Surface A's receipt. */
export function renderReceipt(r: PayoutReceipt): WireReceipt {
  return { url: r.url, confirmed_received_at: iso(r.confirmedReceivedAt) };
}
