/**
 * Refunds of card top-ups and card payments (docs/surface-b.md "Card top-ups"): the balance is
 * debited first (posting to `refunds`), then the processor is asked; a failed refund gives the money
 * back. Owns `card_refunds`.
 */
import type { CardRefundResult } from '../../card-processors/processor';
import type { Core } from '../context';

/**
 * Applies a processor's refund update (event kind `refund_updated`) to our refund `reference`
 * (`cref_…`); idempotent. Returns the outcome recorded on the event (`succeeded`, `failed`, `stale`).
 * TODO(#53 helper C): implement.
 */
export async function applyRefundEvent(_core: Core, _refund: CardRefundResult & { reference: string | null }): Promise<string> {
  return 'ignored';
}
