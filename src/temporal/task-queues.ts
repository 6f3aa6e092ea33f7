import { DISBURSEMENT_WORKFLOW_TYPE } from '../../workflows/disbursement.contract';
import type { Config } from '../config';

/** The task queue of a workflow type: `<TASK_QUEUE>-batches` for disbursements, else `TASK_QUEUE` (docs/architecture.md "Workflow ids and task queues"). */
export function taskQueueFor(config: Pick<Config, 'TASK_QUEUE'>, workflowType: string): string {
  return workflowType === DISBURSEMENT_WORKFLOW_TYPE ? `${config.TASK_QUEUE}-batches` : config.TASK_QUEUE;
}
