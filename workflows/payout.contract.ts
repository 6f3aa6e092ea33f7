/**
 * Contract of payoutWorkflow (workflows/payout.ts): its type name, input and result, messages,
 * failure type names and the activities it proxies. Everything outside the workflow body (core,
 * activities, src/temporal, tests) imports this module, never the body (docs/architecture.md
 * "Workflow contracts").
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
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
/** Failure type (non-retryable) of a live payout: only the sandbox rail has an adapter. */
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
  failure?: { code: PayoutFailureCode; message: string };
  providerReference?: string | null;
  claimMethod?: string;
  attempt?: AttemptResult & { number: number };
  /** Apply the move only from these states (else the row is returned unchanged). */
  onlyFrom?: PayoutStatus[];
}

/** What one rail call answered (src/sandbox/rails.ts simulates it). */
export type RailAttemptResult =
  | {
      ok: true;
      providerReference: string;
      /** Milliseconds until the rail confirms arrival (the workflow waits with a durable timer). */
      arrivalMs: number;
      /** Set when the provider will return the funds this many ms after delivery. */
      refundAfterMs?: number;
      /** failure.message of the later refund (with refundAfterMs). */
      refundMessage?: string;
    }
  | {
      ok: false;
      /** Spec failure code (field failure.code). */
      errorCode: PayoutFailureCode;
      message: string;
      /** Whether another attempt may succeed (provider_timeout). */
      retryable: boolean;
      /** Backoff before the next attempt, in ms (meaningful when retryable). */
      retryAfterMs: number;
      providerReference: string | null;
    };

/**
 * The activities payoutWorkflow proxies (local activities; activities/payouts.ts implements them).
 * Each is idempotent; a forbidden move fails with {@link ILLEGAL_PAYOUT_TRANSITION}.
 */
export interface PayoutActivities {
  /** Moves the payout to `to` (one transaction: projection, money, event); returns the status now stored. */
  payoutTransition(input: PayoutTransitionInput): Promise<{ status: PayoutStatus }>;
  /** submitted -> awaiting_claim (claim token, claim_expires_at); returns the claim window left, in ms. */
  payoutOpenClaim(input: { payoutId: string }): Promise<{ claimWindowMs: number }>;
  /** One delivery attempt through the rail (keyed by payout and attempt number). */
  payoutRailAttempt(input: { payoutId: string; attempt: number }): Promise<RailAttemptResult>;
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
