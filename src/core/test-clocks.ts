/**
 * Sandbox test clocks (docs/test-clocks.md); owns `test_clock_advances`. An advance is a Signal to
 * the business's waiting workflows, which do exactly what the real expiry does; nothing here edits
 * a row behind a workflow's back.
 */
import { parseDuration } from '../domain/durations';
import { ApiError } from '../domain/errors';
import { newId } from '../domain/ids';
import { signalTestClockAdvance } from '../temporal/test-clock-gateway';
import type { Caller, Core } from './context';
import { ensureWorkflowStarted } from './workflow-starts';
import { callerActor, recordAuditEvent } from './audit';
import { scoped } from './tenancy';

export const MAX_ADVANCE_MS = 400 * 24 * 3600 * 1000;

export interface TestClock {
  businessId: string;
  /** Real time plus every advance. */
  now: Date;
  advancedMs: number;
}

export interface TestClockAdvanceResult {
  id: string;
  byMs: number;
  /** Running workflows that received the advance. */
  workflowsSignaled: number;
  clock: TestClock;
}

function sandboxOnly(caller: Caller): void {
  if (caller.environment !== 'sandbox') throw new ApiError(404, 'not_found', 'Test clocks exist only in the sandbox', null);
}

export async function getTestClock(core: Core, caller: Caller): Promise<TestClock> {
  sandboxOnly(caller);
  const row = await scoped(core.db, caller)
    .selectFrom('test_clock_advances')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('by_ms'), eb.lit(0)).as('total'))
    .executeTakeFirstOrThrow();
  const advancedMs = Number(row.total);
  return { businessId: caller.businessId, now: new Date(core.now().getTime() + advancedMs), advancedMs };
}

/**
 * Moves the caller's sandbox clock forward by `by` (ISO 8601, `PT1S`..`P400D`) and signals every
 * clock-sensitive workflow of the business (once per advance id). 400 validation_error (param `by`).
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
    scoped(core.db, caller)
      .selectFrom('payouts')
      .select('id')
      // A claim link just created is still `submitted` until its workflow opens the claim.
      .where((eb) => eb.or([eb('status', 'in', ['pending', 'awaiting_claim']), eb.and([eb('status', '=', 'submitted'), eb('channel', '=', 'claim_link')])]))
      .execute(),
    scoped(core.db, caller)
      .selectFrom('payment_requests')
      .select('id')
      .where('status', '=', 'open')
      .execute(),
    // Webhook deliveries still retrying; re-send n runs as workflow `<id>.r<n>` (src/core/webhook-deliveries.ts).
    scoped(core.db, caller)
      .selectFrom('webhook_deliveries')
      .select(['id', 'retry_count'])
      .where('status', '=', 'pending')
      .execute(),
  ]);
  const ids = [
    ...payouts.map((p) => p.id),
    ...requests.map((r) => r.id),
    ...deliveries.map((d) => (d.retry_count > 0 ? `${d.id}.r${d.retry_count}` : d.id)),
  ];
  let signaled = 0;
  for (let i = 0; i < ids.length; i += 50) {
    const results = await Promise.all(
      ids.slice(i, i + 50).map(async (workflowId) => {
        const signal = () => signalTestClockAdvance(core.temporal, workflowId, { advanceId: id, byMs });
        // A payout accepted a moment ago may not be started yet (src/core/workflow-starts.ts).
        return (await signal()) || ((await ensureWorkflowStarted(core, workflowId)) && signal());
      }),
    );
    signaled += results.filter(Boolean).length;
  }
  await core.db.updateTable('test_clock_advances').set({ workflows_signaled: signaled }).where('id', '=', id).execute();
  core.log.info({ businessId: caller.businessId, advanceId: id, byMs, signaled }, 'sandbox test clock advanced');
  return { id, byMs, workflowsSignaled: signaled, clock: await getTestClock(core, caller) };
}
