/**
 * The Temporal client call of the sandbox test clock (contract: workflows/test-clock.contract.ts):
 * the `testClockAdvance` Signal to one running workflow (a payout or a payment request).
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { type TestClockAdvance, testClockAdvanceSignal } from '../../workflows/test-clock.contract';
import type { TemporalClient } from './client';

/**
 * Signals `advance` to the workflow `workflowId`. Returns false when it has no running execution
 * (finished meanwhile, or not started yet: nothing waits on the clock there); other errors throw.
 */
export async function signalTestClockAdvance(temporal: TemporalClient, workflowId: string, advance: TestClockAdvance): Promise<boolean> {
  try {
    await temporal.workflow.getHandle(workflowId).signal(testClockAdvanceSignal, advance);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
