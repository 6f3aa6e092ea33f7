/**
 * Contract of retentionWorkflow (workflows/retention.ts; docs/operations.md "Data retention"):
 * its type name, id, input and the activity it proxies (activities/retention.ts).
 */

/** Workflow type of the data-retention loop. */
export const RETENTION_WORKFLOW_TYPE = 'retentionWorkflow';
/** Its workflow id: one per namespace. */
export const RETENTION_WORKFLOW_ID = 'retention';

/** Argument of retentionWorkflow. */
export interface RetentionInput {
  /** Interval between sweeps, in ms. */
  intervalMs: number;
}

/** Sweeps per run before it continues as new. */
export const RETENTION_SWEEPS_PER_RUN = 100;

/** What one sweep deleted (src/core/retention.ts). */
export interface RetentionSweepSummary {
  deleted: Record<string, number>;
  /** A table still has rows past retention: sweep again now. */
  more: boolean;
}

/** The activity of retentionWorkflow. */
export interface RetentionActivities {
  /** Deletes rows past their retention in bounded batches (idempotent). */
  retentionSweep(): Promise<RetentionSweepSummary>;
}
