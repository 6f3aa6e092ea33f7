/**
 * payoutWorkflow: one payout's lifecycle (spec "Payout status"; docs/payouts.md), workflow id = payout
 * id, in phases: approval, claim (claim_link), delivery. Determinism contract: every step is a local
 * activity, an Update's effect a regular one, every wait a durable timer or `condition`; PayoutStatus
 * is upserted only before a wait and at the end. Recorded histories replay (test/workflows/workflow-histories.test.ts).
 */
import type { RetryPolicy } from '@temporalio/common';
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  CancelledFailure,
  condition,
  deprecatePatch,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  TemporalFailure,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { PayoutStatus } from '../src/domain/payout-state';
import {
  approveUpdate,
  cancelUpdate,
  CLAIM_METHODS,
  type ClaimMethod,
  claimUpdate,
  confirmPayeeUpdate,
  ILLEGAL_PAYOUT_TRANSITION,
  MAX_DELIVERY_ATTEMPTS,
  NOTIFICATION_NOT_DELIVERABLE,
  type PayoutActivities,
  type PayoutCheckActivities,
  type PayoutNotificationActivities,
  type PayoutRailEvent,
  type PayoutTransitionInput,
  type PayoutWorkflowInput,
  type PayoutWorkflowResult,
  type RailAttemptResult,
  railEventSignal,
  rejectUpdate,
  type ScreeningDecision,
  screeningDecisionSignal,
  screeningRecheckSignal,
  statusQuery,
} from './payout.contract';
import { SA } from './search-attributes.contract';
import { installTestClock, type TestClock } from './shared/test-clock';

const retry: RetryPolicy = {
  initialInterval: '500 milliseconds',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  nonRetryableErrorTypes: [ILLEGAL_PAYOUT_TRANSITION],
};

/** The run's steps: short idempotent transactions and the rail call keyed by (payout, attempt). */
const acts = proxyLocalActivities<PayoutActivities>({ startToCloseTimeout: '30 seconds', retry });

/** The checks phase's steps (screening, Verification of Payee): local activities, idempotent per payout. */
const checkActs = proxyLocalActivities<PayoutCheckActivities>({ startToCloseTimeout: '30 seconds', retry });
/** The business's payee decision, an Update's effect: a regular activity, as {@link updateActs}. */
const checkUpdateActs = proxyActivities<PayoutCheckActivities>({ startToCloseTimeout: '10 seconds', retry });

/** An Update's effect: a regular activity, scheduled only by the task that durably accepted the Update. */
const updateActs = proxyActivities<PayoutActivities>({ startToCloseTimeout: '10 seconds', retry });
/**
 * Versioning: runs that accepted an Update before this patch replay its effect as a local activity.
 * Retirement date 2027-01-22 (landed 2026-11-23, plus 30 days of approval wait, plus the 30-day claim
 * window): then deprecatePatch, then removed (docs/operations.md "Retiring a workflow patch").
 */
const updateEffects = (input: PayoutWorkflowInput) => (input.patchLevel || patched('update-effects-as-activities') ? updateActs : acts);

/**
 * Versioning without a marker: the move to delivering makes attempt 1; a result recorded without
 * `attempt` makes it with `payoutRailAttempt`, as that run did.
 */
const DELIVER_ATTEMPT_WITH_MOVE = 1;

/**
 * When an approval or claim wait begins, in ms (docs/test-clocks.md). Retired patch
 * `test-clock-deadline-from-real-time` (docs/operations.md "Retiring a workflow patch"): its old path
 * differed only after a sandbox test-clock advance, so a run without `patchLevel` records its marker
 * through `deprecatePatch`; remove the call on or after 2027-01-24 (landed 2026-11-25, plus 60 days).
 */
const waitBegins = (run: PayoutRun): number => {
  if (!run.input.patchLevel) deprecatePatch(TEST_CLOCK_DEADLINE_FROM_REAL_TIME);
  return Date.now();
};
const TEST_CLOCK_DEADLINE_FROM_REAL_TIME = 'test-clock-deadline-from-real-time';

