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
  /**
   * `1`: the run takes the checks phase (sanctions screening, then Verification of Payee) before
   * delivery (docs/screening.md "Holding payouts"). Versioning by input: runs started before it
   * lack the field and replay without the phase, so no patch marker is needed.
   */
  checks?: typeof PAYOUT_CHECKS_LEVEL;
}

/** The {@link PayoutWorkflowInput.checks} every new run is started with. */
export const PAYOUT_CHECKS_LEVEL = 1;

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

/**
 * The screening step's answer (docs/screening.md "Outcomes"): `clear` goes on; `review` waits for the
 * case's decision (Signal `screeningDecision`); `refused` (a confirmed match) fails the payout with
 * `failure`; `unavailable` (a list past its maximum age, fail closed) screens again after `retryAfterMs`
 * or on Signal `screeningRecheck`.
 */
export type PayoutScreeningStep =
  | { outcome: 'clear'; screeningId: string }
  | { outcome: 'review'; screeningId: string; caseId: string }
  | { outcome: 'refused'; screeningId: string; failure: { code: PayoutFailureCode; message: string } }
  | { outcome: 'unavailable'; screeningId: string; reasons: string[]; retryAfterMs: number };

/** An operator's decision on a screening case (the case module records it, with its audit record, before signalling). */
export interface ScreeningDecision {
  caseId: string;
  decision: 'released' | 'rejected';
  /** The operators' reason, for the failure message of a rejection. */
  reason?: string | null;
}

/** Sent by the screening case module after a decision is committed; applied once per case. */
export const screeningDecisionSignal = defineSignal<[ScreeningDecision]>('screeningDecision');
/** Sent when screening is available again (a fresh list), so a payout held `unavailable` screens again now. */
export const screeningRecheckSignal = defineSignal<[]>('screeningRecheck');

/**
 * The Verification of Payee step (docs/payee-verification.md): `skipped` (the channel or the business
 * does not verify), `match` and `not_possible` go on; `confirm` (a close match or no match) waits up to
 * `confirmWithinMs` for Update `confirmPayee` (goes on) or `cancel` (canceled); past it the payout is
 * canceled with `payee_not_confirmed`. `unavailable`: the verification could not be asked; asked again
 * after `retryAfterMs`.
 */
export type PayeeVerificationStep =
  | { outcome: 'skipped' | 'match' | 'not_possible' }
  | { outcome: 'confirm'; result: 'close_match' | 'no_match'; confirmWithinMs: number }
  | { outcome: 'unavailable'; retryAfterMs: number };

/** The business confirms a close match or no match (Surface A `POST /payouts/{id}/confirm-payee`): submitted -> delivery goes on. */
export const confirmPayeeUpdate = defineUpdate<PayoutStatus, [{ keyId: string }]>('confirmPayee');

/** Local activities of the checks phase (activities/payouts.ts), each idempotent per payout. */
export interface PayoutCheckActivities {
  /** Screens the payout's recipient (or claimant) once per run step; opens a case on a potential match. */
  payoutScreen(input: { payoutId: string }): Promise<PayoutScreeningStep>;
  /** Asks the rail for a Verification of Payee, or returns the answer already recorded. */
  payoutVerifyPayee(input: { payoutId: string }): Promise<PayeeVerificationStep>;
  /** Records the business's confirmation, or the confirmation's expiry (`expired`). */
  payoutPayeeDecision(input: { payoutId: string; decision: 'confirmed' | 'canceled' | 'expired'; keyId?: string | null }): Promise<void>;
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
