/** The sandbox test clock Signal (docs/test-clocks.md); live workflows never receive it. */
import { defineSignal } from '@temporalio/workflow';

export interface TestClockAdvance {
  /** `tca_…`: a re-sent Signal with an id already seen changes nothing. */
  advanceId: string;
  /** Milliseconds forward (> 0). */
  byMs: number;
}

export const testClockAdvanceSignal = defineSignal<[TestClockAdvance]>('testClockAdvance');
