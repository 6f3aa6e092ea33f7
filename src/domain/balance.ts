/** A business's balance in one environment (docs/architecture.md "Money rules"): USDC, micro-USDC. */
import type { Money } from './money';

/** `held` is reserved by payouts in flight. */
export interface Balance {
  available: Money;
  held: Money;
}