/** The notification step: a provider call, retried up to an hour; its id is the provider's idempotency key. */
const notifyActs = proxyActivities<PayoutNotificationActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', nonRetryableErrorTypes: [NOTIFICATION_NOT_DELIVERABLE] },
});
const notifyLocal = proxyLocalActivities<PayoutNotificationActivities>({ startToCloseTimeout: '30 seconds', retry });
/** The notification's first attempt, in the workflow task (no activity task); a retryable failure goes on as notifyActs. */
const notifyLocalAttempt = proxyLocalActivities<PayoutNotificationActivities>({ startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 1 } });

/** With `statusUpserts: 'long-waits'`, a wait shorter than this publishes no PayoutStatus (ms). */
const SHORT_WAIT_MS = 60_000;

type TransitionExtra = Omit<PayoutTransitionInput, 'payoutId' | 'to'>;
/** Outcome of a phase: `done` ends the run (the payout reached a final state), `next` goes on. */
type Phase = 'done' | 'next';
const isFinal = (s: PayoutStatus) => s === 'failed' || s === 'canceled' || s === 'refunded';

/**
 * One run's state, shared by its phases and message handlers (the safe-message-handlers shape).
 * An Update takes `decision` or `approval` synchronously, for validators; it resets it if its effect fails.
 */
class PayoutRun {
  status: PayoutStatus;
  private published: PayoutStatus;
  approval: 'approved' | 'rejected' | 'expired' | null = null;
  decision: 'claim' | 'cancel' | 'expire' | null = null;
  /** What the checks phase holds the payout for, if anything (docs/screening.md "Holding payouts"). */
  hold: 'screening_unavailable' | 'screening_review' | 'payee_confirmation' | null = null;
  /** Operators' decisions by case id (Signal `screeningDecision`), the first per case kept. */
  readonly screeningDecisions = new Map<string, ScreeningDecision>();
  /** Signal `screeningRecheck` arrived since the last screening. */
  recheck = false;
  /** The business's answer to a payee confirmation; `expired` when its window passed first. */
  payee: 'confirmed' | 'expired' | null = null;
  /** Rail events received and not yet applied (Signal `railEvent` or `payoutRailStatus`). */
  private readonly railEvents: PayoutRailEvent[] = [];
  private readonly appliedRailEvents = new Set<string>();

  constructor(
    readonly input: PayoutWorkflowInput,
    readonly clock: TestClock,
  ) {
    this.status = input.approval ? 'pending' : 'submitted';
    this.published = this.status;
  }

  get payoutId(): string {
    return this.input.payoutId;
  }

  publish(): void {
    if (this.published === this.status) return;
    this.published = this.status;
    upsertSearchAttributes([{ key: SA.PayoutStatus, value: this.status }]);
  }

  /** A durable timer of `ms`, the status published first unless the run publishes long waits only. */
  wait(ms: number): Promise<void> {
    if (this.input.statusUpserts !== 'long-waits' || ms >= SHORT_WAIT_MS) this.publish();
    return sleep(ms);
  }

  async enter(to: PayoutStatus, extra: TransitionExtra = {}, via: PayoutActivities = acts): Promise<void> {
    this.status = (await via.payoutTransition({ payoutId: this.payoutId, to, ...extra })).status;
  }

  /** A claim link whose window is being opened: its row may already say awaiting_claim. */
  opening(): boolean {
    return this.input.channel === 'claim_link' && this.status === 'submitted';
  }

  queueRailEvent(e: PayoutRailEvent): void {
    if (!this.appliedRailEvents.has(e.id) && !this.railEvents.some((x) => x.id === e.id)) this.railEvents.push(e);
  }

  hasRailEvent(attempt: number): boolean {
    return this.railEvents.some((e) => e.attempt === attempt);
  }

  /** Removes and returns the oldest event for `attempt` (call after {@link hasRailEvent}). */
  takeRailEvent(attempt: number): PayoutRailEvent {
    const e = this.railEvents.splice(this.railEvents.findIndex((x) => x.attempt === attempt), 1)[0]!;
    this.appliedRailEvents.add(e.id);
    return e;
  }

  validateClaim(arg: { method: ClaimMethod } | undefined): void {
    if ((this.status !== 'awaiting_claim' && !this.opening()) || this.decision !== null) throw new Error(`payout is ${this.status}, not awaiting_claim`);
    if (!arg || !(CLAIM_METHODS as readonly string[]).includes(arg.method)) throw new Error(`method must be one of: ${CLAIM_METHODS.join(', ')}`);
  }

