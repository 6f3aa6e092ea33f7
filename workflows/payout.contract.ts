/** Contract of payoutWorkflow (docs/architecture.md "Workflow contracts"). */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PayoutFailureCode, PayoutStatus } from '../src/domain/payout-state';

export const PAYOUT_WORKFLOW_TYPE = 'payoutWorkflow';

/** Delivery attempts before a retryable failure (provider_timeout) becomes final. */
export const MAX_DELIVERY_ATTEMPTS = 3;

export const CLAIM_METHODS = ['bank_transfer', 'mobile_money', 'wallet'] as const;
export type ClaimMethod = (typeof CLAIM_METHODS)[number];

export interface PayoutWorkflowInput {
  payoutId: string;
  /** 'claim_link' takes the claim path. */
  channel: string;
  notify?: boolean;
  /** `local`: the notification's first attempt runs in the workflow task (issue #39); absent in runs started before. */
  notifyFirst?: 'local';
  /** Above approval_threshold (docs/getting-paid.md "Key policies"): held `pending` up to `timeoutMs`; approve -> submitted, else canceled. */
  approval?: { timeoutMs: number };
  /** `long-waits`: PayoutStatus upserted only before waits of a minute or more (docs/disbursements.md). */
  statusUpserts?: 'long-waits';
  /** {@link PAYOUT_PATCH_LEVEL}: absent in runs started before it (they replay through the patch markers). */
  patchLevel?: typeof PAYOUT_PATCH_LEVEL;
}

/**
 * A run started with `patchLevel: 1` takes the new paths of `patched('update-effects-as-activities')`
 * and `patched('test-clock-deadline-from-real-time')` without their markers: each marker also
 * upserts TemporalChangeVersion, one more event and visibility write per payout (issue #39).
 */
export const PAYOUT_PATCH_LEVEL = 1;

export interface PayoutWorkflowResult {
  payoutId: string;
  status: PayoutStatus;
}

export const statusQuery = defineQuery<PayoutStatus>('status');
export const claimUpdate = defineUpdate<PayoutStatus, [{ method: ClaimMethod }]>('claim');
/** Cancels a pending or unclaimed payout. */
export const cancelUpdate = defineUpdate<PayoutStatus, []>('cancel');

/** Another key with approval rights: pending -> submitted. */
export const approveUpdate = defineUpdate<PayoutStatus, [{ keyId: string }]>('approve');
/** Another key with approval rights: pending -> canceled, hold released. */
export const rejectUpdate = defineUpdate<PayoutStatus, [{ keyId: string; reason?: string | null }]>('reject');

/** `expired`: the approval timeout passed. */
export interface PayoutApprovalDecision {
  payoutId: string;
  decision: 'approved' | 'rejected' | 'expired';
  keyId?: string | null;
  reason?: string | null;
}

/** Non-retryable: a move the transition table forbids (src/domain/payout-state.ts). */
export const ILLEGAL_PAYOUT_TRANSITION = 'IllegalPayoutTransition';
/** Non-retryable: no rail adapter in the payout's environment. */
export const NO_RAIL_ADAPTER = 'NoRailAdapter';

export interface AttemptResult {
  status: 'succeeded' | 'failed';
  providerReference?: string | null;
  errorCode?: string | null;
  errorMessage?: string | null;
}

/** JSON-safe form of TransitionPatch (src/core/payouts). */
export interface PayoutTransitionInput {
  payoutId: string;
  to: PayoutStatus;
  failure?: { code: PayoutFailureCode; message: string; retryable?: boolean; railReasonCode?: string | null };
  providerReference?: string | null;
  claimMethod?: string;
  /** ISO 8601; default now. */
  deliveredAt?: string;
  attempt?: AttemptResult & { number: number };
  /** Apply only from these states (else the row is returned unchanged). */
  onlyFrom?: PayoutStatus[];
  /** With `to: 'delivering'`: also make this attempt (1-based). */
  deliverAttempt?: number;
}

/** One rail attempt's answer (docs/rails.md "The seam"); recorded histories may lack `outcome`. */
export type RailAttemptResult =
  | {
      ok: true;
      outcome?: 'settled';
      providerReference: string;
      /** ms until the money lands (0: now). */
      arrivalMs: number;
      refundAfterMs?: number;
      refundMessage?: string;
    }
  | {
      ok: true;
      outcome: 'accepted';
      /** The rail's reference (ISO 20022: EndToEndId). */
      providerReference: string;
      /** ms to wait for the rail's answer before asking it (channel arrival.max). */
      deadlineMs: number;
      /** ms after settlement a return may still come (0: none). */
      returnWindowMs: number;
    }
  | {
      ok: false;
      outcome?: 'rejected';
      errorCode: PayoutFailureCode;
      message: string;
      retryable: boolean;
      retryAfterMs: number;
      providerReference: string | null;
      railReasonCode?: string | null;
    };

/** A rail's later answer about one attempt (Signal `railEvent`, or `payoutRailStatus`). */
export interface PayoutRailEvent {
  /** `<rail file id>:<index>`: applied once per id. */
  id: string;
  attempt: number;
  type: 'accepted' | 'settled' | 'rejected' | 'returned';
  /** ISO 8601 (booking time of `settled`). */
  at: string;
  failure?: { code: PayoutFailureCode; message: string; retryable: boolean; railReasonCode: string | null };
}

export const railEventSignal = defineSignal<[PayoutRailEvent]>('railEvent');

/** A result recorded without `attempt` makes the attempt with payoutRailAttempt on replay. */
export interface PayoutTransitionResult {
  status: PayoutStatus;
  attempt?: RailAttemptResult | null;
}

/** Local activities (activities/payouts.ts), each idempotent; a forbidden move fails with {@link ILLEGAL_PAYOUT_TRANSITION}. */
export interface PayoutActivities {
  payoutTransition(input: PayoutTransitionInput): Promise<PayoutTransitionResult>;
  /** Returns the claim window left, in ms. */
  payoutOpenClaim(input: { payoutId: string }): Promise<{ claimWindowMs: number }>;
  payoutRailAttempt(input: { payoutId: string; attempt: number }): Promise<RailAttemptResult>;
  /** Past the deadline; none raises the operator alert. */
  payoutRailStatus(input: { payoutId: string; attempt: number; overdueMs: number }): Promise<PayoutRailEvent[]>;
  payoutAttemptResult(input: AttemptResult & { payoutId: string; number: number }): Promise<void>;
  payoutApprovalDecide(input: PayoutApprovalDecision): Promise<{ status: PayoutStatus }>;
}

/** Non-retryable: the provider refused or cannot send the notification. */
export const NOTIFICATION_NOT_DELIVERABLE = 'NotificationNotDeliverable';

export interface PayoutNotifyResult {
  /** `canceled`: the payout ended first; `failed`: recorded failed before; `none`: no notification. */
  result: 'sent' | 'already_sent' | 'canceled' | 'failed' | 'none';
}

/** The notification id is the provider's idempotency key. */
export interface PayoutNotificationActivities {
  payoutNotify(input: { payoutId: string }): Promise<PayoutNotifyResult>;
  payoutNotificationFailed(input: { payoutId: string; error: string }): Promise<void>;
}
