import type { Environment } from './platform';

/** Card payment statuses (docs/states.md "Card payment"). */
export type CardPaymentStatus = 'creating' | 'open' | 'processing' | 'paid' | 'failed' | 'expired' | 'canceled';

/** A live card payment, one Checkout Session (docs/getting-paid.md "Card payments"); `amount`, `fee` (the processor's), `refunded`: minor units of `currency`. Written only by src/core/cards/card-payments.ts. */
export interface CardPaymentsTable {
  id: string;
  business_id: string;
  environment: Environment;
  purpose: 'topup' | 'payment_link' | 'payment_request';
  card_topup_id: string | null;
  payment_link_id: string | null;
  payment_request_id: string | null;
  processor: string;
  amount: bigint;
  currency: string;
  status: CardPaymentStatus;
  session_id: string | null;
  session_url: string | null;
  session_expires_at: Date | null;
  payment_intent_id: string | null;
  charge_id: string | null;
  fee: bigint | null;
  deposit_id: string | null;
  /** Minor units of `currency` refunded so far. */
  refunded: bigint;
  success_url: string;
  cancel_url: string;
  paid_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The rolling reserve of one card deposit, micro-USDC (`remaining`: not yet taken by disputes or released). Written only by src/core/cards/reserve.ts. */
export interface CardReservesTable {
  deposit_id: string;
  business_id: string;
  environment: Environment;
  card_payment_id: string | null;
  amount: bigint;
  remaining: bigint;
  release_at: Date;
  released_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Each processor event once (`<processor>:<event id>`). Written only by src/core/cards/card-events.ts. */
export interface CardProcessorEventsTable {
  id: string;
  processor: string;
  type: string;
  card_payment_id: string | null;
  dispute_id: string | null;
  payload: unknown;
  /** What applying it did (`credited`, `stale`, `duplicate`, `unknown_payment`, ...). */
  outcome: string | null;
  received_at: Date;
  applied_at: Date | null;
}

/** A refund of a card payment: `amount` minor units of `currency`, `debit` micro-USDC. Written only by src/core/cards/refunds.ts. */
export interface CardRefundsTable {
  id: string;
  business_id: string;
  environment: Environment;
  card_payment_id: string | null;
  card_topup_id: string | null;
  amount: bigint;
  currency: string;
  debit: bigint;
  status: 'pending' | 'succeeded' | 'failed';
  processor_refund_id: string | null;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A dispute (chargeback), `id` the processor's; `amount`, `fee` minor units of the payment's currency. Written only by src/core/cards/disputes.ts. */
export interface CardDisputesTable {
  id: string;
  processor: string;
  card_payment_id: string;
  business_id: string;
  environment: Environment;
  status: string;
  reason: string | null;
  amount: bigint;
  fee: bigint;
  withdrawn_at: Date | null;
  reinstated_at: Date | null;
  /** Micro-USDC taken from `available` and from `reserve` when the funds were withdrawn. */
  taken_available: bigint;
  taken_reserve: bigint;
  /** Micro-USDC the balance could not cover (the business's payouts are blocked until recovered). */
  shortfall: bigint;
  recovered_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface CardTables {
  card_payments: CardPaymentsTable;
  card_processor_events: CardProcessorEventsTable;
  card_reserves: CardReservesTable;
  card_refunds: CardRefundsTable;
  card_disputes: CardDisputesTable;
}