  /** Update `claim`: applied once the window is open; a row found final (a lost task's replay) is refused. */
  async claim({ method }: { method: ClaimMethod }): Promise<PayoutStatus> {
    this.decision = 'claim';
    await condition(() => this.status !== 'submitted');
    const refuse = () => {
      this.decision = null;
      return ApplicationFailure.nonRetryable(`payout is ${this.status}, not awaiting_claim`, 'PayoutNotAwaitingClaim');
    };
    if (this.status !== 'awaiting_claim' && this.status !== 'claimed' && this.status !== 'delivering') throw refuse();
    await this.resetOnFailure('decision', () => this.enter('claimed', { claimMethod: method }, updateEffects(this.input)));
    const now = this.status as PayoutStatus;
    if (now === 'failed' || now === 'canceled') throw refuse();
    return 'claimed';
  }

  /** Held for the business's payee confirmation, not yet answered: `cancel` and `confirmPayee` apply. */
  awaitingPayee(): boolean {
    return this.hold === 'payee_confirmation' && this.payee === null && this.status === 'submitted';
  }

  validateCancel(): void {
    if ((this.status !== 'pending' && this.status !== 'awaiting_claim' && !this.opening() && !this.awaitingPayee()) || this.decision !== null) {
      throw new Error(`payout is ${this.status}; only pending or awaiting_claim payouts, or one awaiting its payee confirmation, can be canceled`);
    }
  }

  /** Update `cancel`: pending, awaiting_claim or awaiting its payee confirmation -> canceled. */
  async cancel(): Promise<PayoutStatus> {
    this.decision = 'cancel';
    const payeeHold = this.awaitingPayee();
    await condition(() => this.status !== 'submitted' || !this.opening());
    if (this.status !== 'pending' && this.status !== 'awaiting_claim' && !(payeeHold && this.awaitingPayee())) {
      this.decision = null;
      throw ApplicationFailure.nonRetryable(`payout is ${this.status}; only pending or awaiting_claim payouts can be canceled`, 'PayoutNotCancelable');
    }
    await this.resetOnFailure('decision', async () => {
      if (payeeHold) await checkUpdateActs.payoutPayeeDecision({ payoutId: this.payoutId, decision: 'canceled' });
      await this.enter('canceled', {}, updateEffects(this.input));
    });
    return 'canceled';
  }

  validateConfirmPayee(): void {
    if (!this.awaitingPayee() || this.decision !== null) throw new Error(`payout is ${this.status}, not awaiting a payee confirmation`);
  }

  /** Update `confirmPayee`: the business confirms a close match or no match; delivery goes on. */
  async confirmPayee(keyId: string): Promise<PayoutStatus> {
    this.payee = 'confirmed';
    try {
      await checkUpdateActs.payoutPayeeDecision({ payoutId: this.payoutId, decision: 'confirmed', keyId });
    } catch (err) {
      this.payee = null;
      throw err;
    }
    this.hold = null;
    return this.status;
  }

  validateDecision(): void {
    if (this.status !== 'pending' || this.approval !== null || this.decision !== null) throw new Error(`payout is ${this.status}, not awaiting approval`);
  }

  /** Updates `approve` and `reject`: records the decision (payoutApprovalDecide). */
  async decide(d: 'approved' | 'rejected', keyId: string, reason?: string | null): Promise<PayoutStatus> {
    this.approval = d;
    await this.resetOnFailure('approval', async () => {
      this.status = (await updateEffects(this.input).payoutApprovalDecide({ payoutId: this.payoutId, decision: d, keyId, reason: reason ?? null })).status;
    });
    return this.status;
  }

  private async resetOnFailure(flag: 'decision' | 'approval', effect: () => Promise<void>): Promise<void> {
    try {
      await effect();
    } catch (err) {
      this[flag] = null;
      throw err;
    }
  }
}

