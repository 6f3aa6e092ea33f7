/**
 * Contract of payoutWorkflow (workflows/payout.ts): its type name, input and result, messages,
 * failure type names and the activities it proxies. Everything outside the workflow body (core,
 * activities, src/temporal, tests) imports this module, never the body (docs/architecture.md
 * "Workflow contracts").
 */
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
  /**
   * claim_link only: notify the recipient once the claim link is open (the notification step,
   * {@link PayoutNotificationActivities}; its record is written with the payout). Absent in runs
   * started before the step existed, so their replay takes the same path.
   */
  notify?: boolean;
  /**
   * Set when the payout is above its key's approval_threshold (docs/getting-paid.md "Key
   * policies"): the payout starts `pending` with its funds held and waits up to `timeoutMs` for
   * the `approve` or `reject` Update; approve -> submitted and the usual path; reject or timeout ->
   * canceled (hold released). Absent otherwise (and in runs started before approvals existed).
   */
  approval?: { timeoutMs: number };
  /**
   * `long-waits`: PayoutStatus is upserted only before a wait of a minute or more (a rail's answer,
   * a claim, an approval) and at the end, so a payout settled after a short arrival timer costs one
   * upsert (docs/operations.md "Finding workflows"). Set by disbursementWorkflow for its children;
   * absent: before every wait (every run started before the option existed replays so).
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
  /**
   * With `to: 'delivering'` only: also make delivery attempt `deliverAttempt` (1-based) through the
   * rail in the same activity, its answer returned as `attempt` ({@link PayoutTransitionResult}).
   */
  deliverAttempt?: number;
}

/**
 * What one rail attempt answered (the rail adapter seam, src/rails/adapter.ts; docs/rails.md
 * "The seam"), in three outcomes:
 * - settled at submission (`ok: true`, `outcome` absent or `settled`): the rail knows the outcome
 *   now (the sandbox simulator, instant rails); the money lands `arrivalMs` from now, and the
 *   funds come back `refundAfterMs` after landing when the rail already knows they will.
 * - `accepted` (`ok: true`): the rail took the instruction and reports later (a bank file rail);
 *   the workflow waits for {@link railEventSignal}s up to `deadlineMs` (the channel's arrival.max).
 * - rejected (`ok: false`): a failure code, `retryable`, and the rail's own reason code.
 * Histories recorded before the seam carry the first and last shapes without `outcome`.
 */
export type RailAttemptResult =
  | {
      ok: true;
      outcome?: 'settled';
      providerReference: string;
      /** Milliseconds until the money lands (the workflow waits with a durable timer; 0: now). */
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

/**
 * A later answer of a rail about one attempt (Signal `railEvent`; src/core/rails/events.ts sends
 * it when it reads a bank file, and `payoutRailStatus` returns the same records).
 */
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
 * Result of payoutTransition: the status now stored. With `deliverAttempt` (the move to
 * delivering), also `attempt`: the rail's answer to that attempt, or null when the payout was
 * found failed, canceled or refunded (a replay after a lost workflow task: nothing to deliver, no
 * attempt made). A result recorded before `deliverAttempt` existed has no `attempt` key: the
 * workflow then makes the attempt with payoutRailAttempt, as those runs did (workflows/payout.ts
 * "The move to delivering and the first rail attempt").
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
  /**
   * Moves the payout to `to` (one transaction: projection, money, event); returns the status now
   * stored. With `deliverAttempt` (only with `to: 'delivering'`), also makes that rail attempt as
   * payoutRailAttempt would, unless the row is failed, canceled or refunded, and returns its answer
   * as `attempt` (src/core/payouts/delivery.ts deliverPayout: one statement for the move and the
   * attempt's start).
   */
  payoutTransition(input: PayoutTransitionInput): Promise<PayoutTransitionResult>;
  /** submitted -> awaiting_claim (claim token, claim_expires_at); returns the claim window left, in ms. */
  payoutOpenClaim(input: { payoutId: string }): Promise<{ claimWindowMs: number }>;
  /** One delivery attempt through the rail (keyed by payout and attempt number). */
  payoutRailAttempt(input: { payoutId: string; attempt: number }): Promise<RailAttemptResult>;
  /**
   * Asks the rail about an attempt it accepted, past the deadline: the events it has recorded for
   * the attempt (a Signal may have been lost), oldest first. With none, raises the operator alert
   * (metric payouts_rail_overdue_total and a log line) and returns [].
   */
  payoutRailStatus(input: { payoutId: string; attempt: number; overdueMs: number }): Promise<PayoutRailEvent[]>;
  /** Records the result of an attempt that will be retried. */
  payoutAttemptResult(input: AttemptResult & { payoutId: string; number: number }): Promise<void>;
  /**
   * Records an approval decision (payout_approvals) and moves the payout pending -> submitted
   * (approved; event payout.submitted) or pending -> canceled (rejected, expired; hold released,
   * event payout.canceled). Idempotent; returns the status now stored.
   */
  payoutApprovalDecide(input: PayoutApprovalDecision): Promise<{ status: PayoutStatus }>;
}

/**
 * Failure type (non-retryable) of a notification the provider refused or cannot send (live provider
 * not configured): retrying would not deliver it.
 */
export const NOTIFICATION_NOT_DELIVERABLE = 'NotificationNotDeliverable';

/** What the notification step did (src/core/notifications: sendPayoutNotification). */
export interface PayoutNotifyResult {
  /** sent (now or earlier), canceled (the payout ended first), failed (recorded before), none (no notification). */
  result: 'sent' | 'already_sent' | 'canceled' | 'failed' | 'none';
}

/**
 * The notification step's activities (activities/notifications.ts). `payoutNotify` is a regular
 * activity with retries (it calls a provider); every call carries the notification id as the
 * provider's idempotency key, so a retry after a crash between sending and recording does not
 * deliver twice. Fails with {@link NOTIFICATION_NOT_DELIVERABLE} when retrying cannot help.
 */
export interface PayoutNotificationActivities {
  /** Sends the payout's notification and records it sent (+ payout.notification_sent). */
  payoutNotify(input: { payoutId: string }): Promise<PayoutNotifyResult>;
  /** Records the notification failed with `error` when the step gave up (the payout is unaffected). */
  payoutNotificationFailed(input: { payoutId: string; error: string }): Promise<void>;
}
