/** solanaSweepWorkflow (docs/getting-paid.md "Sweeps"): one per environment, a pass every `intervalMs`. */
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import { SOLANA_SWEEP_PASSES_PER_RUN, type SolanaSweepActivities, type SolanaSweepInput } from './solana-sweep.contract';

const acts = proxyActivities<SolanaSweepActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function solanaSweepWorkflow(input: SolanaSweepInput): Promise<void> {
  for (let i = 0; i < SOLANA_SWEEP_PASSES_PER_RUN; i++) {
    const r = await acts.solanaSweepPass({ environment: input.environment });
    if (r === null) return;
    await sleep(input.intervalMs);
  }
  await continueAsNew<typeof solanaSweepWorkflow>(input);
}
