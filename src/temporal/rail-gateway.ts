/** Every Temporal client call about bank file workflows and payouts' rail events (docs/rails.md). */
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

/** Starts `workflowType` as `workflowId` unless a run is open; has a deadline. */
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

/** Makes sure the collection window has its workflow; a finished window gets a new run that collects at once. */
export async function startRailWindowWorkflow(temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE' | 'WORKFLOW_ID_PREFIX'>, input: RailWindowInput): Promise<void> {
  await startOrUseOpen(temporal, config, RAIL_WINDOW_WORKFLOW_TYPE, config.WORKFLOW_ID_PREFIX + railWindowWorkflowId(input.rail, input.windowStartMs), [input]);
}

/** Makes sure the inbox poller of `input.rail` runs (idempotent). */
export async function startRailInboxWorkflow(temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE' | 'WORKFLOW_ID_PREFIX'>, input: RailInboxInput): Promise<void> {
  await startOrUseOpen(temporal, config, RAIL_INBOX_WORKFLOW_TYPE, config.WORKFLOW_ID_PREFIX + railInboxWorkflowId(input.rail), [input]);
}

/** Signals `railEvent` to the payout; false when its workflow is not running (the event stays in rail_events). Throws otherwise. */
export async function signalPayoutRailEvent(temporal: TemporalClient, payoutId: string, event: PayoutRailEvent): Promise<boolean> {
  try {
    await withCallDeadline(temporal, () => temporal.workflow.getHandle(payoutId).signal(railEventSignal, event));
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
