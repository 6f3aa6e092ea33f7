/**
 * Contract of the sandbox test clock (docs/test-clocks.md): the one Signal every workflow with a
 * clock-sensitive wait answers. The core sends it to a sandbox business's running workflows when
 * the business advances its clock (src/core/test-clocks.ts); live workflows never receive it.
 */
import { defineSignal } from '@temporalio/workflow';

/** One advance of a business's test clock: `byMs` milliseconds forward, identified by `advanceId`. */
export interface TestClockAdvance {
  /** Id of the advance (`tca_…`): a re-sent Signal with an id already seen changes nothing. */
  advanceId: string;
  /** How far the clock moves, in milliseconds (> 0). */
  byMs: number;
}

/** Signal `testClockAdvance`: the workflow's waits behave as if `byMs` more had passed. */
export const testClockAdvanceSignal = defineSignal<[TestClockAdvance]>('testClockAdvance');
