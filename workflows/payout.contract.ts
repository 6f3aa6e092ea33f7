/** Contract of payoutWorkflow: imported instead of its body (docs/architecture.md "Workflow contracts"). */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PayoutFailureCode, PayoutStatus } from '../src/domain/payout-state';

/** Workflow type name (workflow_starts.workflow_type). */
export const PAYOUT_WORKFLOW_TYPE = 'payoutWorkflow';

/** Delivery attempts before a retryable failure (provider_timeout) becomes final. */
export const MAX_DELIVERY_ATTEMPTS = 3;

/** Methods a claim-link recipient can choose when claiming (Surface B payoutMethod: bank_transfer shown). */
export const CLAIM_METHODS = ['bank_transfer', 'mobile_money', 'wallet'] as const;
/** One of {@link CLAIM_METHODS}. */
export type ClaimMethod = (typeof CLAIM_METHODS)[number];

/** Argument of payoutWorkflow (nothing secret: ids only). */
export interface PayoutWorkflowInput {
  payoutId: string;
  /** Channel id; 'claim_link' takes the claim path. */
  channel: string;
  /** claim_link only: notify the recipient once the link is open ({@link PayoutNotificationActivities}). */
  notify?: boolean;
  /**
   * Above the key's approval_threshold (docs/getting-paid.md "Key policies"): `pending` with the
   * funds held for up to `timeoutMs` (ms); approve -> submitted, reject or timeout -> canceled.
   */
  approval?: { timeoutMs: number };
  /**
   * `long-waits` (disbursement children): PayoutStatus is upserted only before a wait of a minute
   * or more and at the end; absent: before every wait (docs/disbursements.md "Launch, the run, and money").
   */
  statusUpserts?: 'long-waits';
}

/** Result of payoutWorkflow: the final status. */
export interface PayoutWorkflowResult {
  payoutId: string;
  status: PayoutStatus;
}

/** Query `status`: the payout's current status as the workflow knows it. */
export const statusQuery = defineQuery<PayoutStatus>('status');
/** Update `claim`: the recipient claims with a method; returns the new status ('claimed'). */
export const claimUpdate = defineUpdate<PayoutStatus, [{ method: ClaimMethod }]>('claim');
/** Update `cancel`: cancels a pending or unclaimed payout; returns 'canceled'. */
export const cancelUpdate = defineUpdate<PayoutStatus, []>('cancel');

/** Update `approve` (another key with approval rights): pending -> submitted; returns 'submitted'. */
export const approveUpdate = defineUpdate<PayoutStatus, [{ keyId: string }]>('approve');
/** Update `reject` (another key with approval rights): pending -> canceled, hold released; returns 'canceled'. */
export const rejectUpdate = defineUpdate<PayoutStatus, [{ keyId: string; reason?: string | null }]>('reject');

/** Input of payoutApprovalDecide: who decided what (`expired`: the approval timeout passed). */
export interface PayoutApprovalDecision {
  payoutId: string;
  decision: 'approved' | 'rejected' | 'expired';
  keyId?: string | null;
  reason?: string | null;
}

/** Failure type (non-retryable) of a move the transition table forbids (src/domain/payout-state.ts). */
export const ILLEGAL_PAYOUT_TRANSITION = 'IllegalPayoutTransition';
/** Failure type (non-retryable) of a payout whose rail has no adapter in its environment (no live connection configured). */
export const NO_RAIL_ADAPTER = 'NoRailAdapter';

/** The result of one finished delivery attempt. */
export interface AttemptResult {
  status: 'succeeded' | 'failed';
  providerReference?: string | null;
  errorCode?: string | null;
  errorMessage?: string | null;
}

/** Input of payoutTransition: JSON-safe form of TransitionPatch (src/core/payouts). */
export interface PayoutTransitionInput {
  payoutId: string;
  to: PayoutStatus;
  failure?: { code: PayoutFailureCode; message: string; retryable?: boolean; railReasonCode?: string | null };
  providerReference?: string | null;
  claimMethod?: string;
  /** -> succeeded: when the rail booked it (ISO 8601); default now. */
  deliveredAt?: string;
  attempt?: AttemptResult & { number: number };
  /** Apply the move only from these states (else the row is returned unchanged). */
  onlyFrom?: PayoutStatus[];
  /** With `to: 'delivering'` only: also make this attempt (1-based), answered as `attempt`. */
  deliverAttempt?: number;
}

/**
 * What one rail attempt answered (docs/rails.md "The seam"): settled at submission (lands in
 * `arrivalMs`), `accepted` (answers later by {@link railEventSignal}), or rejected. Recorded
 * histories may lack `outcome` on the settled and rejected shapes.
 */
