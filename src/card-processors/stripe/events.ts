/**
 * Stripe's objects as the card-processor seam's normalized shapes (docs/getting-paid.md "Card
 * payments"): Checkout Sessions, refunds and disputes, and the Event types we apply. Pure.
 */
import type Stripe from 'stripe';
import type { CardCheckoutState, CardDisputeState, CardEventKind, CardRefundResult } from '../processor';

/** Stripe's event types the core applies, by kind; any other type is `other`. */
export const STRIPE_EVENT_KINDS: Readonly<Record<string, CardEventKind>> = {
  'checkout.session.completed': 'checkout_completed',
  'checkout.session.async_payment_succeeded': 'checkout_async_succeeded',
  'checkout.session.async_payment_failed': 'checkout_async_failed',
  'checkout.session.expired': 'checkout_expired',
  'charge.refunded': 'refund_updated',
  'refund.created': 'refund_updated',
  'refund.updated': 'refund_updated',
  'refund.failed': 'refund_updated',
  'charge.dispute.created': 'dispute_created',
  'charge.dispute.updated': 'dispute_updated',
  'charge.dispute.funds_withdrawn': 'dispute_funds_withdrawn',
  'charge.dispute.funds_reinstated': 'dispute_funds_reinstated',
  'charge.dispute.closed': 'dispute_closed',
};

const idOf = (v: string | { id: string } | null | undefined): string | null => (v == null ? null : typeof v === 'string' ? v : v.id);
const big = (n: number | null | undefined): bigint => BigInt(n ?? 0);

/**
 * A session as {@link CardCheckoutState}. The charge and its fee are known only when the session was
 * read with `payment_intent.latest_charge.balance_transaction` expanded. The fee is the balance
 * transaction's `fee`, which Stripe states in the account's settlement currency: when that is not
 * the payment's currency it cannot be stated in the payment's minor units, and `fee` is null.
 */
export function checkoutState(s: Stripe.Checkout.Session): CardCheckoutState {
  const pi = s.payment_intent;
  const charge = pi && typeof pi === 'object' ? pi.latest_charge : null;
  const bt = charge && typeof charge === 'object' ? charge.balance_transaction : null;
  const currency = (s.currency ?? '').toUpperCase();
  const fee = bt && typeof bt === 'object' && bt.currency.toUpperCase() === currency ? BigInt(bt.fee) : null;
  return {
    sessionId: s.id,
    url: s.url ?? null,
    status: s.status === 'complete' ? 'complete' : s.status === 'expired' ? 'expired' : 'open',
    paymentStatus: s.payment_status === 'paid' ? 'paid' : s.payment_status === 'no_payment_required' ? 'no_payment_required' : 'unpaid',
    reference: s.client_reference_id ?? null,
    amount: big(s.amount_total),
    currency,
    expiresAt: s.expires_at ? new Date(s.expires_at * 1000) : null,
    paymentIntentId: idOf(pi),
    chargeId: idOf(charge),
    fee,
  };
}

/** A refund's status in the seam's terms (`requires_action`: still pending). */
export function refundResult(r: Stripe.Refund): CardRefundResult {
  const status = r.status === 'succeeded' || r.status === 'failed' || r.status === 'canceled' ? r.status : 'pending';
  return { refundId: r.id, status, failureReason: r.failure_reason ?? null };
}

/** A refund of an event: our reference is the refund's `metadata.reference` (set by refunds.create). */
export function eventRefund(r: Stripe.Refund) {
  return { ...refundResult(r), paymentIntentId: idOf(r.payment_intent), amount: big(r.amount), reference: r.metadata?.reference ?? null };
}

/**
 * A dispute as {@link CardDisputeState}: its balance transactions summed, withdrawals (negative
 * amounts) apart from reinstatements (positive), each with the fees among them (Stripe's dispute fee
 * is the withdrawal's `fee`). Balance transactions are in the settlement currency; one in another
 * currency than the dispute's is stated by the dispute's own amount and a zero fee (the fee cannot
 * be stated in the payment's minor units).
 */
export function disputeState(d: Stripe.Dispute): CardDisputeState {
  const sums: { withdrawn: { amount: bigint; fee: bigint } | null; reinstated: { amount: bigint; fee: bigint } | null } = { withdrawn: null, reinstated: null };
  const currency = d.currency.toUpperCase();
  for (const bt of d.balance_transactions ?? []) {
    const same = bt.currency.toUpperCase() === currency;
    const amount = same ? BigInt(bt.amount) : bt.amount < 0 ? -BigInt(d.amount) : BigInt(d.amount);
    const fee = same ? BigInt(bt.fee) : 0n;
    // Stripe signs a withdrawal negative; the seam states magnitudes.
    const side = amount < 0n ? 'withdrawn' : 'reinstated';
    const magnitude = amount < 0n ? -amount : amount;
    sums[side] = { amount: (sums[side]?.amount ?? 0n) + magnitude, fee: (sums[side]?.fee ?? 0n) + fee };
  }
  return {
    id: d.id,
    paymentIntentId: idOf(d.payment_intent),
    chargeId: idOf(d.charge),
    status: d.status,
    reason: d.reason ?? null,
    amount: BigInt(d.amount),
    currency,
    withdrawn: sums.withdrawn,
    reinstated: sums.reinstated,
  };
}
