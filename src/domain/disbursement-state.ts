/**
 * The disbursement state machine (spec "Disbursement status (Surface A)", docs/disbursements.md).
 * Pure: the API (src/core/disbursements/), the activities and the workflow consult it.
 *
 * Statuses. Drafting: `draft` (no items yet), `needs_review` (at least one item needs review),
 * `ready` (every item ready, not yet submitted). Approval: `awaiting_approval`, `approved`.
 * Execution: `processing`, `paused`. Final (until retry-failed): `completed` (every item
 * succeeded), `completed_with_failures` (every item final, at least one failed).
 *
 * {@link ALLOWED} says in which statuses each operation is accepted; docs/states.md "Surface A
 * disbursement" is generated from it and {@link DISBURSEMENT_EVENT_ON_ENTER}
 * (`npm run docs:states`; test/unit/docs-states.test.ts fails when they disagree).
 * Any other (status, operation) pair is 409 `invalid_state` naming the current status and the
 * statuses that allow it. Beyond the table, the core refuses: submit/approve/launch while items need
 * review (409 `items_need_review`), launch/retry_failed with approvals outstanding (409
 * `approval_required`), launch/retry_failed without the balance (402 `insufficient_balance`).
 */
import { ApiError } from './errors';

/** Every disbursement status. */
export const DISBURSEMENT_STATUSES = [
  'draft',
  'needs_review',
  'ready',
  'awaiting_approval',
  'approved',
  'processing',
  'paused',
  'completed',
  'completed_with_failures',
] as const;

/** A disbursement status (see the file header; docs/states.md "Surface A disbursement"). */
export type DisbursementStatus = (typeof DISBURSEMENT_STATUSES)[number];

/** What can be done to a disbursement (API operations and the workflow's completion). */
export type DisbursementOperation =
  | 'import'
  | 'edit_item'
  | 'correct_item'
  | 'submit'
  | 'approve'
  | 'reject'
  | 'launch'
  | 'pause'
  | 'resume'
  | 'retry_failed'
  | 'complete';

/** Drafting statuses (items may be added and edited freely). */
export const DRAFTING_STATUSES: readonly DisbursementStatus[] = ['draft', 'needs_review', 'ready'];
/** Statuses once launched (the workflow exists). */
export const LAUNCHED_STATUSES: readonly DisbursementStatus[] = ['processing', 'paused', 'completed', 'completed_with_failures'];
/** Statuses in which the workflow still has work. */
export const RUNNING_STATUSES: readonly DisbursementStatus[] = ['processing', 'paused'];

/** In which statuses each operation is allowed (shown in docs/states.md "Surface A disbursement"). */
export const ALLOWED: Readonly<Record<DisbursementOperation, readonly DisbursementStatus[]>> = {
  import: DRAFTING_STATUSES,
  edit_item: ['draft', 'needs_review', 'ready', 'awaiting_approval', 'approved'],
  correct_item: ['processing', 'paused', 'completed_with_failures'],
  // needs_review and draft are listed so that the core can answer with the precise reason
  // (items_need_review / "no items") instead of invalid_state.
  submit: ['draft', 'needs_review', 'ready'],
  approve: ['awaiting_approval', 'approved', 'processing', 'paused', 'completed_with_failures'],
  reject: ['awaiting_approval', 'approved'],
  launch: ['needs_review', 'ready', 'awaiting_approval', 'approved'],
  pause: ['processing'],
  resume: ['paused'],
  retry_failed: ['processing', 'paused', 'completed_with_failures'],
  complete: ['processing', 'paused'],
};

const OPERATION_NAMES: Readonly<Record<DisbursementOperation, string>> = {
  import: 'import items into',
  edit_item: 'edit items of',
  correct_item: 'correct items of',
  submit: 'submit for approval',
  approve: 'approve',
  reject: 'reject',
  launch: 'launch',
  pause: 'pause',
  resume: 'resume',
  retry_failed: 'retry failed items of',
  complete: 'complete',
};

/** Whether `op` is allowed in `status`. */
export function canApply(status: DisbursementStatus, op: DisbursementOperation): boolean {
  return ALLOWED[op].includes(status);
}

/**
 * Throws 409 invalid_state when `op` is not allowed in `status`; the message names the current
 * status and the statuses that allow the operation.
 */
export function assertCanApply(status: DisbursementStatus, op: DisbursementOperation): void {
  if (canApply(status, op)) return;
  throw new ApiError(
    409,
    'invalid_state',
    `Cannot ${OPERATION_NAMES[op]} a disbursement in status ${status}; allowed in: ${ALLOWED[op].join(', ')}`,
    null,
    { status },
  );
}

/** The drafting status of a disbursement from its item counts: draft (no items), needs_review, or ready. */
export function draftingStatus(counts: { items: number; needsReview: number }): DisbursementStatus {
  if (counts.items === 0) return 'draft';
  return counts.needsReview > 0 ? 'needs_review' : 'ready';
}

/** Status after approve: approved once `received >= required`, else awaiting_approval. */
export function statusAfterApproval(status: DisbursementStatus, received: number, required: number): DisbursementStatus {
  if (!['awaiting_approval', 'approved'].includes(status)) return status;
  return received >= required ? 'approved' : 'awaiting_approval';
}

/** Status after a completed run of the workflow: completed_with_failures when any item failed. */
export function completionStatus(failed: number): 'completed' | 'completed_with_failures' {
  return failed > 0 ? 'completed_with_failures' : 'completed';
}

/**
 * Event emitted on entering a status, if any (spec "Events, Surface A"): src/core/disbursements/
 * takes each event type it writes from here (approvals.ts, run-control.ts, worker-steps.ts).
 */
export const DISBURSEMENT_EVENT_ON_ENTER = {
  awaiting_approval: 'disbursement.awaiting_approval',
  processing: 'disbursement.launched',
  completed: 'disbursement.completed',
  completed_with_failures: 'disbursement.completed_with_failures',
} as const satisfies Partial<Record<DisbursementStatus, string>>;

// ---------------------------------------------------------------------------------------------
// Items

/**
 * Visible status of an item. Drafting: needs_review, ready. Launched: pending (no payout yet for
 * the current attempt), processing (its payout is in flight), succeeded, failed, refunded.
 */
export type DisbursementItemStatus = 'needs_review' | 'ready' | 'pending' | 'processing' | 'succeeded' | 'failed' | 'refunded';

/** Every visible item status (the `status` filter of the item list). */
export const DISBURSEMENT_ITEM_STATUSES: readonly DisbursementItemStatus[] = [
  'needs_review',
  'ready',
  'pending',
  'processing',
  'succeeded',
  'failed',
  'refunded',
];

/**
 * The visible item status from the stored item status and, for a launched item, its current
 * payout's status (per-item results live in the payout projection).
 */
export function itemStatus(stored: string, payoutStatus: string | null | undefined): DisbursementItemStatus {
  if (stored !== 'launched') return stored as DisbursementItemStatus;
  switch (payoutStatus) {
    case 'succeeded':
      return 'succeeded';
    case 'failed':
    case 'canceled':
      return 'failed';
    case 'refunded':
      return 'refunded';
    default:
      return 'processing';
  }
}

/** Whether a visible item status is final (nothing more happens without retry-failed). */
export function isFinalItemStatus(s: DisbursementItemStatus): boolean {
  return s === 'succeeded' || s === 'failed' || s === 'refunded';
}

/** Item fields whose change creates a new revision (spec rule 3: money-critical fields). */
export const MONEY_CRITICAL_FIELDS = ['channel', 'source_amount', 'recipient_id', 'recipient'] as const;
