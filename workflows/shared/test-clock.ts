/** The sandbox test clock inside a workflow (docs/test-clocks.md); without an advance Signal a run issues the same commands. */
import { setHandler } from '@temporalio/workflow';
import { testClockAdvanceSignal } from '../test-clock.contract';

export interface TestClock {
  /** Workflow time plus the advances received, ms since the epoch. */
  now(): number;
  /** Increments with every new advance. */
  version(): number;
}

/** Registers the Signal handler; call once, at the start of the workflow function. */
export function installTestClock(): TestClock {
  let offsetMs = 0;
  let version = 0;
  const seen = new Set<string>();
  setHandler(testClockAdvanceSignal, ({ advanceId, byMs }) => {
    if (seen.has(advanceId) || !(byMs > 0)) return;
    seen.add(advanceId);
    offsetMs += byMs;
    version += 1;
  });
  return { now: () => Date.now() + offsetMs, version: () => version };
}
