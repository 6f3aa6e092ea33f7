/**
 * solanaSweepWorkflow: moves credited USDC from the deposit addresses of one environment to the
 * treasury (docs/getting-paid.md "Sweeps"; contract: workflows/solana-sweep.contract.ts). Started by
 * every worker when the environment has a treasury and a fee payer (idempotent: one per
 * environment). One pass every `intervalMs`; continues as new every SOLANA_SWEEP_PASSES_PER_RUN
 * passes. Pure orchestration.
 */
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import { SOLANA_SWEEP_PASSES_PER_RUN, type SolanaSweepActivities, type SolanaSweepInput } from './solana-sweep.contract';

/** A pass: RPC calls, signing and short database work; retried with backoff. */
const acts = proxyActivities<SolanaSweepActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** The sweeper (see the file header). */
export async function solanaSweepWorkflow(input: SolanaSweepInput): Promise<void> {
  for (let i = 0; i < SOLANA_SWEEP_PASSES_PER_RUN; i++) {
    const r = await acts.solanaSweepPass({ environment: input.environment });
    if (r === null) return;
    await sleep(input.intervalMs);
  }
  await continueAsNew<typeof solanaSweepWorkflow>(input);
}
