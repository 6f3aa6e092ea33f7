/** The Temporal client call of the data-retention loop (contract: workflows/retention.contract.ts; docs/operations.md "Data retention"). */
import type { Config } from '../config';
import { RETENTION_WORKFLOW_ID, RETENTION_WORKFLOW_TYPE, type RetentionInput } from '../../workflows/retention.contract';
import type { TemporalClient } from './client';
import { startOrUseOpen } from './rail-gateway';

/** Makes sure the data-retention loop runs (one per namespace; idempotent). */
export async function startRetentionWorkflow(temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE'>, input: RetentionInput): Promise<void> {
  await startOrUseOpen(temporal, config, RETENTION_WORKFLOW_TYPE, RETENTION_WORKFLOW_ID, [input]);
}