function installHandlers(run: PayoutRun): void {
  setHandler(statusQuery, () => run.status);
  setHandler(railEventSignal, (e) => run.queueRailEvent(e));
  setHandler(claimUpdate, (arg) => run.claim(arg), { validator: (arg) => run.validateClaim(arg) });
  setHandler(cancelUpdate, () => run.cancel(), { validator: () => run.validateCancel() });
  if (!run.input.checks) return;
  setHandler(screeningDecisionSignal, (d) => {
    if (!run.screeningDecisions.has(d.caseId)) run.screeningDecisions.set(d.caseId, d);
  });
  setHandler(screeningRecheckSignal, () => {
    run.recheck = true;
  });
  setHandler(confirmPayeeUpdate, ({ keyId }) => run.confirmPayee(keyId), { validator: (_arg) => run.validateConfirmPayee() });
}

/** Waits for `predicate` until `deadline` (business clock, ms); false when the deadline passed first. */
async function waitUntil(run: PayoutRun, deadline: number, predicate: () => boolean): Promise<boolean> {
  for (;;) {
    const remaining = deadline - run.clock.now();
    run.publish();
    if (predicate() || remaining <= 0) return predicate();
    const v = run.clock.version();
    await condition(() => predicate() || run.clock.version() !== v, remaining);
    if (!predicate() && run.clock.version() !== v && deadline - run.clock.now() > 0) continue;
    return predicate();
  }
}

/** Approval (docs/getting-paid.md "Key policies"): `next` once approved; rejected, canceled or timed out: `done`. */
async function approvalPhase(run: PayoutRun, timeoutMs: number): Promise<Phase> {
  setHandler(approveUpdate, ({ keyId }) => run.decide('approved', keyId), { validator: (_arg) => run.validateDecision() });
  setHandler(rejectUpdate, ({ keyId, reason }) => run.decide('rejected', keyId, reason), { validator: (_arg) => run.validateDecision() });
  const deadline = waitBegins(run) + timeoutMs;
  const decided = () => run.approval !== null || run.decision !== null;
  for (;;) {
    if (!(await waitUntil(run, deadline, decided))) {
      run.approval = 'expired';
      run.status = (await acts.payoutApprovalDecide({ payoutId: run.payoutId, decision: 'expired' })).status;
      return 'done';
    }
    await condition(() => run.status !== 'pending' || !decided());
    if (run.status !== 'pending') return run.status === 'submitted' ? 'next' : 'done';
  }
}

/** Claim (claim_link): opens the link and waits for `claim` (`next`), `cancel` or the window's end (`done`). */
async function claimPhase(run: PayoutRun): Promise<Phase> {
  const { claimWindowMs } = await acts.payoutOpenClaim({ payoutId: run.payoutId });
  run.status = 'awaiting_claim';
  const deadline = waitBegins(run) + claimWindowMs;
  if (run.input.notify) await notifyRecipient(run);
  for (;;) {
    if (!(await waitUntil(run, deadline, () => run.decision !== null))) {
      run.decision = 'expire';
      const failure = { code: 'claim_expired' as const, message: 'The recipient did not claim the payout in time; the funds were returned' };
      await run.enter('failed', { failure, onlyFrom: ['awaiting_claim'] });
      const now = run.status as PayoutStatus;
      if (now === 'failed' || now === 'canceled') return 'done';
      run.decision = 'claim'; // the row moved on without this run (a lost task's claim): deliver it
      return isFinal(now) ? 'done' : 'next';
    }
    run.publish();
    await condition(() => run.status !== 'awaiting_claim' || run.decision === null);
    if (run.status !== 'awaiting_claim') return isFinal(run.status) ? 'done' : 'next';
  }
}

/**
 * Checks before any money moves (docs/screening.md "Holding payouts", docs/payee-verification.md):
 * sanctions screening, then Verification of Payee. Every wait is a condition on a Signal or an
 * Update, or a durable timer; `next` when the payout may go to its rail, `done` when it ended here.
 */
async function checksPhase(run: PayoutRun): Promise<Phase> {
  if ((await screeningStep(run)) === 'done') return 'done';
  return payeeStep(run);
}

