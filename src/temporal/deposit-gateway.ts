/** Temporal client calls about a deposit's workflow (workflows/deposit.contract.ts). */
import type { Config } from '../config';
import { DEPOSIT_WORKFLOW_TYPE, type DepositWorkflowInput } from '../../workflows/deposit.contract';
import { type RecordedStart, startIdempotently, type TemporalClient } from './client';
import { taskQueueFor } from './task-queues';

/** Starts depositWorkflow for a recorded start (idempotent). */
export async function startDepositWorkflow(temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE'>, start: RecordedStart): Promise<void> {
  await startIdempotently(temporal, {
    workflowType: DEPOSIT_WORKFLOW_TYPE,
    workflowId: start.workflowId,
    taskQueue: taskQueueFor(config, DEPOSIT_WORKFLOW_TYPE),
    args: start.args as [DepositWorkflowInput],
    searchAttributes: start.searchAttributes,
  });
}
