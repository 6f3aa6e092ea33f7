/**
 * Starting the Solana workflows with a worker process (docs/getting-paid.md "Crypto deposits"):
 * each environment with a watched network gets its watcher (one per environment, started
 * idempotently by every worker).
 */
import { parseDuration } from '../../domain/durations';
import { watchedSolanaNetworks } from '../../solana/network';
import { startSolanaWatchWorkflow } from '../../temporal/solana-gateway';
import type { Core } from '../context';

/** Starts the watcher of every watched environment (idempotent); returns their environments. Throws when Temporal cannot be reached. */
export async function startSolanaWatchers(core: Core): Promise<string[]> {
  const nets = watchedSolanaNetworks(core.config);
  for (const n of nets) {
    await startSolanaWatchWorkflow(core.temporal, core.config, { environment: n.environment, pollIntervalMs: parseDuration(core.config.SOLANA_POLL_INTERVAL) });
  }
  return nets.map((n) => n.environment);
}
