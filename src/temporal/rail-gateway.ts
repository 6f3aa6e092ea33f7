/**
 * Every Temporal client call about the bank file workflows and the rail events of payouts
 * (contracts: workflows/rail-files.contract.ts, workflows/payout.contract.ts; docs/rails.md).
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from '../config';
import { type PayoutRailEvent, railEventSignal } from '../../workflows/payout.contract';
import {
  RAIL_INBOX_WORKFLOW_TYPE,
  RAIL_WINDOW_WORKFLOW_TYPE,
  type RailInboxInput,
  type RailWindowInput,
  railInboxWorkflowId,
  railWindowWorkflowId,
} from '../../workflows/rail-files.contract';
import { type TemporalClient, withCallDeadline } from './client';
import { taskQueueFor } from './task-queues';

/** Starts `workflowType` as `workflowId` unless a run of it is open (then nothing happens); the call has a deadline (CLIENT_CALL_DEADLINE_MS). */
export async function startOrUseOpen(temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE'>, workflowType: string, workflowId: string, args: unknown[]): Promise<void> {
  try {
    await withCallDeadline(temporal, () =>
      temporal.workflow.start(workflowType, {
        workflowId,
        taskQueue: taskQueueFor(config, workflowType),
        args,
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    );
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    throw err;
  }
}

/**
 * Makes sure the collection window `input.windowStartMs` of `input.rail` has its workflow (started,
 * or already open). A window whose workflow already finished gets a new run that collects at once.
 */
export async function startRailWindowWorkflow(temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE'>, input: RailWindowInput): Promise<void> {
  await startOrUseOpen(temporal, config, RAIL_WINDOW_WORKFLOW_TYPE, railWindowWorkflowId(input.rail, input.windowStartMs), [input]);
}

/** Makes sure the inbox poller of `input.rail` runs (one per rail; idempotent). */
export async function startRailInboxWorkflow(temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE'>, input: RailInboxInput): Promise<void> {
  await startOrUseOpen(temporal, config, RAIL_INBOX_WORKFLOW_TYPE, railInboxWorkflowId(input.rail), [input]);
}

/**
 * Signals rail event `event` to payout `payoutId` (Signal `railEvent`). Returns false when the
 * payout's workflow is not running (finished: the event is kept in rail_events all the same).
 * Throws on any other failure, a timeout (`CLIENT_CALL_DEADLINE_MS`, src/temporal/client.ts) included.
 */
export async function signalPayoutRailEvent(temporal: TemporalClient, payoutId: string, event: PayoutRailEvent): Promise<boolean> {
  try {
    await withCallDeadline(temporal, () => temporal.workflow.getHandle(payoutId).signal(railEventSignal, event));
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
