/**
 * payoutWorkflow: the lifecycle of one payout (spec "Payout status"; src/domain/payout-state.ts;
 * docs/architecture.md "Workflow ids and task queues"). Workflow id = payout id. Pure orchestration: every read and
 * write is an activity (activities/payouts.ts), every wait a durable timer.
 *
 * Direct channels:  submitted -> delivering -> rail attempt 1..3 (retryable failures wait the
 *                   rail's backoff: 1 s, 2 s in the sandbox) -> succeeded (settle) | failed (release)
 *                   (the move to delivering and attempt 1 are one local activity)
 *                   and, if the provider returns the funds later, succeeded -> refunded (refund).
 *                   A rail that confirms arrival later is waited for with a durable timer; one that
 *                   confirms in the call (arrivalMs 0, instant rails) settles in the same task.
 * claim_link:       submitted -> awaiting_claim (claim link, 30-day window) -> on the `claim`
 *                   Update: claimed -> delivering -> the same delivery path; without a claim in the
 *                   window: failed with claim_expired (release); on the `cancel` Update: canceled.
 *                   Started with `notify` (Surface C delivery channel), the notification step runs
 *                   once the link is open (activity `payoutNotify`, retried; see notifyRecipient).
 *
 * Messages (defined in workflows/payout.contract.ts): query `status`; Update `claim` ({method}) ->
 * 'claimed', accepted only while awaiting_claim; Update `cancel` -> 'canceled', accepted only while
 * pending or awaiting_claim. The search attribute PayoutStatus follows every transition: it is
 * upserted once per workflow task, before each wait and at the end, with the status reached. It
 * lags the projection only while one workflow task runs its local activities (at most the rail
 * call's timeout); a payout that settles at once costs one upsert instead of three (each costs the
 * server about 2-3 ms of CPU, `npm run bench:floor`).
 *
 * Every step of the run itself is a local activity (short, idempotent Postgres transactions and
 * the rail's submit call, which carries the attempt's idempotency key): a payout that settles at
 * once costs one workflow task. Long waits (arrival, retry backoff, the claim window) are durable
 * timers. The effect of an Update (claim, cancel, approve, reject) is a regular activity, so that
 * it can only follow the Update's durable acceptance (see `updateActs`).
 */
import type { RetryPolicy } from '@temporalio/common';
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { PayoutStatus } from '../src/domain/payout-state';
import {
  approveUpdate,
  cancelUpdate,
  rejectUpdate,
  CLAIM_METHODS,
  claimUpdate,
  ILLEGAL_PAYOUT_TRANSITION,
  MAX_DELIVERY_ATTEMPTS,
  NOTIFICATION_NOT_DELIVERABLE,
  type PayoutActivities,
  type PayoutNotificationActivities,
  type PayoutWorkflowInput,
  type PayoutRailEvent,
  type PayoutWorkflowResult,
  type RailAttemptResult,
  railEventSignal,
  statusQuery,
} from './payout.contract';
import { SA } from './search-attributes.contract';
import { installTestClock } from './shared/test-clock';

const retry: RetryPolicy = {
  initialInterval: '500 milliseconds',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  nonRetryableErrorTypes: [ILLEGAL_PAYOUT_TRANSITION],
};

/**
 * Every step runs as a local activity: projection steps are one short Postgres transaction each,
 * the rail step is one provider call keyed by (payout, attempt) so a retry never pays twice. No
 * server round trip per step (measured in docs/benchmarks.md); retried like any activity.
 */
const acts = proxyLocalActivities<PayoutActivities>({ startToCloseTimeout: '30 seconds', retry });

/**
 * The effect of an Update (claim, cancel, approve, reject) runs as a regular activity, never a
 * local one. An Update arrives on a speculative workflow task, which leaves no trace in history if
 * it is lost (worker SIGKILLed, task timed out) and whose Update the server may then drop; a local
 * activity run in it would commit its transition in PostgreSQL all the same, leaving the row ahead
 * of a run that never heard of the Update (found by `npm run chaos`, docs/chaos.md "What it
 * found"). A regular activity is scheduled by the task that records the Update as accepted, so its
 * effect can only follow a durable acceptance. Its timeout is short (one short transaction): an
 * attempt lost with its worker is retried after 10 s while the caller waits.
 */
