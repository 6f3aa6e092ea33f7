/** Starts the Solana watcher (and sweeper) of each watched environment, idempotently, from every worker. */
import { parseDuration } from '../../domain/durations';
import { watchedSolanaNetworks } from '../../solana/network';
import { startSolanaSweepWorkflow, startSolanaWatchWorkflow } from '../../temporal/solana-gateway';
import type { Core } from '../context';

/** Returns the environments started. Throws when Temporal cannot be reached. */
export async function startSolanaWatchers(core: Core): Promise<string[]> {
  const nets = watchedSolanaNetworks(core.config);
  for (const n of nets) {
    await startSolanaWatchWorkflow(core.temporal, core.config, { environment: n.environment, pollIntervalMs: parseDuration(core.config.SOLANA_POLL_INTERVAL) });
    if (n.sweep) await startSolanaSweepWorkflow(core.temporal, core.config, { environment: n.environment, intervalMs: parseDuration(core.config.SOLANA_SWEEP_INTERVAL) });
  }
  return nets.map((n) => n.environment);
}
