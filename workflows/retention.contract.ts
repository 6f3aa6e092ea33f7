/** Contract of retentionWorkflow (docs/operations.md "Data retention"). */

export const RETENTION_WORKFLOW_TYPE = 'retentionWorkflow';
/** One per namespace. */
export const RETENTION_WORKFLOW_ID = 'retention';

export interface RetentionInput {
  intervalMs: number;
}

export const RETENTION_SWEEPS_PER_RUN = 100;

export interface RetentionSweepSummary {
  deleted: Record<string, number>;
  /** A table still has rows past retention: sweep again now. */
  more: boolean;
}

export interface RetentionActivities {
  retentionSweep(): Promise<RetentionSweepSummary>;
}
