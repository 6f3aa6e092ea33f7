import type { Environment } from './platform';

/** One advance of a sandbox business's test clock (docs/test-clocks.md; src/core/test-clocks.ts writes it). */
export interface TestClockAdvancesTable {
  /** `tca_…`; also the Signal's advance id, so a re-sent Signal is applied once. */
  id: string;
  business_id: string;
  /** Always 'sandbox'. */
  environment: Environment;
  /** How far the clock moved, in milliseconds. */
  by_ms: bigint;
  /** Running workflows the advance was signaled to. */
  workflows_signaled: number;
  created_at: Date;
}

/** Tables of the test clock. */
export interface TestClockTables {
  test_clock_advances: TestClockAdvancesTable;
}
