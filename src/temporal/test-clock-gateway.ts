/** The `testClockAdvance` Signal of the sandbox test clock (workflows/test-clock.contract.ts). */
import { WorkflowNotFoundError } from '@temporalio/client';
import { type TestClockAdvance, testClockAdvanceSignal } from '../../workflows/test-clock.contract';
import type { TemporalClient } from './client';

/** Signals `advance` to `workflowId`; false when it has no running execution, other errors throw. */
export async function signalTestClockAdvance(temporal: TemporalClient, workflowId: string, advance: TestClockAdvance): Promise<boolean> {
  try {
    await temporal.workflow.getHandle(workflowId).signal(testClockAdvanceSignal, advance);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
