/**
 * The sandbox test clock inside a workflow (docs/test-clocks.md). Determinism contract: a run that
 * never receives the `testClockAdvance` Signal issues the same commands as without the clock.
 */
import { setHandler } from '@temporalio/workflow';
import { testClockAdvanceSignal } from '../test-clock.contract';

/** A workflow's view of its business's test clock. */
export interface TestClock {
  /** Workflow time plus the advances received, in ms since the epoch. */
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
