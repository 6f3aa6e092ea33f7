/** A business's balance in one environment (docs/architecture.md "Money rules"): USDC, micro-USDC. */
import type { Money } from './money';

/** `held` is reserved by payouts in flight; `reserve` is card money in the rolling reserve (docs/getting-paid.md "Rolling reserve"). */
export interface Balance {
  available: Money;
  held: Money;
  reserve: Money;
}
