/** Surface A's deposit (extension resource, docs/getting-paid.md "Deposits"; snake_case, decimal strings). */
import type { Deposit } from '../../domain/deposits';
import type { DepositMatchResult, DepositSource, DepositStatus } from '../../domain/funding';
import { formatAmount } from '../../domain/money';
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
