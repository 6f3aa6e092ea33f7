/**
 * The rolling reserve of card money (docs/getting-paid.md "Card payments"): a share of each card
 * deposit's credit stays in the `reserve` balance for a period, then returns to `available`.
 * Owns `card_reserves`.
 */
import type { DbOrTx, Environment } from '../../db/schema';

/** What {@link holdCardReserve} reserves: micro-USDC of a card deposit's credit. */
export interface CardReserveInput {
  businessId: string;
  environment: Environment;
  depositId: string;
  cardPaymentId: string | null;
  /** The deposit's net credit, micro-USDC (already posted to `available` in `tx`). */
  credited: bigint;
  /** When the deposit was credited; the reserve is released `CARD_RESERVE_PERIOD` later. */
  creditedAt: Date;
}

/**
 * In the credit's transaction, after its posting: moves `CARD_RESERVE_PERCENT` of `credited`
 * available -> reserve (posting `deposit:<id>:reserve`) and records the reserve row; idempotent on
 * the deposit id. Returns the micro-USDC reserved (0 when the percent is 0).
 * TODO(#53 helper C): implement; until then reserves nothing.
 */
export async function holdCardReserve(_tx: DbOrTx, _input: CardReserveInput, _settings: { percent: string; periodMs: number }): Promise<bigint> {
  return 0n;
}
