import type { Core } from './context';
import { sweepWorkflowStarts } from './workflow-starts';

/** A periodic task of the relay; returns how much work it found (0 = idle). */
export type RelayTask = (core: Core) => Promise<number>;

/**
 * The relay runs in each worker process: it starts workflows whose start was recorded but never
 * made (a process died after commit), and hands new outbox events to webhook delivery. Tasks are
 * idempotent, so any number of workers may run it at once. Returns a stop function.
 */
export function startRelay(core: Core, tasks: RelayTask[], intervalMs = 250): () => Promise<void> {
  let stopped = false;
  let current: Promise<void> = Promise.resolve();
  const all: RelayTask[] = [(c) => sweepWorkflowStarts(c), ...tasks];
  const tick = async () => {
    for (const task of all) {
      if (stopped) return;
      try {
        // Drain while there is work, then wait for the next tick.
        while (!stopped && (await task(core)) > 0) {
          // drained one batch; look for more
        }
      } catch (err) {
        core.log.warn({ err }, 'relay task failed; retrying on the next tick');
      }
    }
  };
  const loop = async () => {
    while (!stopped) {
      current = tick();
      await current;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  };
  void loop();
  return async () => {
    stopped = true;
    await current;
  };
}
