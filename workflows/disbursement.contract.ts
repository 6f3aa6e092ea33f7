/** Contract of disbursementWorkflow: imported instead of its body (docs/architecture.md "Workflow contracts"). */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { DisbursementStatus } from '../src/domain/disbursement-state';

/** Workflow type name (workflow_starts.workflow_type). */
export const DISBURSEMENT_WORKFLOW_TYPE = 'disbursementWorkflow';

/** Default children in flight at once (Temporal's limit, docs/architecture.md "Workflow ids and task queues": 2,000 pending children per workflow). */
export const DEFAULT_WINDOW = 300;
/** Default items taken by one claim activity. */
export const DEFAULT_CLAIM_BATCH = 100;
/** Default items started by one run before continue-as-new (keeps the history to a few thousand events). */
export const DEFAULT_ITEMS_PER_RUN = 500;

/** Input of disbursementWorkflow: ids and tuning; `paused` and `claimSeq` are carried across continue-as-new. */
export interface DisbursementWorkflowInput {
  disbursementId: string;
  businessId: string;
  environment: string;
  /** Children in flight at most (1..1000, default {@link DEFAULT_WINDOW}). */
  window?: number;
  /** Items per claim activity (default {@link DEFAULT_CLAIM_BATCH}, at most `window`). */
  claimBatch?: number;
  /** Items started per run before continue-as-new (default {@link DEFAULT_ITEMS_PER_RUN}). */
  itemsPerRun?: number;
  paused?: boolean;
  /** Carried: number of the next claim (claims are idempotent per number). */
  claimSeq?: number;
}

/** Answer of the `status` query. */
export interface DisbursementWorkflowStatus {
  disbursementId: string;
  status: Extract<DisbursementStatus, 'processing' | 'paused' | 'completed' | 'completed_with_failures'>;
  paused: boolean;
  /** Children started by this run and not yet finished (the window counts the batch's in Postgres). */
  inFlight: number;
  startedThisRun: number;
  finishedThisRun: number;
  claimSeq: number;
  window: number;
}

/** Result: the final status. */
export interface DisbursementWorkflowResult {
  disbursementId: string;
  status: Extract<DisbursementStatus, 'completed' | 'completed_with_failures'>;
}

/** Signal `pause`: no new item starts; children in flight finish. */
export const pauseSignal = defineSignal('pause');
/** Signal `resume`: items start again. */
export const resumeSignal = defineSignal('resume');
/** Signal `retryFailed`: retry-failed queued failed items as new attempts (they are pending in Postgres). */
export const retryFailedSignal = defineSignal('retryFailed');
export const disbursementStatusQuery = defineQuery<DisbursementWorkflowStatus>('status');

/** One claimed item as the claim activity returns it: the payout's child workflow start. */
export interface ClaimedItem {
  itemId: string;
  payoutId: string;
  workflowType: string;
  /** Task queue of the child (payouts run on the payments queue, not the batch queue). */
  taskQueue: string;
  args: unknown[];
  searchAttributes: Record<string, string | undefined>;
}

/** Result of the claim activity: the payouts to start as children, whether to stop (paused), whether more remain. */
export interface ClaimResult {
  paused: boolean;
  /** Pending items remain after this claim. */
  more: boolean;
  /** `window` payouts are in flight after this claim: claim again when some finish. */
  full?: boolean;
  items: ClaimedItem[];
}

export type FinalizeResult =
  | { done: true; status: 'completed' | 'completed_with_failures' }
  | { done: false; paused: boolean; pending: number; processing: number };

/** The activities disbursementWorkflow proxies: one transaction each, idempotent (a claim is keyed by its number). */
export interface DisbursementActivities {
  /** Claim `claimSeq`: up to `limit` pending items become payouts, at most `window` of the batch in flight. */
  disbursementClaimItems(input: { disbursementId: string; claimSeq: number; limit: number; window?: number }): Promise<ClaimResult>;
  /** Completes the disbursement when every item is final (event included); else reports what is left. */
  disbursementFinalize(input: { disbursementId: string }): Promise<FinalizeResult>;
  /** The projection's status (processing, paused, ...). */
  disbursementProjectionStatus(input: { disbursementId: string }): Promise<string>;
}