const updateActs = proxyActivities<PayoutActivities>({ startToCloseTimeout: '10 seconds', retry });
/** Runs started before Update effects became regular activities replay them as local ones. */
const UPDATE_EFFECTS_AS_ACTIVITIES = 'update-effects-as-activities';
const updateEffects = () => (patched(UPDATE_EFFECTS_AS_ACTIVITIES) ? updateActs : acts);

/**
 * The move to delivering and the first rail attempt are one local activity (issue #23):
 * payoutTransition to delivering with `deliverAttempt: 1`, whose result carries the rail's answer
 * as `attempt`. Nothing durable happens between the two, so one marker and one activation instead
 * of two. Versioned by the recorded result, not by `patched()`: a run whose move was recorded
 * before (the same activity type, the result without `attempt`) makes the attempt with
 * payoutRailAttempt as it did, so its replay issues the same commands; a new run's replay reads
 * `attempt` from its own marker. `patched()` would have cost every new payout a marker and a
 * TemporalChangeVersion search-attribute upsert (measured: 15 -> 16 history events, 2 -> 3
 * upserts). test/workflows/payout-replay.test.ts replays histories of both.
 */
const DELIVER_ATTEMPT_WITH_MOVE = 1;

/**
 * When an approval or claim wait begins, in ms: the workflow's real time, so a sandbox test-clock
 * advance that reached the run before its wait began (a moment after creation) still counts
 * towards the deadline (docs/test-clocks.md). Runs that began such a wait before this patch keep the
 * business clock they computed their deadline from (which had that advance in it already).
 */
const DEADLINE_FROM_REAL_TIME = 'test-clock-deadline-from-real-time';
const waitBegins = (clock: { now(): number }): number => (patched(DEADLINE_FROM_REAL_TIME) ? Date.now() : clock.now());

/**
 * The notification step (claim links started with `notify`): a regular activity, since it calls a
 * provider, retried with backoff for up to an hour; each call carries the notification id as the
 * provider's idempotency key (docs/surface-c.md "Notifications"). Giving up is recorded on the
 * notification by a local activity; the payout keeps waiting for its claim either way.
 */
const notifyActs = proxyActivities<PayoutNotificationActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', nonRetryableErrorTypes: [NOTIFICATION_NOT_DELIVERABLE] },
});
const notifyLocal = proxyLocalActivities<PayoutNotificationActivities>({ startToCloseTimeout: '30 seconds', retry });

/** Runs the notification step; a final failure is recorded on the notification, never thrown. */
async function notifyRecipient(payoutId: string): Promise<void> {
  try {
    await notifyActs.payoutNotify({ payoutId });
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    const error = err.cause?.message ?? err.message;
    await notifyLocal.payoutNotificationFailed({ payoutId, error });
  }
}