export type RailAttemptResult =
  | {
      ok: true;
      outcome?: 'settled';
      providerReference: string;
      /** Until the money lands, in ms (0: now). */
      arrivalMs: number;
      /** Set when the provider will return the funds this many ms after delivery. */
      refundAfterMs?: number;
      /** failure.message of the later refund (with refundAfterMs). */
      refundMessage?: string;
    }
  | {
      ok: true;
      outcome: 'accepted';
      /** The rail's reference of this attempt (ISO 20022: the EndToEndId). */
      providerReference: string;
      /** How long to wait for the rail's answer before asking it (channel arrival.max), in ms. */
      deadlineMs: number;
      /** How long after settlement a return may still come, in ms (0: none can). */
      returnWindowMs: number;
    }
  | {
      ok: false;
      outcome?: 'rejected';
      /** Spec failure code (field failure.code). */
      errorCode: PayoutFailureCode;
      message: string;
      /** Whether another attempt may succeed (provider_timeout). */
      retryable: boolean;
      /** Backoff before the next attempt, in ms (meaningful when retryable). */
      retryAfterMs: number;
      providerReference: string | null;
      /** The rail's own reason code (e.g. `AC01`), when it gave one. */
      railReasonCode?: string | null;
    };

/** A rail's later answer about one attempt (Signal `railEvent`, or `payoutRailStatus`). */
export interface PayoutRailEvent {
  /** Stable id (`<rail file id>:<index>`): the workflow applies each id once. */
  id: string;
  /** The attempt it answers. */
  attempt: number;
  type: 'accepted' | 'settled' | 'rejected' | 'returned';
  /** When the rail says it happened (booking time of `settled`), ISO 8601. */
  at: string;
  /** Mapped failure (rejected, returned): spec code, message, retryable, the rail's reason code. */
  failure?: { code: PayoutFailureCode; message: string; retryable: boolean; railReasonCode: string | null };
}

/** Signal `railEvent`: a rail event for this payout (applied once per event id). */
export const railEventSignal = defineSignal<[PayoutRailEvent]>('railEvent');

/**
 * Result of payoutTransition: the status now stored and, with `deliverAttempt`, the rail's answer
 * (null when the row was already final). Versioning: a result recorded without the `attempt` key
 * makes the attempt with payoutRailAttempt on replay.
 */
export interface PayoutTransitionResult {
  status: PayoutStatus;
  attempt?: RailAttemptResult | null;
}

/**
 * The activities payoutWorkflow proxies (local activities; activities/payouts.ts implements them).
 * Each is idempotent; a forbidden move fails with {@link ILLEGAL_PAYOUT_TRANSITION}.
 */
export interface PayoutActivities {
  /** Moves the payout to `to` (projection, money and event in one transaction); with `deliverAttempt`, also makes it. */
  payoutTransition(input: PayoutTransitionInput): Promise<PayoutTransitionResult>;
  /** submitted -> awaiting_claim (claim token, claim_expires_at); returns the claim window left, in ms. */
  payoutOpenClaim(input: { payoutId: string }): Promise<{ claimWindowMs: number }>;
  /** One delivery attempt through the rail (keyed by payout and attempt number). */
  payoutRailAttempt(input: { payoutId: string; attempt: number }): Promise<RailAttemptResult>;
  /** Past the deadline: the rail's recorded events for the attempt, oldest first; none raises the operator alert. */
  payoutRailStatus(input: { payoutId: string; attempt: number; overdueMs: number }): Promise<PayoutRailEvent[]>;
  /** Records the result of an attempt that will be retried. */
  payoutAttemptResult(input: AttemptResult & { payoutId: string; number: number }): Promise<void>;
  /** Records an approval decision: pending -> submitted (approved) or canceled (hold released); the status now stored. */
  payoutApprovalDecide(input: PayoutApprovalDecision): Promise<{ status: PayoutStatus }>;
}

/** Failure type (non-retryable) of a notification the provider refused or cannot send. */
export const NOTIFICATION_NOT_DELIVERABLE = 'NotificationNotDeliverable';

/** What the notification step did (src/core/notifications: sendPayoutNotification). */
export interface PayoutNotifyResult {
  /** sent (now or earlier), canceled (the payout ended first), failed (recorded before), none (no notification). */
  result: 'sent' | 'already_sent' | 'canceled' | 'failed' | 'none';
}

/**
 * The notification step's activities: every call carries the notification id as the provider's
 * idempotency key; {@link NOTIFICATION_NOT_DELIVERABLE} when retrying cannot help.
 */
export interface PayoutNotificationActivities {
  /** Sends the payout's notification and records it sent (+ payout.notification_sent). */
  payoutNotify(input: { payoutId: string }): Promise<PayoutNotifyResult>;
  /** Records the notification failed with `error` when the step gave up (the payout is unaffected). */
  payoutNotificationFailed(input: { payoutId: string; error: string }): Promise<void>;
}
