import { DISBURSEMENT_WORKFLOW_TYPE } from '../../workflows/disbursement.contract';
import type { Config } from '../config';

/**
 * The task queue a workflow type runs on (docs/architecture.md "Workflow ids and task queues": `payments`).
 * Disbursement workflows get their own queue, `<TASK_QUEUE>-batches`, served by a worker of their
 * own in the same process: a batch's workflow task then never waits behind the thousands of payout
 * tasks the batch itself creates. Waiting there made its tasks slow enough for the server to
 * force-fail them (more than 100 child events buffered) and made continue-as-new lose its race
 * with child completions (docs/benchmarks.md).
 */
export function taskQueueFor(config: Pick<Config, 'TASK_QUEUE'>, workflowType: string): string {
  return workflowType === DISBURSEMENT_WORKFLOW_TYPE ? `${config.TASK_QUEUE}-batches` : config.TASK_QUEUE;
}
