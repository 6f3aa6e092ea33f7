/** solanaWatchWorkflow (docs/getting-paid.md "Crypto deposits"): one per environment; polls, again at once while more waits. */
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import { SOLANA_WATCH_POLLS_PER_RUN, type SolanaWatchActivities, type SolanaWatchInput } from './solana-watch.contract';

/** Heartbeats per transfer and address, so a poll lost with its worker is retried after 10 s. */
const acts = proxyActivities<SolanaWatchActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

export async function solanaWatchWorkflow(input: SolanaWatchInput): Promise<void> {
  for (let i = 0; i < SOLANA_WATCH_POLLS_PER_RUN; i++) {
    const r = await acts.solanaWatchPoll({ environment: input.environment });
    if (r === null) return;
    if (!r.more) await sleep(input.pollIntervalMs);
  }
  await continueAsNew<typeof solanaWatchWorkflow>(input);
}
