/** Every Temporal client call about the Solana workflows (contracts: workflows/solana-watch.contract.ts, workflows/solana-sweep.contract.ts). */
import type { Config } from '../config';
import { SOLANA_SWEEP_WORKFLOW_TYPE, type SolanaSweepInput, solanaSweepWorkflowId } from '../../workflows/solana-sweep.contract';
import { SOLANA_WATCH_WORKFLOW_TYPE, type SolanaWatchInput, solanaWatchWorkflowId } from '../../workflows/solana-watch.contract';
import type { TemporalClient } from './client';
import { startOrUseOpen } from './rail-gateway';

/** Makes sure the watcher of `input.environment` runs (one per environment; idempotent). */
export async function startSolanaWatchWorkflow(temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE'>, input: SolanaWatchInput): Promise<void> {
  await startOrUseOpen(temporal, config, SOLANA_WATCH_WORKFLOW_TYPE, solanaWatchWorkflowId(input.environment), [input]);
}

/** Makes sure the sweeper of `input.environment` runs (one per environment; idempotent). */
export async function startSolanaSweepWorkflow(temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE'>, input: SolanaSweepInput): Promise<void> {
  await startOrUseOpen(temporal, config, SOLANA_SWEEP_WORKFLOW_TYPE, solanaSweepWorkflowId(input.environment), [input]);
}
