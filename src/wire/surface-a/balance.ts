/** Surface A's balance (`GET /balance`, `POST /sandbox/fund`; extension): USDC decimal strings. */
import type { Balance } from '../../domain/balance';
import { formatAmount } from '../../domain/money';

/** `GET /balance` wire shape: USDC amounts (decimal strings). */
export interface WireBalance {
  object: 'balance';
  currency: 'USDC';
  available: string;
  held: string;
  reserve: string;
}

/** Surface A's balance (also Surface C's `POST /sandbox/fund` answer). */
export function renderBalance(b: Balance): WireBalance {
  return { object: 'balance', currency: 'USDC', available: formatAmount(b.available.minor, b.available.currency), held: formatAmount(b.held.minor, b.held.currency), reserve: formatAmount(b.reserve.minor, b.reserve.currency) };
}
