/**
 * solanaWatchWorkflow: the Solana deposit watcher of one environment (docs/getting-paid.md "Crypto
 * deposits"; contract: workflows/solana-watch.contract.ts). Started by every worker when the
 * environment's network is configured (idempotent: one per environment). Every `pollIntervalMs` it
 * runs one poll (records received deposits at confirmed, credits at finalized, drops what vanished);
 * with more waiting than one poll settles it polls again at once; it continues as new every
 * SOLANA_WATCH_POLLS_PER_RUN polls. Pure orchestration.
 */
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import { SOLANA_WATCH_POLLS_PER_RUN, type SolanaWatchActivities, type SolanaWatchInput } from './solana-watch.contract';

/**
 * A poll: RPC calls and short database work, retried with backoff (a failing node delays, never
 * loses). It heartbeats after every transfer and address, so a poll lost with its worker is
 * retried after 10 s (a chaos run showed a 1-minute timeout stalling the watcher behind every
 * SIGKILLed worker).
 */
const acts = proxyActivities<SolanaWatchActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** The watcher (see the file header). */
export async function solanaWatchWorkflow(input: SolanaWatchInput): Promise<void> {
  for (let i = 0; i < SOLANA_WATCH_POLLS_PER_RUN; i++) {
    const r = await acts.solanaWatchPoll({ environment: input.environment });
    if (r === null) return;
    if (!r.more) await sleep(input.pollIntervalMs);
  }
  await continueAsNew<typeof solanaWatchWorkflow>(input);
}
