/**
 * retentionWorkflow (contract: workflows/retention.contract.ts; docs/operations.md "Data
 * retention"): one per namespace, started by every worker idempotently. Sweeps (activity
 * `retentionSweep`, bounded batches), sweeps again at once while a table had more, then sleeps
 * `intervalMs`; continues as new every RETENTION_SWEEPS_PER_RUN sweeps. Pure orchestration.
 */
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import { RETENTION_SWEEPS_PER_RUN, type RetentionActivities, type RetentionInput } from './retention.contract';

const acts = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

/** The data-retention loop (see the file header). */
export async function retentionWorkflow(input: RetentionInput): Promise<never> {
  for (let i = 0; i < RETENTION_SWEEPS_PER_RUN; i++) {
    const r = await acts.retentionSweep();
    if (!r.more) await sleep(input.intervalMs);
  }
  return continueAsNew<typeof retentionWorkflow>(input);
}