/** Screens until clear: a potential match waits for the operators' decision; unavailable screens again later (fail closed). */
async function screeningStep(run: PayoutRun): Promise<Phase> {
  for (;;) {
    const s = await checkActs.payoutScreen({ payoutId: run.payoutId });
    if (s.outcome === 'clear') break;
    if (s.outcome === 'refused') {
      await run.enter('failed', { failure: s.failure });
      return 'done';
    }
    if (s.outcome === 'unavailable') {
      run.hold = 'screening_unavailable';
      run.recheck = false;
      run.publish();
      await condition(() => run.recheck, s.retryAfterMs);
      continue;
    }
    run.hold = 'screening_review';
    run.publish();
    await condition(() => run.screeningDecisions.has(s.caseId));
    const d = run.screeningDecisions.get(s.caseId)!;
    if (d.decision === 'rejected') {
      const message = `Sanctions screening review rejected the payout${d.reason ? `: ${d.reason}` : ''}; the funds were returned`;
      await run.enter('failed', { failure: { code: 'screening_rejected', message } });
      return 'done';
    }
  }
  run.hold = null;
  return isFinal(run.status) ? 'done' : 'next';
}

/** Verification of Payee: a close match or no match waits for `confirmPayee`, `cancel` or the window's end. */
async function payeeStep(run: PayoutRun): Promise<Phase> {
  if (run.status !== 'submitted') return 'next'; // a claimed claim link: the claimant gave the account
  for (;;) {
    const v = await checkActs.payoutVerifyPayee({ payoutId: run.payoutId });
    if (v.outcome === 'unavailable') {
      await run.wait(v.retryAfterMs);
      continue;
    }
    if (v.outcome !== 'confirm') return 'next';
    run.hold = 'payee_confirmation';
    const deadline = waitBegins(run) + v.confirmWithinMs;
    for (;;) {
      const answered = await waitUntil(run, deadline, () => run.payee !== null || run.decision === 'cancel');
      if (!answered) {
        run.payee = 'expired';
        await checkActs.payoutPayeeDecision({ payoutId: run.payoutId, decision: 'expired' });
        const failure = { code: 'payee_not_confirmed' as const, message: 'The payee\'s name was not confirmed in time; the funds were returned' };
        await run.enter('canceled', { failure, onlyFrom: ['submitted'] });
        return 'done';
      }
      // An Update's effect in flight: wait for it to apply, or to fail and reset its flag.
      await condition(() => run.status !== 'submitted' || run.hold === null || (run.payee === null && run.decision === null));
      if (run.status !== 'submitted') return 'done';
      if (run.hold === null) return 'next';
    }
  }
}

/** Runs the notification step (first attempt local, then the hour-long activity); a final failure is recorded, never thrown. */
async function notifyRecipient(run: PayoutRun): Promise<void> {
  const { payoutId } = run;
  try {
    if (run.input.notifyFirst === 'local') {
      try {
        await notifyLocalAttempt.payoutNotify({ payoutId });
        return;
      } catch (err) {
        // A local activity's failure arrives unwrapped (ApplicationFailure, TimeoutFailure), not as ActivityFailure.
        if (!(err instanceof TemporalFailure) || err instanceof CancelledFailure) throw err;
        if (err instanceof ApplicationFailure && err.type === NOTIFICATION_NOT_DELIVERABLE) return notificationFailed(payoutId, err.message);
      }
    }
    await notifyActs.payoutNotify({ payoutId });
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    await notificationFailed(payoutId, err.cause?.message ?? err.message);
  }
}

const notificationFailed = (payoutId: string, error: string) => notifyLocal.payoutNotificationFailed({ payoutId, error });

/** Delivery: rail attempts until succeeded, failed for good (at most {@link MAX_DELIVERY_ATTEMPTS}) or refunded. */
async function deliveryPhase(run: PayoutRun): Promise<void> {
  const moved = await acts.payoutTransition({ payoutId: run.payoutId, to: 'delivering', deliverAttempt: DELIVER_ATTEMPT_WITH_MOVE });
  run.status = moved.status;
  if (isFinal(run.status)) return;
  for (let attempt = 1; ; attempt++) {
    const r = attempt === DELIVER_ATTEMPT_WITH_MOVE && moved.attempt ? moved.attempt : await acts.payoutRailAttempt({ payoutId: run.payoutId, attempt });
    if (r.ok && r.outcome === 'accepted') return awaitRailAnswer(run, attempt, r);
    if (r.ok) return settle(run, attempt, r);
    const attemptResult = { number: attempt, status: 'failed' as const, providerReference: r.providerReference, errorCode: r.errorCode, errorMessage: r.message };
    if (!r.retryable || attempt >= MAX_DELIVERY_ATTEMPTS) {
      const failure = { code: r.errorCode, message: r.message, ...(r.railReasonCode ? { retryable: r.retryable, railReasonCode: r.railReasonCode } : {}) };
      return run.enter('failed', { failure, providerReference: r.providerReference, attempt: attemptResult });
    }
    await acts.payoutAttemptResult({ payoutId: run.payoutId, ...attemptResult });
    await run.wait(r.retryAfterMs);
  }
}

