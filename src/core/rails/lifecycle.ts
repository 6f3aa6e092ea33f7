/** Starting the live rails with a process (docs/rails.md "Connecting a bank"). */
import { startRailInboxWorkflow } from '../../temporal/rail-gateway';
import type { Core } from '../context';
import { configuredLiveRails, RAIL_HEALTH_TTL_MS, refreshRailHealth } from './rail-adapters';

/** Every RAIL_HEALTH_TTL_MS (the timer does not keep the process alive); returns the stop function. */
export async function startRailHealthChecks(core: Core): Promise<() => void> {
  if (configuredLiveRails(core).length === 0) return () => undefined;
  const health = await refreshRailHealth(core);
  core.log.info({ health }, 'live rail connections checked');
  const timer = setInterval(() => void refreshRailHealth(core), RAIL_HEALTH_TTL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Idempotent; throws when Temporal cannot be reached. */
export async function startRailPollers(core: Core): Promise<string[]> {
  const rails = configuredLiveRails(core);
  for (const { rail, pollIntervalMs } of rails) await startRailInboxWorkflow(core.temporal, core.config, { rail, pollIntervalMs });
  return rails.map((r) => r.rail);
}
