/**
 * Workflows of the bench's bare baselines (tools/bench/index.ts), run by a worker inside the
 * bench process: the floor's no-op children (tools/floor/workflows.ts, the disbursement's shape),
 * `oneLocalActivity`, what a bare client starts in the POST /payouts baseline, and
 * `minimalPayout`, the least a durable payout can do (tools/bench/minimal-payout.ts starts it).
 */
import { proxyLocalActivities, sleep } from '@temporalio/workflow';

export { floorChild, floorParent } from '../floor/workflows';

/** Activities of the baseline worker (tools/bench/index.ts implements them). */
export interface BaselineActivities {
  /** Does nothing (the baseline's one local activity). */
  noop(): Promise<void>;
  /** Records the hold of minimal payout `id`: one UPDATE of its row (`status = 'held'`). */
  hold(id: string): Promise<void>;
  /** Records the settlement of minimal payout `id`: one UPDATE of its row (`status = 'settled'`). */
  settle(id: string): Promise<void>;
}

const { noop, hold, settle } = proxyLocalActivities<BaselineActivities>({ startToCloseTimeout: '10 seconds' });

/** One local activity, then done: the least a durable "accept a payout" could cost. */
export async function oneLocalActivity(): Promise<void> {
  await noop();
}

/**
 * The least a durable payout can cost (docs/benchmarks.md "The minimal payout floor"), line by line:
 * the hold is recorded (one local activity: one marker in the history, one UPDATE), the payout
 * waits durably for the rail (one timer of the sandbox arrival, `arrivalMs`), and the settlement is
 * recorded (one local activity). Nothing else: no search attributes, no events, no ledger.
 */
export async function minimalPayout(id: string, arrivalMs: number): Promise<void> {
  await hold(id);
  await sleep(arrivalMs);
  await settle(id);
}

/** Does nothing: what the bare client starts in the workflow-start floor of the Surface B batch. */
export async function minimalStart(): Promise<void> {}
