/**
 * Workflows of `npm run bench:floor` (tools/bench-temporal-floor.ts): the shape of a disbursement
 * with the payout work taken out. `floorParent` starts `count` children, `window` in flight at
 * most, continuing as new every `perRun` starts, exactly like workflows/disbursement.ts; each
 * `floorChild` returns at once (no activity), or upserts one search attribute twice when asked
 * (as a payout publishes PayoutStatus). What remains is the cost of a child workflow itself.
 * `npm run bench` also runs the same parent over durable-payout children (`child: 'minimalPayout'`).
 */
import {
  condition,
  continueAsNew,
  ParentClosePolicy,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';

import { SA } from '../../src/temporal/search-attributes';

/** The attribute a payout publishes its status in (registered by startDevServer). */
const STATUS = SA.PayoutStatus;

/** A child: returns at once, or after upserting the status attribute `upserts` times. */
export async function floorChild(upserts: number): Promise<void> {
  for (let i = 0; i < upserts; i++) upsertSearchAttributes([{ key: STATUS, value: `s${i}` }]);
}

/** Input of {@link floorParent}; `started` is carried across continue-as-new. */
export interface FloorParentInput {
  count: number;
  window: number;
  perRun: number;
  upserts: number;
  /**
   * The children: `floorChild` (default, no-op) or `minimalPayout` (tools/bench/workflows.ts, the
   * least a durable payout does: hold, a timer of `childArrivalMs`, settle; its id is its
   * `bench_minimal_payouts` row), which the worker must also register.
   */
  child?: 'floorChild' | 'minimalPayout';
  childArrivalMs?: number;
  started?: number;
}

/**
 * Starts `count` children (ids `<parent id>-<n>`), `window` at once, continue-as-new every
 * `perRun` starts once those starts are acknowledged. Children of an earlier run are not counted
 * in the window (the real workflow counts them in Postgres), which can only make this floor faster.
 */
export async function floorParent(input: FloorParentInput): Promise<number> {
  let started = input.started ?? 0;
  let inFlight = 0;
  let starting = 0;
  let thisRun = 0;
  const parentId = workflowInfo().workflowId;
  while (started < input.count) {
    if (thisRun >= input.perRun) {
      await condition(() => starting === 0);
      await continueAsNew<typeof floorParent>({ ...input, started });
    }
    await condition(() => inFlight < input.window);
    const n = started++;
    thisRun++;
    inFlight++;
    starting++;
    void (async () => {
      try {
        const workflowId = `${parentId}-${n}`;
        const child = await (
          input.child === 'minimalPayout'
            ? startChild('minimalPayout', { workflowId, args: [workflowId, input.childArrivalMs ?? 0], parentClosePolicy: ParentClosePolicy.ABANDON })
            : startChild(floorChild, { workflowId, args: [input.upserts], parentClosePolicy: ParentClosePolicy.ABANDON })
        ).finally(() => starting--);
        await child.result();
      } finally {
        inFlight--;
      }
    })();
  }
  await condition(() => inFlight === 0);
  return started;
}
