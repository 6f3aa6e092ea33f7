/** A deposit as the core returns it (docs/getting-paid.md "Deposits"); each surface renders its own shape. */
import type { DepositMatchResult, DepositSource, DepositStatus } from './funding';
import type { Money } from './money';

/** A deposit; USDC amounts in micro-USDC. */
export interface Deposit {
  id: string;
  source: DepositSource;
  status: DepositStatus;
  virtualAccountId: string | null;
  amount: Money;
  /** Decimal string: 1 USDC buys `rate` units of `amount.currency`. */
  rate: string;
  converted: Money;
  fees: { fxSpread: bigint; processing: bigint; total: bigint };
  /** converted - fees.total. */
  credited: Money;
  /** Live only (docs/rates.md "Deposits"). */
  rateDetails: { referenceRate: string; source: string; asOf: Date; spreadBps: number } | null;
  reference: string | null;
  senderName: string | null;
  externalId: string;
  paymentRequestId: string | null;
  match: DepositMatchResult | null;
  receivedAt: Date;
  creditedAt: Date | null;
  createdAt: Date;
}
