/** Surface A's deposit (extension resource, docs/getting-paid.md "Deposits"; snake_case, decimal strings). */
import type { Deposit } from '../../domain/deposits';
import type { DepositDisputeFact, DepositRefundFact } from '../../domain/event-objects';
import type { DepositMatchResult, DepositSource, DepositStatus } from '../../domain/funding';
import { formatAmount, USDC } from '../../domain/money';
import { formatDepositFees, formatRateDetails, type WireDepositFees, type WireRateDetails } from './fees';

/** A deposit on Surface A. Amounts are decimal strings. */
export interface WireDeposit {
  id: string;
  object: 'deposit';
  source: DepositSource;
  status: DepositStatus;
  virtual_account_id: string | null;
  /** What arrived, in `currency`. */
  amount: string;
  currency: string;
  /** Mid-market rate used: 1 USDC buys `rate` units of `currency`. */
  rate: string;
  /** `amount` converted at `rate`, USDC, before fees. */
  converted_amount: string;
  fees: WireDepositFees;
  /** converted_amount - fees.total: what the USDC balance is (or will be) credited. */
  credited_amount: string;
  credited_currency: 'USDC';
  /** Live only (docs/rates.md "Deposits"). */
  rate_details?: WireRateDetails;
  reference: string | null;
  sender_name: string | null;
  external_id: string;
  payment_request_id: string | null;
  match: DepositMatchResult | null;
  received_at: string;
  credited_at: string | null;
  created_at: string;
}

/** Surface A's deposit. */
export function renderDeposit(d: Deposit): WireDeposit {
  return {
    id: d.id,
    object: 'deposit',
    source: d.source,
    status: d.status,
    virtual_account_id: d.virtualAccountId,
    amount: formatAmount(d.amount.minor, d.amount.currency),
    currency: d.amount.currency,
    rate: d.rate,
    converted_amount: formatAmount(d.converted.minor, d.converted.currency),
    fees: formatDepositFees(d.fees),
    credited_amount: formatAmount(d.credited.minor, d.credited.currency),
    credited_currency: 'USDC',
    ...(d.rateDetails ? { rate_details: formatRateDetails(d.rateDetails) } : {}),
    reference: d.reference,
    sender_name: d.senderName,
    external_id: d.externalId,
    payment_request_id: d.paymentRequestId,
    match: d.match,
    received_at: d.receivedAt.toISOString(),
    credited_at: d.creditedAt ? d.creditedAt.toISOString() : null,
    created_at: d.createdAt.toISOString(),
  };
}

/** The card refund of `deposit.refunded` on Surface A (docs/integration.md "Events"); amounts decimal strings. */
export interface WireDepositRefund {
  id: string;
  status: string;
  amount: string;
  currency: string;
  /** USDC debited from the balance. */
  debited_amount: string;
  created_at: string;
}

/** The card dispute of `deposit.disputed` / `deposit.dispute_closed` on Surface A; `withdrawn_amount`, `shortfall`, `reinstated_amount` in USDC. */
export interface WireDepositDispute {
  id: string;
  status: string;
  reason: string | null;
  amount: string;
  fee: string;
  currency: string;
  withdrawn_amount: string;
  shortfall: string;
  reinstated_amount: string;
}

/** The `refund` or `dispute` member added to the deposit of a card deposit event (Surface A). */
export function renderDepositCardFacts(o: { refund?: DepositRefundFact; dispute?: DepositDisputeFact }): { refund?: WireDepositRefund; dispute?: WireDepositDispute } {
  const out: { refund?: WireDepositRefund; dispute?: WireDepositDispute } = {};
  if (o.refund) {
    const r = o.refund;
    out.refund = { id: r.id, status: r.status, amount: formatAmount(r.amount, r.currency), currency: r.currency, debited_amount: formatAmount(r.debited, USDC), created_at: r.createdAt.toISOString() };
  }
  if (o.dispute) {
    const d = o.dispute;
    out.dispute = {
      id: d.id,
      status: d.status,
      reason: d.reason,
      amount: formatAmount(d.amount, d.currency),
      fee: formatAmount(d.fee, d.currency),
      currency: d.currency,
      withdrawn_amount: formatAmount(d.withdrawn, USDC),
      shortfall: formatAmount(d.shortfall, USDC),
      reinstated_amount: formatAmount(d.reinstated, USDC),
    };
  }
  return out;
}
