/**
 * Event constructors (spec "Events"; docs/webhooks.md "Event data"): one per event kind, each
 * owning the kind's dedupe key, so a retried step emits once and no other module spells a key.
 * Every event carries a domain object (src/domain/event-objects.ts), never a surface's wire shape.
 * Pure: the core's outbox (src/core/events.ts) writes what these return.
 */
import type { Deposit } from './deposits';
import type { Disbursement } from './disbursements';
import type { EventObject, RecipientEventValue } from './event-objects';
import type { PayoutNotification } from './notifications';
import type { PaymentRequest } from './payment-links';
import type { Payout } from './payouts';

/** Whose event it is: the business and environment of the object. */
export interface EventOwner {
  businessId: string;
  environment: 'sandbox' | 'live';
}

/** A domain event to put in the outbox: its object is a domain object, its dedupe key the constructor's. */
export interface DomainEvent extends EventOwner {
  type: string;
  objectType: EventObject['object'];
  objectId: string;
  /** The object at the event (stored versioned: src/domain/event-objects.ts eventObjectData). */
  object: EventObject;
  /** Unique per emission (e.g. `payout:po_…:succeeded`): a retried activity emits once. */
  dedupeKey: string;
}

const event = (owner: EventOwner, type: string, object: EventObject, dedupeKey: string): DomainEvent => ({
  businessId: owner.businessId,
  environment: owner.environment,
  type,
  objectType: object.object,
  objectId: object.value.id,
  object,
  dedupeKey,
});

/** The event `type` of a payout entering `status` (payout.submitted, payout.succeeded, …); dedupe `payout:{id}:{status}`. */
export function payoutStatusEvent(owner: EventOwner, type: string, payout: Payout, status: string): DomainEvent {
  return event(owner, type, { object: 'payout', value: payout }, `payout:${payout.id}:${status}`);
}

/** `payout.claim_started`: the recipient opened the claim (docs/claim-links.md); dedupe `payout:{id}:claim_started`. */
export function payoutClaimStartedEvent(owner: EventOwner, type: string, payout: Payout): DomainEvent {
  return event(owner, type, { object: 'payout', value: payout }, `payout:${payout.id}:claim_started`);
}

/**
 * `payout.notification_*` (docs/notifications.md "Events"): the payout with its notification;
 * dedupe `payout:{id}:notification_{sent|delivered|failed}`, one of each per payout.
 */
export function payoutNotificationEvent(owner: EventOwner, type: `payout.${string}`, payout: Payout, notification: PayoutNotification): DomainEvent {
  return event(owner, type, { object: 'payout', value: payout, notification }, `payout:${payout.id}:${type.slice('payout.'.length)}`);
}

/** `disbursement.processing` on launch; dedupe `disbursement:{id}:launched` (a disbursement launches once). */
export function disbursementLaunchedEvent(owner: EventOwner, type: string, d: Disbursement): DomainEvent {
  return event(owner, type, { object: 'disbursement', value: d }, `disbursement:${d.id}:launched`);
}

/** `disbursement.awaiting_approval`; dedupe per revision submitted: `disbursement:{id}:awaiting_approval:{revisionId}`. */
export function disbursementAwaitingApprovalEvent(owner: EventOwner, type: string, d: Disbursement, revisionId: string): DomainEvent {
  return event(owner, type, { object: 'disbursement', value: d }, `disbursement:${d.id}:awaiting_approval:${revisionId}`);
}

/** `disbursement.completed*` on finishing `status`; dedupe per retry round: `disbursement:{id}:{status}:{round}`. */
export function disbursementFinishedEvent(owner: EventOwner, type: string, d: Disbursement, status: string, retryRound: number): DomainEvent {
  return event(owner, type, { object: 'disbursement', value: d }, `disbursement:${d.id}:${status}:${retryRound}`);
}

/** `payment_request.{paid|expired}`; dedupe `payment_request:{id}:{status}`. */
export function paymentRequestEvent(owner: EventOwner, type: string, r: PaymentRequest, status: 'paid' | 'expired'): DomainEvent {
  return event(owner, type, { object: 'payment_request', value: r }, `payment_request:${r.id}:${status}`);
}

/** `deposit.{received|credited|dropped}`; dedupe `deposit:{id}:{status}`. */
export function depositEvent(owner: EventOwner, type: string, d: Deposit, status: 'received' | 'credited' | 'dropped'): DomainEvent {
  return event(owner, type, { object: 'deposit', value: d }, `deposit:${d.id}:${status}`);
}

/** `recipient.updated` by a bank's correction (docs/rails.md "ACH"); dedupe `recipient:{id}:correction:{correctionId}`. */
export function recipientCorrectedEvent(owner: EventOwner, r: RecipientEventValue, correctionId: string): DomainEvent {
  return event(owner, 'recipient.updated', { object: 'recipient', value: r }, `recipient:${r.id}:correction:${correctionId}`);
}
