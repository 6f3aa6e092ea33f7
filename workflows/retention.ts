/** retentionWorkflow (docs/operations.md "Data retention"): sweeps in bounded batches, again at once while a table had more. */
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import { RETENTION_SWEEPS_PER_RUN, type RetentionActivities, type RetentionInput } from './retention.contract';

const acts = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

export async function retentionWorkflow(input: RetentionInput): Promise<never> {
  for (let i = 0; i < RETENTION_SWEEPS_PER_RUN; i++) {
    const r = await acts.retentionSweep();
    if (!r.more) await sleep(input.intervalMs);
  }
  return continueAsNew<typeof retentionWorkflow>(input);
}
