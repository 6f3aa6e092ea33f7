/**
 * Collection windows of a file rail (docs/rails.md "Cut-offs and closing days"): time is cut into
 * windows of the rail's batch length; every payment queued in a window leaves in that window's
 * file, written when the window closes.
 */
import { startRailWindowWorkflow } from '../../temporal/rail-gateway';
import type { Core } from '../context';

/** The window that contains `at` for windows of `windowMs`: its start and end, epoch ms. */
export function windowOf(at: Date, windowMs: number): { startMs: number; closesAtMs: number } {
  const startMs = Math.floor(at.getTime() / windowMs) * windowMs;
  return { startMs, closesAtMs: startMs + windowMs };
}

/** Makes sure the current window of `rail` has its workflow (idempotent; throws when Temporal cannot be reached, so the caller's activity retries). */
export async function ensureRailWindow(core: Core, rail: string, windowMs: number): Promise<void> {
  const w = windowOf(core.now(), windowMs);
  await startRailWindowWorkflow(core.temporal, core.config, { rail, windowStartMs: w.startMs, closesAtMs: w.closesAtMs });
}
