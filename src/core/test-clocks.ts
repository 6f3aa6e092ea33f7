/**
 * Sandbox test clocks (docs/test-clocks.md): a sandbox business moves time forward for its own
 * objects, so a tester sees a 30-day claim window, a payment request's expiry or an approval
 * timeout pass, or a webhook's next retry come, without waiting. This module owns the writes of
 * `test_clock_advances`.
 *
 * An advance is delivered to the workflows themselves (the `testClockAdvance` Signal,
 * workflows/test-clock.contract.ts): each ends the wait whose deadline the advance has passed and
 * does exactly what its real expiry does (the same activities, postings, events and webhooks).
 * Nothing here edits a row behind a workflow's back. The advance applies to the objects waiting
 * when it is made; an object created afterwards starts on real time.
 */
import { parseDuration } from '../domain/durations';
import { ApiError } from '../domain/errors';
import { newId } from '../domain/ids';
import { signalTestClockAdvance } from '../temporal/test-clock-gateway';
import type { Caller, Core } from './context';
import { ensureWorkflowStarted } from './workflow-starts';
import { callerActor, recordAuditEvent } from './audit';

/** Largest single advance: 400 days (a 30-day claim window, a year-long payment request). */
export const MAX_ADVANCE_MS = 400 * 24 * 3600 * 1000;

/** A business's test clock, as the core returns it. */
export interface TestClock {
  businessId: string;
  /** Real time plus every advance. */
  now: Date;
  /** Sum of the advances, in milliseconds. */
  advancedMs: number;
}

/** One advance and what it reached. */
export interface TestClockAdvanceResult {
  id: string;
  byMs: number;
  /** Running workflows that received the advance (payouts awaiting a claim or an approval, open payment requests, webhook deliveries waiting to retry). */
  workflowsSignaled: number;
  clock: TestClock;
}

function sandboxOnly(caller: Caller): void {
  // Live has no test clock: the route answers 404 there before this runs; this guards other callers.
  if (caller.environment !== 'sandbox') throw new ApiError(404, 'not_found', 'Test clocks exist only in the sandbox', null);
}

/** The caller's (sandbox) business clock. */
export async function getTestClock(core: Core, caller: Caller): Promise<TestClock> {
  sandboxOnly(caller);
  const row = await core.db
    .selectFrom('test_clock_advances')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('by_ms'), eb.lit(0)).as('total'))
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .executeTakeFirstOrThrow();
  const advancedMs = Number(row.total);
  return { businessId: caller.businessId, now: new Date(core.now().getTime() + advancedMs), advancedMs };
}

/**
 * Moves the caller's sandbox clock forward by `by` (an ISO 8601 duration, `PT1S`..`P400D`), then
 * signals every running workflow of the business with a clock-sensitive wait. Throws ApiError 400
 * `validation_error` (param `by`) for a duration that does not parse or is out of range. A signal
 * that fails for another reason than a finished workflow throws after the advance is recorded;
 * calling again with a new advance brings the waits forward by the sum (an advance id is applied
 * once per workflow).
 */
export async function advanceTestClock(core: Core, caller: Caller, input: { by: string }): Promise<TestClockAdvanceResult> {
  sandboxOnly(caller);
  let byMs: number;
  try {
    byMs = parseDuration(input.by);
  } catch {
    throw new ApiError(400, 'validation_error', 'by must be an ISO 8601 duration such as P31D or PT2H', 'by');
  }
  if (!(byMs >= 1000 && byMs <= MAX_ADVANCE_MS)) {
    throw new ApiError(400, 'validation_error', 'by must be between PT1S and P400D', 'by');
  }
  const id = newId('tca');
  const before = await getTestClock(core, caller);
  await core.db.transaction().execute(async (tx) => {
    await tx
      .insertInto('test_clock_advances')
      .values({ id, business_id: caller.businessId, environment: caller.environment, by_ms: BigInt(byMs), workflows_signaled: 0, created_at: core.now() })
      .execute();
    await recordAuditEvent(
      tx,
      {
        businessId: caller.businessId,
        environment: caller.environment,
        ...callerActor(caller),
        action: 'test_clock.advanced',
        objectType: 'test_clock_advance',
        objectId: id,
        before: { ...before },
        after: { by: input.by, by_ms: byMs },
      },
      core.now(),
    );
  });
  const [payouts, requests, deliveries] = await Promise.all([
    core.db
      .selectFrom('payouts')
      .select('id')
      .where('business_id', '=', caller.businessId)
      .where('environment', '=', caller.environment)
      // A claim link just created is still `submitted` until its workflow opens the claim: it
      // takes the advance too, which its claim window then counts (workflows/payout.ts waitBegins).
      .where((eb) => eb.or([eb('status', 'in', ['pending', 'awaiting_claim']), eb.and([eb('status', '=', 'submitted'), eb('channel', '=', 'claim_link')])]))
      .execute(),
    core.db
      .selectFrom('payment_requests')
      .select('id')
      .where('business_id', '=', caller.businessId)
      .where('environment', '=', caller.environment)
      .where('status', '=', 'open')
      .execute(),
    // Webhook deliveries still retrying; re-send n runs as workflow `<id>.r<n>` (src/core/webhook-deliveries.ts).
    core.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'retry_count'])
      .where('business_id', '=', caller.businessId)
      .where('environment', '=', caller.environment)
      .where('status', '=', 'pending')
      .execute(),
  ]);
  const ids = [
    ...payouts.map((p) => p.id),
    ...requests.map((r) => r.id),
    ...deliveries.map((d) => (d.retry_count > 0 ? `${d.id}.r${d.retry_count}` : d.id)),
  ];
  let signaled = 0;
  // A few at a time: a business may have thousands of waiting claim links.
  for (let i = 0; i < ids.length; i += 50) {
    const results = await Promise.all(
      ids.slice(i, i + 50).map(async (workflowId) => {
        const signal = () => signalTestClockAdvance(core.temporal, workflowId, { advanceId: id, byMs });
        // A payout accepted a moment ago may not be started yet (its start is handed off after
        // commit, src/core/workflow-starts.ts): make its start, then signal it.
        return (await signal()) || ((await ensureWorkflowStarted(core, workflowId)) && signal());
      }),
    );
    signaled += results.filter(Boolean).length;
  }
  await core.db.updateTable('test_clock_advances').set({ workflows_signaled: signaled }).where('id', '=', id).execute();
  core.log.info({ businessId: caller.businessId, advanceId: id, byMs, signaled }, 'sandbox test clock advanced');
  return { id, byMs, workflowsSignaled: signaled, clock: await getTestClock(core, caller) };
}
