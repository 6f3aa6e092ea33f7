/**
 * Disputes (chargebacks) of card payments (docs/getting-paid.md "Disputes"): the processor's
 * dispute events move money between `available`, `reserve` and `disputes`; a shortfall blocks the
 * business's new payouts until recovered. Owns `card_disputes`.
 */
import type { CardDisputeState } from '../../card-processors/processor';
import type { Core } from '../context';

/**
 * Applies one verified dispute event (kinds `dispute_*`) to the dispute of card payment
 * `cardPaymentId`; idempotent (the event id is recorded once by src/core/cards/card-events.ts, and
 * every posting has its own key). Returns the outcome recorded on the event (`opened`, `withdrawn`,
 * `reinstated`, `closed`, `stale`).
 * TODO(#53 helper C): implement.
 */
export async function applyDisputeEvent(
  _core: Core,
  _event: { id: string; kind: string; createdAt: Date; dispute: CardDisputeState },
  _payment: { id: string; businessId: string; environment: 'sandbox' | 'live'; depositId: string | null; currency: string },
): Promise<string> {
  return 'ignored';
}
