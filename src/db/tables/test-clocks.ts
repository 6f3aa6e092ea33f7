import type { Environment } from './platform';

/** One advance of a sandbox business's test clock (docs/test-clocks.md). */
export interface TestClockAdvancesTable {
  /** `tca_…`; also the Signal's advance id (applied once). */
  id: string;
  business_id: string;
  environment: Environment;
  /** Milliseconds. */
  by_ms: bigint;
  workflows_signaled: number;
  created_at: Date;
}

export interface TestClockTables {
  test_clock_advances: TestClockAdvancesTable;
}
