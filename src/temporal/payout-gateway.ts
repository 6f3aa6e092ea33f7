/** Every Temporal client call about a payout's workflow (workflows/payout.contract.ts). Workflow id = payout id. */
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Config } from '../config';
import {
  approveUpdate, rejectUpdate, cancelUpdate, type ClaimMethod, claimUpdate, confirmPayeeUpdate, PAYOUT_WORKFLOW_TYPE, type PayoutWorkflowInput, type ScreeningDecision, screeningDecisionSignal, screeningRecheckSignal,
} from '../../workflows/payout.contract';
import { type RecordedStart, startIdempotently, type TemporalClient, withCallDeadline } from './client';
import { taskQueueFor } from './task-queues';

/** `done` when applied; `refused` by its validator or a closed workflow (the caller re-reads the projection). */
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

/** Starts payoutWorkflow for a recorded start (idempotent). */
export async function startPayoutWorkflow(temporal: TemporalClient, config: Pick<Config, 'TASK_QUEUE'>, start: RecordedStart): Promise<void> {
  await startIdempotently(temporal, {
    workflowType: PAYOUT_WORKFLOW_TYPE,
    workflowId: start.workflowId,
    taskQueue: taskQueueFor(config, PAYOUT_WORKFLOW_TYPE),
    args: start.args as [PayoutWorkflowInput],
    searchAttributes: start.searchAttributes,
  });
}

/** Executes the `claim` Update with Update id `claim:<payout id>`, so a retried request attaches to the one running. */
export async function claimPayoutWorkflow(temporal: TemporalClient, payoutId: string, method: ClaimMethod): Promise<PayoutUpdateOutcome> {
  return update(() => temporal.workflow.getHandle(payoutId).executeUpdate(claimUpdate, { args: [{ method }], updateId: `claim:${payoutId}` }));
}

/** Executes the `cancel` Update; Update id `cancel:<payout id>`. */
export async function cancelPayoutWorkflow(temporal: TemporalClient, payoutId: string): Promise<PayoutUpdateOutcome> {
  return update(() => temporal.workflow.getHandle(payoutId).executeUpdate(cancelUpdate, { updateId: `cancel:${payoutId}` }));
}

/** Executes the `approve` Update and waits for it to be applied. */
export async function approvePayoutWorkflow(temporal: TemporalClient, payoutId: string, arg: { keyId: string }): Promise<PayoutUpdateOutcome> {
  return update(() => temporal.workflow.getHandle(payoutId).executeUpdate(approveUpdate, { args: [arg] }));
}

/** Executes the `reject` Update and waits for it to be applied. */
export async function rejectPayoutWorkflow(
  temporal: TemporalClient,
  payoutId: string,
  arg: { keyId: string; reason: string | null },
): Promise<PayoutUpdateOutcome> {
  return update(() => temporal.workflow.getHandle(payoutId).executeUpdate(rejectUpdate, { args: [arg] }));
}

/** Sends Signal `screeningDecision` after the case's decision is committed, within the client call deadline; `not_running` when no open workflow has that id (the payout ended, or never started). */
export async function signalScreeningDecision(temporal: TemporalClient, payoutId: string, decision: ScreeningDecision): Promise<'sent' | 'not_running'> {
  try {
    await withCallDeadline(temporal, () => temporal.workflow.getHandle(payoutId).signal(screeningDecisionSignal, decision));
    return 'sent';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'not_running';
    throw err;
  }
}

/** Signals `screeningRecheck` to payout `payoutId` (screening available again); false when its workflow is gone. */
export async function signalScreeningRecheck(temporal: TemporalClient, payoutId: string): Promise<boolean> {
  try {
    await temporal.workflow.getHandle(payoutId).signal(screeningRecheckSignal);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Executes the `confirmPayee` Update (docs/payee-verification.md); Update id `confirm-payee:<payout id>`. */
export async function confirmPayeeWorkflow(temporal: TemporalClient, payoutId: string, arg: { keyId: string }): Promise<PayoutUpdateOutcome> {
  return update(() => temporal.workflow.getHandle(payoutId).executeUpdate(confirmPayeeUpdate, { args: [arg], updateId: `confirm-payee:${payoutId}` }));
}
