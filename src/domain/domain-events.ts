/** Event constructors, one per kind, each owning its dedupe key (docs/webhooks.md "Event data"). */
import type { Deposit } from './deposits';
import type { Disbursement } from './disbursements';
import type { DepositDisputeFact, DepositRefundFact, EventObject, RecipientEventValue } from './event-objects';
import type { PayoutNotification } from './notifications';
import type { PaymentRequest } from './payment-links';
import type { Payout } from './payouts';

/** Whose event it is: the business and environment of the object. */
export interface EventOwner {
  businessId: string;
  environment: 'sandbox' | 'live';
}

/** A domain event for the outbox; `dedupeKey` is unique per emission, so a retried step emits once. */
export interface DomainEvent extends EventOwner {
  type: string;
  objectType: EventObject['object'];
  objectId: string;
  object: EventObject;
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

/** A payout entering `status`, or `claim_started` (payout.claim_started); dedupe `payout:{id}:{status}`. */
export function payoutStatusEvent(owner: EventOwner, type: string, payout: Payout, status: string): DomainEvent {
  return event(owner, type, { object: 'payout', value: payout }, `payout:${payout.id}:${status}`);
}

/** `payout.screening_{review|released}` for case `caseId` (docs/screening.md "Events"); dedupe `payout:{id}:screening_{review|released}:{caseId}`. */
export function payoutScreeningEvent(owner: EventOwner, type: 'payout.screening_review' | 'payout.screening_released', payout: Payout, caseId: string): DomainEvent {
  return event(owner, type, { object: 'payout', value: payout }, `payout:${payout.id}:${type.slice('payout.'.length)}:${caseId}`);
}

/** `payout.payee_confirmation_required` (docs/payee-verification.md); dedupe `payout:{id}:payee_confirmation_required`. */
export function payeeConfirmationRequiredEvent(owner: EventOwner, payout: Payout): DomainEvent {
  return event(owner, 'payout.payee_confirmation_required', { object: 'payout', value: payout }, `payout:${payout.id}:payee_confirmation_required`);
}

/** `payout.notification_*` with the notification; dedupe `payout:{id}:notification_{sent|delivered|failed}`. */
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

/** `deposit.refunded`: a card refund of the deposit succeeded; dedupe `deposit:{id}:refund:{refundId}`. */
export function depositRefundedEvent(owner: EventOwner, d: Deposit, refund: DepositRefundFact): DomainEvent {
  return event(owner, 'deposit.refunded', { object: 'deposit', value: d, refund }, `deposit:${d.id}:refund:${refund.id}`);
}

/**
 * `deposit.disputed` (phase `opened`: a dispute first seen; `withdrawn`: its funds withdrawn later) or
 * `deposit.dispute_closed` (phase `closed`: its final status); dedupe `deposit:{id}:dispute:{disputeId}:{phase}`.
 */
export function depositDisputeEvent(owner: EventOwner, phase: 'opened' | 'withdrawn' | 'closed', d: Deposit, dispute: DepositDisputeFact): DomainEvent {
  const type = phase === 'closed' ? 'deposit.dispute_closed' : 'deposit.disputed';
  return event(owner, type, { object: 'deposit', value: d, dispute }, `deposit:${d.id}:dispute:${dispute.id}:${phase}`);
}

/** `recipient.updated` by a bank's correction (docs/rails.md "ACH"); dedupe `recipient:{id}:correction:{correctionId}`. */
export function recipientCorrectedEvent(owner: EventOwner, r: RecipientEventValue, correctionId: string): DomainEvent {
  return event(owner, 'recipient.updated', { object: 'recipient', value: r }, `recipient:${r.id}:correction:${correctionId}`);
}
