/** Every Temporal client call about a disbursement's run (workflows/disbursement.contract.ts), on the batch task queue. */
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

export type DisbursementSignal = 'pause' | 'resume' | 'retryFailed';

const SIGNALS = { pause: pauseSignal, resume: resumeSignal, retryFailed: retryFailedSignal } as const;

/** Starts disbursementWorkflow for a recorded start (idempotent). */
export async function startDisbursementRun(temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE'>, start: RecordedStart): Promise<void> {
  await startIdempotently(temporal, {
    workflowType: DISBURSEMENT_WORKFLOW_TYPE,
    workflowId: start.workflowId,
    taskQueue: taskQueueFor(config, DISBURSEMENT_WORKFLOW_TYPE),
    args: start.args as [DisbursementWorkflowInput],
    searchAttributes: start.searchAttributes,
  });
}

/** Signals the run; false when none exists (a run reads the projection when it starts). Throws any other error. */
export async function signalDisbursementRun(temporal: TemporalClient, disbursementId: string, signal: DisbursementSignal): Promise<boolean> {
  try {
    await temporal.workflow.getHandle(disbursementId).signal(SIGNALS[signal]);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Signals the run, starting one with `input` if none is running (signal-with-start). */
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

/** Whether the run is running now. */
export async function isDisbursementRunRunning(temporal: TemporalClient, disbursementId: string): Promise<boolean> {
  try {
    return (await temporal.workflow.getHandle(disbursementId).describe()).status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
