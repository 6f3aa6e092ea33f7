/** Contract of disbursementWorkflow (docs/architecture.md "Workflow contracts"). */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { DisbursementStatus } from '../src/domain/disbursement-state';
import { PAYOUT_WORKFLOW_TYPE, type PayoutWorkflowInput } from './payout.contract';

export const DISBURSEMENT_WORKFLOW_TYPE = 'disbursementWorkflow';

/** Temporal allows 2,000 pending children per workflow. */
export const DEFAULT_WINDOW = 300;
export const DEFAULT_CLAIM_BATCH = 100;
/**
 * Children per run of a run that starts its items as children (docs/disbursements.md "Launch, the
 * run, and money"): a 5,000-item batch hands over once.
 */
export const LONG_RUN_ITEMS = 2500;
/** A run hands over before its history passes this many events or bytes (Temporal fails a run at 51,200 events or 50 MB). */
export const LONG_RUN_MAX_EVENTS = 20_000;
export const LONG_RUN_MAX_BYTES = 16 * 1024 * 1024;
/**
 * Items per run under `patched('39-items-started-by-claim')`: the claim activity starts each item's
 * payout as a workflow of its own, so a run's history grows by one claim per 100 items, not by three
 * events per child, and a 5,000-item batch never hands over.
 */
export const CLAIM_STARTED_RUN_ITEMS = 50_000;

/** `paused` and `claimSeq` are carried across continue-as-new. */
export interface DisbursementWorkflowInput {
  disbursementId: string;
  businessId: string;
  environment: string;
  /** 1..1000. */
  window?: number;
  /** At most `window`. */
  claimBatch?: number;
  /** Default {@link CLAIM_STARTED_RUN_ITEMS} ({@link LONG_RUN_ITEMS} in runs that start children). */
  itemsPerRun?: number;
  paused?: boolean;
  /** Claims are idempotent per number. */
  claimSeq?: number;
}

export interface DisbursementWorkflowStatus {
  disbursementId: string;
  status: Extract<DisbursementStatus, 'processing' | 'paused' | 'completed' | 'completed_with_failures'>;
  paused: boolean;
  /** This run's children (0 when the claims start the items); the window counts the batch's in Postgres. */
  inFlight: number;
  startedThisRun: number;
  finishedThisRun: number;
  claimSeq: number;
  window: number;
}

export interface DisbursementWorkflowResult {
  disbursementId: string;
  status: Extract<DisbursementStatus, 'completed' | 'completed_with_failures'>;
}

/** No new item starts; children in flight finish. */
export const pauseSignal = defineSignal('pause');
export const resumeSignal = defineSignal('resume');
export const retryFailedSignal = defineSignal('retryFailed');
export const disbursementStatusQuery = defineQuery<DisbursementWorkflowStatus>('status');

export interface ClaimedItem {
  itemId: string;
  payoutId: string;
  workflowType: string;
  /** Payouts run on the payments queue, not the batch queue. */
  taskQueue: string;
  args: unknown[];
  searchAttributes: Record<string, string | undefined>;
}

export interface ClaimResult {
  paused: boolean;
  more: boolean;
  /** `window` payouts in flight: claim again when some finish. */
  full?: boolean;
  items: ClaimedItem[];
}

/** A claim whose items' workflows the activity started: how many, not the items (the run keeps no children). */
export interface ClaimStartResult {
  paused: boolean;
  more: boolean;
  full?: boolean;
  started: number;
}

/**
 * The workflow input of a claimed item: a payout's publishes PayoutStatus at long waits only
 * (`statusUpserts: 'long-waits'`) when `statusAtLongWaits`; other types keep the claim's arguments.
 */
export function claimedItemArgs(item: ClaimedItem, statusAtLongWaits: boolean): unknown[] {
  if (!statusAtLongWaits || item.workflowType !== PAYOUT_WORKFLOW_TYPE) return item.args;
  const [first, ...rest] = item.args;
  return [{ ...(first as PayoutWorkflowInput), statusUpserts: 'long-waits' } satisfies PayoutWorkflowInput, ...rest];
}

export type FinalizeResult =
  | { done: true; status: 'completed' | 'completed_with_failures' }
  | { done: false; paused: boolean; pending: number; processing: number };

/** One transaction each, idempotent (a claim is keyed by its number). */
export interface DisbursementActivities {
  disbursementClaimItems(input: { disbursementId: string; claimSeq: number; limit: number; window?: number }): Promise<ClaimResult>;
  /** The same claim, then each item's workflow started (idempotent per workflow id), with the DisbursementId attribute. */
  disbursementClaimAndStartItems(input: { disbursementId: string; claimSeq: number; limit: number; window?: number }): Promise<ClaimStartResult>;
  disbursementFinalize(input: { disbursementId: string }): Promise<FinalizeResult>;
  disbursementProjectionStatus(input: { disbursementId: string }): Promise<string>;
}
