/**
 * The card processor's signed events (docs/getting-paid.md "Card payments", "The hook"):
 * `POST /hooks/card/<processor>`. Each event is verified by the processor module, recorded once
 * (`<processor>:<event id>`), then applied: checkout events move the card payment
 * (applyCheckoutState), refund and dispute events go to src/core/cards/refunds.ts and disputes.ts.
 * Owns `card_processor_events`.
 */
import { CardEventRefusedError, type CardProcessorEvent } from '../../card-processors/processor';
import type { Core } from '../context';
import { applyCheckoutState, type CardPaymentRow, findCardPaymentOfIntent, findCardPaymentOfSession } from './card-payments';
import { applyDisputeEvent } from './disputes';
import { liveCardProcessor } from './processor';
import { applyRefundEvent } from './refunds';

/** The hook's answer: HTTP status and JSON body. */
export interface CardEventReply {
  status: 200 | 400 | 503;
  body: { received: true; duplicate: boolean; outcome: string } | { error: { code: string; message: string } };
}

/**
 * Receives one delivery (headers lower-case, the raw body). Null when no live card processor with
 * id `processorId` is configured (the route answers 404). A refused signature or body answers 400
 * `{ error: { code, message } }` and writes nothing. An event already applied answers 200 with
 * `duplicate: true` and applies nothing; one recorded but not applied (an earlier attempt failed)
 * is applied again. A dispute event of a payment not known yet (its completion is still on its way)
 * stays unapplied and answers 503 `payment_not_known_yet`, so the processor redelivers it. Throws
 * when applying fails (the route answers 500; the processor redelivers).
 */
export async function receiveCardEvent(core: Core, processorId: string, headers: Record<string, string | undefined>, rawBody: string): Promise<CardEventReply | null> {
  const processor = liveCardProcessor(core);
  if (!processor || processor.id !== processorId) return null;
  let event: CardProcessorEvent;
  try {
    event = processor.verifyEvent(rawBody, headers, core.now());
  } catch (err) {
    if (err instanceof CardEventRefusedError) {
      core.log.warn({ processor: processorId, code: err.code }, 'card processor event refused');
      return { status: 400, body: { error: { code: err.code, message: err.message } } };
    }
    throw err;
  }
  const id = `${processor.id}:${event.id}`;
  const inserted = await core.db
    .insertInto('card_processor_events')
    .values({
      id,
      processor: processor.id,
      type: event.type,
      card_payment_id: null,
      dispute_id: event.dispute?.id ?? null,
      payload: JSON.stringify(event.payload ?? null) as never,
      outcome: null,
      received_at: core.now(),
      applied_at: null,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) {
    const prior = await core.db.selectFrom('card_processor_events').select(['applied_at', 'outcome']).where('id', '=', id).executeTakeFirstOrThrow();
    if (prior.applied_at) return { status: 200, body: { received: true, duplicate: true, outcome: prior.outcome ?? 'applied' } };
  }
  const { payment, outcome } = await applyCardEvent(core, processor.id, event);
  if (outcome === 'unknown_payment' && event.dispute) {
    await core.db.updateTable('card_processor_events').set({ outcome }).where('id', '=', id).execute();
    return { status: 503, body: { error: { code: 'payment_not_known_yet', message: `No paid card payment of ${event.dispute.paymentIntentId ?? 'this dispute'} yet; deliver it again later` } } };
  }
  await core.db
    .updateTable('card_processor_events')
    .set({ outcome, card_payment_id: payment?.id ?? null, applied_at: core.now() })
    .where('id', '=', id)
    .execute();
  return { status: 200, body: { received: true, duplicate: !inserted, outcome } };
}

/** Finds the event's card payment and dispatches by kind; returns the outcome recorded on the event. */
async function applyCardEvent(core: Core, processor: string, event: CardProcessorEvent): Promise<{ payment: CardPaymentRow | undefined; outcome: string }> {
  switch (event.kind) {
    case 'checkout_completed':
    case 'checkout_async_succeeded':
    case 'checkout_async_failed':
    case 'checkout_expired': {
      if (!event.checkout) return { payment: undefined, outcome: 'payload_incomplete' };
      const payment = await findCardPaymentOfSession(core, processor, event.checkout.sessionId, event.checkout.reference);
      if (!payment) return { payment, outcome: 'unknown_payment' };
      return applyCheckoutState(core, event.checkout, event.kind, payment);
    }
    case 'refund_updated': {
      if (!event.refund) return { payment: undefined, outcome: 'payload_incomplete' };
      const payment = event.refund.paymentIntentId ? await findCardPaymentOfIntent(core, processor, event.refund.paymentIntentId) : undefined;
      return { payment, outcome: await applyRefundEvent(core, event.refund) };
    }
    case 'dispute_created':
    case 'dispute_updated':
    case 'dispute_funds_withdrawn':
    case 'dispute_funds_reinstated':
    case 'dispute_closed': {
      if (!event.dispute) return { payment: undefined, outcome: 'payload_incomplete' };
      const payment = event.dispute.paymentIntentId ? await findCardPaymentOfIntent(core, processor, event.dispute.paymentIntentId) : undefined;
      // Not credited yet (its completion still on its way): the caller answers 503 so it comes again.
      if (!payment?.deposit_id) return { payment, outcome: 'unknown_payment' };
      const outcome = await applyDisputeEvent(
        core,
        { id: event.id, kind: event.kind, createdAt: event.createdAt, dispute: event.dispute },
        { id: payment.id, businessId: payment.business_id, environment: payment.environment, depositId: payment.deposit_id, currency: payment.currency },
      );
      return { payment, outcome };
    }
    default:
      return { payment: undefined, outcome: 'ignored' };
  }
}
