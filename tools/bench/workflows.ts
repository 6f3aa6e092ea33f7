/**
 * Workflows of the bench's bare baselines (tools/bench/index.ts), run by a worker inside the
 * bench process: the floor's no-op children (tools/floor/workflows.ts, the disbursement's shape)
 * and `oneLocalActivity`, what a bare client starts in the POST /payouts baseline.
 */
import { proxyLocalActivities } from '@temporalio/workflow';

export { floorChild, floorParent } from '../floor/workflows';

/** Activities of the baseline worker. */
export interface BaselineActivities {
  /** Does nothing (the baseline's one local activity). */
  noop(): Promise<void>;
}

const { noop } = proxyLocalActivities<BaselineActivities>({ startToCloseTimeout: '10 seconds' });

/** One local activity, then done: the least a durable "accept a payout" could cost. */
export async function oneLocalActivity(): Promise<void> {
  await noop();
}
