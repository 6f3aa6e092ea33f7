/** The card money-back relay task (docs/getting-paid.md "Rolling reserve", "Refunds", "Disputes"): each step idempotent. */
import type { Core } from '../context';
import { recoverDisputeShortfalls } from './disputes';
import { retryPendingRefunds } from './refunds';
import { releaseDueReserves } from './reserve';

/** Releases due reserves, retries pending live refunds, recovers dispute shortfalls the balance now covers. Returns 0 (throttled). */
export async function cardMoneyBackSweep(core: Core): Promise<number> {
  await releaseDueReserves(core);
  await retryPendingRefunds(core);
  await recoverDisputeShortfalls(core);
  return 0;
}
