/**
 * Every Temporal client call about a payout's workflow (contract: workflows/payout.contract.ts;
 * docs/architecture.md "Temporal gateway"). Workflow id = payout id.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Config } from '../config';
import { approveUpdate, rejectUpdate, cancelUpdate, type ClaimMethod, claimUpdate, PAYOUT_WORKFLOW_TYPE, type PayoutWorkflowInput } from '../../workflows/payout.contract';
import { type RecordedStart, startIdempotently, type TemporalClient } from './client';
import { taskQueueFor } from './task-queues';

/**
 * How an Update ended: `done` when the workflow applied it; `refused` when its validator refused
 * it or the workflow is closed (the caller re-reads the projection to say why).
 */
export type PayoutUpdateOutcome = 'done' | 'refused';

async function update(run: () => Promise<unknown>): Promise<PayoutUpdateOutcome> {
  try {
    await run();
    return 'done';
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) return 'refused';
    throw err;
  }
}

/** Starts payoutWorkflow for a recorded start (idempotent: an already started payout is a no-op). */
export async function startPayoutWorkflow(temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE'>, start: RecordedStart): Promise<void> {
  await startIdempotently(temporal, {
    workflowType: PAYOUT_WORKFLOW_TYPE,
    workflowId: start.workflowId,
    taskQueue: taskQueueFor(config, PAYOUT_WORKFLOW_TYPE),
    args: start.args as [PayoutWorkflowInput],
    searchAttributes: start.searchAttributes,
  });
}

/**
 * Executes the `claim` Update (the recipient claims with `method`) and waits for it to be applied.
 * Its Update id is `claim:<payout id>`: a payout is claimed once, so a retried request (its first
 * answer lost, its API process killed) attaches to the claim already being applied and gets its
 * outcome instead of being refused while it runs.
 */
export async function claimPayoutWorkflow(temporal: TemporalClient, payoutId: string, method: ClaimMethod): Promise<PayoutUpdateOutcome> {
  return update(() => temporal.workflow.getHandle(payoutId).executeUpdate(claimUpdate, { args: [{ method }], updateId: `claim:${payoutId}` }));
}

/** Executes the `cancel` Update (pending or awaiting_claim payouts) and waits for it to be applied; Update id `cancel:<payout id>` (see claim). */
export async function cancelPayoutWorkflow(temporal: TemporalClient, payoutId: string): Promise<PayoutUpdateOutcome> {
  return update(() => temporal.workflow.getHandle(payoutId).executeUpdate(cancelUpdate, { updateId: `cancel:${payoutId}` }));
}

/** Executes the `approve` Update (a payout waiting for approval) and waits for it to be applied. */
export async function approvePayoutWorkflow(temporal: TemporalClient, payoutId: string, arg: { keyId: string }): Promise<PayoutUpdateOutcome> {
  return update(() => temporal.workflow.getHandle(payoutId).executeUpdate(approveUpdate, { args: [arg] }));
}

/** Executes the `reject` Update (a payout waiting for approval) and waits for it to be applied. */
export async function rejectPayoutWorkflow(
  temporal: TemporalClient,
  payoutId: string,
  arg: { keyId: string; reason: string | null },
): Promise<PayoutUpdateOutcome> {
  return update(() => temporal.workflow.getHandle(payoutId).executeUpdate(rejectUpdate, { args: [arg] }));
}
