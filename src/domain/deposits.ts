/**
 * A deposit as the core returns it (docs/getting-paid.md "Deposits"): money that arrived for a
 * business, converted to USDC and credited to its balance. Each surface renders its own wire shape
 * (src/wire/surface-a/deposits.ts, src/api/surface-b/funding.ts).
 */
import type { DepositMatchResult, DepositSource, DepositStatus } from './funding';
import type { Money } from './money';

/** A deposit; every USDC amount is micro-USDC. */
export interface Deposit {
  id: string;
  source: DepositSource;
  status: DepositStatus;
  virtualAccountId: string | null;
  /** What arrived. */
  amount: Money;
  /** Mid-market rate used (decimal string): 1 USDC buys `rate` units of `amount.currency`. */
  rate: string;
  /** `amount` converted at `rate`, before fees (USDC). */
  converted: Money;
  /** Micro-USDC. */
  fees: { fxSpread: bigint; processing: bigint; total: bigint };
  /** converted - fees.total: what the USDC balance is (or will be) credited. */
  credited: Money;
  /** Live only (docs/rates.md "Deposits"): the rate's source, as-of time, market rate (decimal string) and spread. */
  rateDetails: { referenceRate: string; source: string; asOf: Date; spreadBps: number } | null;
  reference: string | null;
  senderName: string | null;
  externalId: string;
  /** The payment request this deposit paid (null: a plain deposit). */
  paymentRequestId: string | null;
  /** null until credited. */
  match: DepositMatchResult | null;
  receivedAt: Date;
  creditedAt: Date | null;
  createdAt: Date;
}
