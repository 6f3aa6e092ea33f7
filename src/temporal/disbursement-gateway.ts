/**
 * Every Temporal client call about a disbursement's run (contract:
 * workflows/disbursement.contract.ts; docs/architecture.md "Temporal gateway"). Workflow id =
 * disbursement id; the run lives on the batch task queue.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from '../config';
import {
  DISBURSEMENT_WORKFLOW_TYPE,
  type DisbursementWorkflowInput,
  pauseSignal,
  resumeSignal,
  retryFailedSignal,
} from '../../workflows/disbursement.contract';
import { type KeywordAttributes, type RecordedStart, startIdempotently, type TemporalClient, typedAttributes } from './client';
import { taskQueueFor } from './task-queues';

/** The signals a disbursement run hears (all without arguments). */
export type DisbursementSignal = 'pause' | 'resume' | 'retryFailed';

const SIGNALS = { pause: pauseSignal, resume: resumeSignal, retryFailed: retryFailedSignal } as const;

/** Starts disbursementWorkflow for a recorded start (idempotent: an already started run is a no-op). */
export async function startDisbursementRun(temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE'>, start: RecordedStart): Promise<void> {
  await startIdempotently(temporal, {
    workflowType: DISBURSEMENT_WORKFLOW_TYPE,
    workflowId: start.workflowId,
    taskQueue: taskQueueFor(config, DISBURSEMENT_WORKFLOW_TYPE),
    args: start.args as [DisbursementWorkflowInput],
    searchAttributes: start.searchAttributes,
  });
}

/**
 * Signals the disbursement's run. Returns false when no run exists (not started yet: it reads the
 * projection when it starts); throws any other error (Temporal unreachable).
 */
export async function signalDisbursementRun(temporal: TemporalClient, disbursementId: string, signal: DisbursementSignal): Promise<boolean> {
  try {
    await temporal.workflow.getHandle(disbursementId).signal(SIGNALS[signal]);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * Signals the disbursement's run, starting a new run with `input` if none is running
 * (signal-with-start on the batch task queue, with the given search attributes).
 */
export async function signalWithStartDisbursementRun(
  temporal: TemporalClient,
  config: Pick<Config, 'TASK_QUEUE'>,
  opts: { disbursementId: string; input: DisbursementWorkflowInput; signal: DisbursementSignal; searchAttributes: KeywordAttributes },
): Promise<void> {
  await temporal.workflow.signalWithStart(DISBURSEMENT_WORKFLOW_TYPE, {
    workflowId: opts.disbursementId,
    taskQueue: taskQueueFor(config, DISBURSEMENT_WORKFLOW_TYPE),
    args: [opts.input],
    signal: SIGNALS[opts.signal],
    signalArgs: [],
    typedSearchAttributes: typedAttributes(opts.searchAttributes),
  });
}

/** Whether the disbursement's workflow is running now (describe; false when it never started or closed). */
export async function isDisbursementRunRunning(temporal: TemporalClient, disbursementId: string): Promise<boolean> {
  try {
    return (await temporal.workflow.getHandle(disbursementId).describe()).status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
