/**
 * The disbursement state machine (spec "Disbursement status (Surface A)", docs/states.md, generated
 * from {@link ALLOWED}). A disallowed (status, operation) is 409 `invalid_state`. Pure.
 */
import { ApiError } from './errors';

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

export type DisbursementStatus = (typeof DISBURSEMENT_STATUSES)[number];

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

export const DRAFTING_STATUSES: readonly DisbursementStatus[] = ['draft', 'needs_review', 'ready'];
export const LAUNCHED_STATUSES: readonly DisbursementStatus[] = ['processing', 'paused', 'completed', 'completed_with_failures'];
export const RUNNING_STATUSES: readonly DisbursementStatus[] = ['processing', 'paused'];

export const ALLOWED: Readonly<Record<DisbursementOperation, readonly DisbursementStatus[]>> = {
  import: DRAFTING_STATUSES,
  edit_item: ['draft', 'needs_review', 'ready', 'awaiting_approval', 'approved'],
  correct_item: ['processing', 'paused', 'completed_with_failures'],
  // draft and needs_review are listed so the core can give the precise reason.
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

export function canApply(status: DisbursementStatus, op: DisbursementOperation): boolean {
  return ALLOWED[op].includes(status);
}

/** Throws 409 invalid_state (naming the statuses that allow `op`) when `op` is not allowed in `status`. */
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

export function draftingStatus(counts: { items: number; needsReview: number }): DisbursementStatus {
  if (counts.items === 0) return 'draft';
  return counts.needsReview > 0 ? 'needs_review' : 'ready';
}

export function statusAfterApproval(status: DisbursementStatus, received: number, required: number): DisbursementStatus {
  if (!['awaiting_approval', 'approved'].includes(status)) return status;
  return received >= required ? 'approved' : 'awaiting_approval';
}

export function completionStatus(failed: number): 'completed' | 'completed_with_failures' {
  return failed > 0 ? 'completed_with_failures' : 'completed';
}

/** Event written on entering a status (spec "Events, Surface A"). */
export const DISBURSEMENT_EVENT_ON_ENTER = {
  awaiting_approval: 'disbursement.awaiting_approval',
  processing: 'disbursement.launched',
  completed: 'disbursement.completed',
  completed_with_failures: 'disbursement.completed_with_failures',
} as const satisfies Partial<Record<DisbursementStatus, string>>;

/** Visible status of an item; `pending` = no payout yet for the current attempt. */
export type DisbursementItemStatus = 'needs_review' | 'ready' | 'pending' | 'processing' | 'succeeded' | 'failed' | 'refunded';

export const DISBURSEMENT_ITEM_STATUSES: readonly DisbursementItemStatus[] = [
  'needs_review',
  'ready',
  'pending',
  'processing',
  'succeeded',
  'failed',
  'refunded',
];

/** The visible item status from the stored status and the current payout's status. */
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

export function isFinalItemStatus(s: DisbursementItemStatus): boolean {
  return s === 'succeeded' || s === 'failed' || s === 'refunded';
}

/** Fields whose change creates a new revision (spec rule 3). */
export const MONEY_CRITICAL_FIELDS = ['channel', 'source_amount', 'recipient_id', 'recipient'] as const;
