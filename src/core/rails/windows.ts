/** Collection windows of a file rail (docs/rails.md "Cut-offs and closing days"). */
import { startRailWindowWorkflow } from '../../temporal/rail-gateway';
import type { Core } from '../context';

/** Start and end, epoch ms. */
export function windowOf(at: Date, windowMs: number): { startMs: number; closesAtMs: number } {
  const startMs = Math.floor(at.getTime() / windowMs) * windowMs;
  return { startMs, closesAtMs: startMs + windowMs };
}

/** Idempotent; throws when Temporal cannot be reached, so the caller's activity retries. */
export async function ensureRailWindow(core: Core, rail: string, windowMs: number): Promise<void> {
  const w = windowOf(core.now(), windowMs);
  await startRailWindowWorkflow(core.temporal, core.config, { rail, windowStartMs: w.startMs, closesAtMs: w.closesAtMs });
}