/** The payout lifecycle (see the file header). */
export async function payoutWorkflow(input: PayoutWorkflowInput): Promise<PayoutWorkflowResult> {
  const { payoutId } = input;
  /** The business's test clock (sandbox; docs/test-clocks.md): the approval and claim waits follow it. */
  const clock = installTestClock();
  let status = (input.approval ? 'pending' : 'submitted') as PayoutStatus;
  /** The PayoutStatus search attribute as last upserted (the start set the row's status). */
  let published: PayoutStatus = status;
  /** The approval decision of a payout above its key's approval_threshold, taken synchronously. */
  let approval: 'approved' | 'rejected' | 'expired' | null = null;
  /** A decision that ends the claim wait, taken synchronously so validators see it at once. */
  let decision: 'claim' | 'cancel' | 'expire' | null = null;

  const setStatus = (s: PayoutStatus) => {
    status = s;
  };
  /** Upserts PayoutStatus if it changed; called before every wait and at the end (see header). */
  const publish = () => {
    if (published === status) return;
    published = status;
    upsertSearchAttributes([{ key: SA.PayoutStatus, value: status }]);
  };
  /** A durable timer, with the status published first. */
  const wait = (ms: number) => {
    publish();
    return sleep(ms);
  };
  const enter = async (to: PayoutStatus, extra: Omit<Parameters<PayoutActivities['payoutTransition']>[0], 'payoutId' | 'to'> = {}) => {
    const r = await acts.payoutTransition({ payoutId, to, ...extra });
    setStatus(r.status);
  };
  /** `enter` for an Update handler (see `updateActs`). */
  const enterFromUpdate = async (to: PayoutStatus, extra: Omit<Parameters<PayoutActivities['payoutTransition']>[0], 'payoutId' | 'to'> = {}) => {
    const r = await updateEffects().payoutTransition({ payoutId, to, ...extra });
    setStatus(r.status);
  };

  /**
   * A claim link whose window is being opened: its row may already say awaiting_claim (the local
   * activity committed) while this run is still `submitted`, so a claim or cancel that read the row
   * is accepted and applied as soon as the window is open.
   */
  const opening = () => input.channel === 'claim_link' && status === 'submitted';

  setHandler(statusQuery, () => status);
  /** Rail events not yet applied (Signal `railEvent`, or read back by payoutRailStatus), and those applied. */
  const railEvents: PayoutRailEvent[] = [];
  const appliedRailEvents = new Set<string>();
  const queueRailEvent = (e: PayoutRailEvent) => {
    if (!appliedRailEvents.has(e.id) && !railEvents.some((x) => x.id === e.id)) railEvents.push(e);
  };
  setHandler(railEventSignal, queueRailEvent);
  setHandler(
    claimUpdate,
    async ({ method }): Promise<PayoutStatus> => {
      decision = 'claim';
      // Accepted while the claim window is still being opened (see `opening`): wait until it is.
      await condition(() => status !== 'submitted');
      if (status !== 'awaiting_claim' && status !== 'claimed' && status !== 'delivering') {
        decision = null;
        throw ApplicationFailure.nonRetryable(`payout is ${status}, not awaiting_claim`, 'PayoutNotAwaitingClaim');
      }
      try {
        await enterFromUpdate('claimed', { claimMethod: method });
      } catch (err) {
        decision = null;
        throw err;
      }
      // The row may already be past claimed (a lost task's claim replayed): report where it is.
      const now = status as PayoutStatus; // `enter` changed it
      if (now === 'failed' || now === 'canceled') {
        decision = null;
        throw ApplicationFailure.nonRetryable(`payout is ${now}, not awaiting_claim`, 'PayoutNotAwaitingClaim');
      }
      return 'claimed';
    },
    {
      validator: (arg) => {
        if ((status !== 'awaiting_claim' && !opening()) || decision !== null) throw new Error(`payout is ${status}, not awaiting_claim`);
        if (!arg || !(CLAIM_METHODS as readonly string[]).includes(arg.method)) {
          throw new Error(`method must be one of: ${CLAIM_METHODS.join(', ')}`);
        }
      },
    },
  );
  setHandler(
    cancelUpdate,
    async (): Promise<PayoutStatus> => {
      decision = 'cancel';
      await condition(() => status !== 'submitted' || !opening());
      if (status !== 'pending' && status !== 'awaiting_claim') {
        decision = null;
        throw ApplicationFailure.nonRetryable(`payout is ${status}; only pending or awaiting_claim payouts can be canceled`, 'PayoutNotCancelable');
      }
      try {
        await enterFromUpdate('canceled');
      } catch (err) {
        decision = null;
        throw err;
      }
      return 'canceled';
    },
    {
      validator: () => {
        if ((status !== 'pending' && status !== 'awaiting_claim' && !opening()) || decision !== null) {
          throw new Error(`payout is ${status}; only pending or awaiting_claim payouts can be canceled`);
        }
      },
    },
  );

  const finish = async (): Promise<PayoutWorkflowResult> => {
    publish();
    await condition(allHandlersFinished);
    publish();
    return { payoutId, status };
  };

  /** Outcome of a phase: `done` ends the run (the payout reached a final state), `next` goes on. */
  type Phase = 'done' | 'next';

  /**
   * Approval (docs/getting-paid.md "Key policies"): held and pending until another key decides,
   * or the approval timeout passes (canceled, hold released).
   */
  const approvalPhase = async (approvalInput: { timeoutMs: number }): Promise<Phase> => {
    // docs/getting-paid.md "Key policies": held and pending until another key decides, or timeout.
    const decide = async (d: 'approved' | 'rejected', keyId: string, reason?: string | null): Promise<PayoutStatus> => {
      approval = d;
      try {
        const r = await updateEffects().payoutApprovalDecide({ payoutId, decision: d, keyId, reason: reason ?? null });
        setStatus(r.status);
        return r.status;
      } catch (err) {
        approval = null;
        throw err;
      }
    };
    const pendingOnly = (_arg: unknown) => {
      if (status !== 'pending' || approval !== null || decision !== null) throw new Error(`payout is ${status}, not awaiting approval`);
    };
    setHandler(approveUpdate, ({ keyId }) => decide('approved', keyId), { validator: pendingOnly });
    setHandler(rejectUpdate, ({ keyId, reason }) => decide('rejected', keyId, reason), { validator: pendingOnly });
    const deadline = waitBegins(clock) + approvalInput.timeoutMs;
    for (;;) {
      const remaining = deadline - clock.now();
      publish();
      if (approval === null && decision === null && remaining > 0) {
        const v = clock.version();
        await condition(() => approval !== null || decision !== null || clock.version() !== v, remaining);
        // Woken by a test-clock advance that has not reached the deadline: wait for the rest.
        if (approval === null && decision === null && clock.version() !== v && deadline - clock.now() > 0) continue;
      }
      if (approval === null && decision === null) {
        approval = 'expired';
        const r = await acts.payoutApprovalDecide({ payoutId, decision: 'expired' });
        setStatus(r.status);
        return 'done';
      }
      // The Update handler (or a cancel) is applying the decision; it resets its flag if it fails.
      await condition(() => status !== 'pending' || (approval === null && decision === null));
      if (status !== 'pending') break;
    }
    if (status !== 'submitted') return 'done';
    return 'next';
  };

  /**
   * Claim (claim_link): the link is opened (and the recipient notified) and the run waits for the
   * `claim` or `cancel` Update until the window closes (claim_expired, hold released).
   */
  const claimPhase = async (): Promise<Phase> => {
    const { claimWindowMs } = await acts.payoutOpenClaim({ payoutId });
    setStatus('awaiting_claim');
    const deadline = waitBegins(clock) + claimWindowMs;
    if (input.notify) await notifyRecipient(payoutId);
    for (;;) {
      const remaining = deadline - clock.now();
      publish();
      if (decision === null && remaining > 0) {
        const v = clock.version();
        await condition(() => decision !== null || clock.version() !== v, remaining);
        // Woken by a test-clock advance that has not reached the deadline: wait for the rest.
        if (decision === null && clock.version() !== v && deadline - clock.now() > 0) continue;
      }
      if (decision === null) {
        decision = 'expire';
        await enter('failed', {
          failure: { code: 'claim_expired', message: 'The recipient did not claim the payout in time; the funds were returned' },
          onlyFrom: ['awaiting_claim'],
        });
        if (status === 'failed' || status === 'canceled') return 'done';
        // The row moved on without this run (a claim applied by a lost workflow task): deliver it.
        decision = 'claim';
        break;
      }
      // A claim or cancel is being applied by its Update handler; it resets `decision` if it fails.
      publish();
      await condition(() => status !== 'awaiting_claim' || decision === null);
      // Moved on: claimed, canceled, or (a claim replayed after a lost task had already delivered
      // and failed it) a final row that the refused Update reported. Only a handler that failed
      // and left the row awaiting_claim keeps the window open.
      if (status !== 'awaiting_claim') break;
    }
    if (status === 'canceled' || status === 'failed' || status === 'refunded') return 'done';
    return 'next';
  };

  /**
   * The rail's answer to an attempt it `accepted` (a bank file rail; docs/rails.md "How a payout
   * waits for its rail"): rail events arrive as the `railEvent` Signal; past `deadlineMs` without
   * one the run asks the rail (payoutRailStatus, which also raises the operator alert) and keeps
   * waiting. settled -> succeeded (delivered_at = the booking time); then, while a return can still
   * come (returnWindowMs), returned -> refunded. rejected -> failed with the mapped failure code
   * and the rail's reason code (hold released).
   */
  const awaitRailAnswer = async (attempt: number, r: Extract<RailAttemptResult, { outcome: 'accepted' }>): Promise<void> => {
    const attemptRecord = { number: attempt, providerReference: r.providerReference };
    const pending = () => railEvents.some((e) => e.attempt === attempt);
    const acceptedAt = Date.now();
    let settled = false;
    let deadline = acceptedAt + r.deadlineMs;
    for (;;) {
      publish();
      if (!pending() && !(await condition(pending, Math.max(1, deadline - Date.now())))) {
        if (settled) return; // the return window closed: the payout stays succeeded
        for (const e of await acts.payoutRailStatus({ payoutId, attempt, overdueMs: Date.now() - acceptedAt })) queueRailEvent(e);
        if (!pending()) {
          deadline = Date.now() + r.deadlineMs;
          continue;
        }
      }
      const e = railEvents.splice(railEvents.findIndex((x) => x.attempt === attempt), 1)[0]!;
      appliedRailEvents.add(e.id);
      if (e.type === 'accepted') continue;
      if (e.type === 'rejected') {
        if (settled) continue;
        const failure = e.failure ?? { code: 'provider_declined' as const, message: 'The rail rejected the payment', retryable: false, railReasonCode: null };
        await enter('failed', {
          failure,
          providerReference: r.providerReference,
          attempt: { ...attemptRecord, status: 'failed', errorCode: failure.railReasonCode ?? failure.code, errorMessage: failure.message },
        });
        return;
      }
      if (!settled) {
        // settled, or returned (which implies it was booked first).
        await enter('succeeded', { providerReference: r.providerReference, deliveredAt: e.at, attempt: { ...attemptRecord, status: 'succeeded' } });
        settled = true;
        if (status !== 'succeeded') return;
        deadline = Date.now() + r.returnWindowMs;
      }
      if (e.type === 'returned') {
        const failure = e.failure ?? { code: 'refunded_by_provider' as const, message: 'The bank returned the funds', retryable: false, railReasonCode: null };
        await enter('refunded', { failure });
        return;
      }
      if (r.returnWindowMs <= 0) return;
    }
  };

  /**
   * Delivery: attempts through the rail (the registry in src/core/rails picks its adapter) until
   * the payout succeeds, fails for good, or is refunded.
   */
  const deliveryPhase = async (): Promise<void> => {
    // The move and attempt 1 in one local activity (see DELIVER_ATTEMPT_WITH_MOVE); `first` is
    // undefined in a run recorded before, which makes attempt 1 with payoutRailAttempt.
    const moved = await acts.payoutTransition({ payoutId, to: 'delivering', deliverAttempt: DELIVER_ATTEMPT_WITH_MOVE });
    setStatus(moved.status);
    const first = moved.attempt;
    // A replayed move can find the row already final (a lost task applied it): nothing to deliver.
    if (status === 'failed' || status === 'canceled' || status === 'refunded') return;
    for (let attempt = 1; ; attempt++) {
      const r = attempt === DELIVER_ATTEMPT_WITH_MOVE && first ? first : await acts.payoutRailAttempt({ payoutId, attempt });
      if (r.ok && r.outcome === 'accepted') {
        // A rail that reports later (a bank file rail): wait for its events.
        await awaitRailAnswer(attempt, r);
        return;
      }
      if (r.ok) {
        // Wait for the rail to confirm arrival (durable timer: survives worker restarts).
        if (r.arrivalMs > 0) await wait(r.arrivalMs);
        await enter('succeeded', {
          providerReference: r.providerReference,
          attempt: { number: attempt, status: 'succeeded', providerReference: r.providerReference },
        });
        if (r.refundAfterMs !== undefined) {
          await wait(r.refundAfterMs);
          await enter('refunded', { failure: { code: 'refunded_by_provider', message: r.refundMessage ?? 'The provider returned the funds' } });
        }
        return;
      }
      const attemptResult = {
        number: attempt,
        status: 'failed' as const,
        providerReference: r.providerReference,
        errorCode: r.errorCode,
        errorMessage: r.message,
      };
      if (!r.retryable || attempt >= MAX_DELIVERY_ATTEMPTS) {
        const failure = {
        code: r.errorCode,
        message: r.message,
        // The rail's own reason code (documented failure extensions), when the seam gave one.
        ...(r.railReasonCode ? { retryable: r.retryable, railReasonCode: r.railReasonCode } : {}),
      };
        await enter('failed', { failure, providerReference: r.providerReference, attempt: attemptResult });
        return;
      }
      await acts.payoutAttemptResult({ payoutId, ...attemptResult });
      await wait(r.retryAfterMs);
    }
  };

  if (input.approval && (await approvalPhase(input.approval)) === 'done') return finish();
  if (input.channel === 'claim_link' && (await claimPhase()) === 'done') return finish();
  await deliveryPhase();
  return finish();
}