/** A rail that settled at submission: waits `arrivalMs`, succeeds, and is refunded when the rail said so. */
async function settle(run: PayoutRun, attempt: number, r: Extract<RailAttemptResult, { ok: true; outcome?: 'settled' }>): Promise<void> {
  if (r.arrivalMs > 0) await run.wait(r.arrivalMs);
  await run.enter('succeeded', { providerReference: r.providerReference, attempt: { number: attempt, status: 'succeeded', providerReference: r.providerReference } });
  if (r.refundAfterMs === undefined) return;
  await run.wait(r.refundAfterMs);
  await run.enter('refunded', { failure: { code: 'refunded_by_provider', message: r.refundMessage ?? 'The provider returned the funds' } });
}

/**
 * A rail that `accepted` the attempt (docs/rails.md "How a payout waits for its rail"): applies its
 * events; past `deadlineMs` without one asks it (payoutRailStatus) and keeps waiting.
 */
async function awaitRailAnswer(run: PayoutRun, attempt: number, r: Extract<RailAttemptResult, { outcome: 'accepted' }>): Promise<void> {
  const attemptRecord = { number: attempt, providerReference: r.providerReference };
  const acceptedAt = Date.now();
  let settled = false;
  let deadline = acceptedAt + r.deadlineMs;
  for (;;) {
    run.publish();
    if (!run.hasRailEvent(attempt) && !(await condition(() => run.hasRailEvent(attempt), Math.max(1, deadline - Date.now())))) {
      if (settled) return;
      for (const e of await acts.payoutRailStatus({ payoutId: run.payoutId, attempt, overdueMs: Date.now() - acceptedAt })) run.queueRailEvent(e);
      if (!run.hasRailEvent(attempt)) {
        deadline = Date.now() + r.deadlineMs;
        continue;
      }
    }
    const e = run.takeRailEvent(attempt);
    if (e.type === 'accepted') continue;
    if (e.type === 'rejected') {
      if (settled) continue;
      const failure = e.failure ?? { code: 'provider_declined' as const, message: 'The rail rejected the payment', retryable: false, railReasonCode: null };
      const failed = { ...attemptRecord, status: 'failed' as const, errorCode: failure.railReasonCode ?? failure.code, errorMessage: failure.message };
      return run.enter('failed', { failure, providerReference: r.providerReference, attempt: failed });
    }
    if (!settled) {
      await run.enter('succeeded', { providerReference: r.providerReference, deliveredAt: e.at, attempt: { ...attemptRecord, status: 'succeeded' } });
      settled = true;
      if (run.status !== 'succeeded') return;
      deadline = Date.now() + r.returnWindowMs;
    }
    if (e.type === 'returned') {
      const failure = e.failure ?? { code: 'refunded_by_provider' as const, message: 'The bank returned the funds', retryable: false, railReasonCode: null };
      return run.enter('refunded', { failure });
    }
    if (r.returnWindowMs <= 0) return;
  }
}

async function finish(run: PayoutRun): Promise<PayoutWorkflowResult> {
  run.publish();
  await condition(allHandlersFinished);
  run.publish();
  return { payoutId: run.payoutId, status: run.status };
}

/** The payout lifecycle (see the file header). */
export async function payoutWorkflow(input: PayoutWorkflowInput): Promise<PayoutWorkflowResult> {
  const run = new PayoutRun(input, installTestClock());
  installHandlers(run);
  if (input.approval && (await approvalPhase(run, input.approval.timeoutMs)) === 'done') return finish(run);
  if (input.channel === 'claim_link' && (await claimPhase(run)) === 'done') return finish(run);
  if (input.checks && (await checksPhase(run)) === 'done') return finish(run);
  await deliveryPhase(run);
  return finish(run);
}
