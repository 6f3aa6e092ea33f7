/**
 * disbursementWorkflow: runs a launched batch (spec "Disbursement (Surface A)"; docs/disbursements.md;
 * docs/architecture.md "Workflow ids and task queues"). Workflow id = disbursement id. Pure orchestration; Postgres holds every
 * per-item result (the payout projection), the workflow holds only counters and the handles of the
 * children in flight.
 *
 * Loop (a sliding window of children, kept full across continue-as-new):
 * 1. While not paused, claim up to `claimBatch` pending items (activity `disbursementClaimItems`:
 *    inserts each item's payout for its current attempt, idempotent per claim number, and never
 *    more than leaves `window` payouts of the batch in flight, counted in Postgres) and start each
 *    as a child `payoutWorkflow` (workflow id = payout id, ParentClosePolicy.ABANDON, search
 *    attribute DisbursementId): all the starts go out in one workflow task, without waiting.
 * 2. Wait for a child of this run to finish or a signal. When the claim found the window full (or
 *    filled it), claim again once a third of the window finished (CLAIM_CADENCE; a tenth in runs
 *    recorded before it), or after {@link FULL_WINDOW_RECHECK} at the latest while this run has
 *    fewer children in flight than that (the window is then full of payouts it cannot hear from:
 *    started by an earlier run, or claim links waiting for their recipient), else after
 *    {@link FULL_WINDOW_LONG_RECHECK}.
 * 3. After `itemsPerRun` starts (or when Temporal suggests it), wait only until every child of the
 *    run has *started*, then continue-as-new carrying `paused` and `claimSeq` (signals survive).
 *    The children keep running (ABANDON) and keep their window slots, counted in Postgres: the
 *    window does not drain at a run boundary.
 * 4. When nothing is pending or in flight, `disbursementFinalize` sets completed /
 *    completed_with_failures and emits the event of the same name, in one transaction that also
 *    checks Postgres: if retry-failed queued items meanwhile, the loop goes on. If a signal
 *    arrives after finalize committed (retry-failed on the batch it just completed), the loop goes
 *    on too instead of completing: the server refuses to complete a run with an unhandled signal,
 *    so the run that hears it is this one, never a lost one.
 *
 * Messages: signals `pause`, `resume`, `retryFailed` (the API changes the projection first, then
 * signals; the claim activity re-reads the projection, so a lost signal cannot start items while
 * paused); query `status`. The search attribute DisbursementStatus is upserted on every change.
 */
import {
  condition,
  continueAsNew,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  WorkflowIdReusePolicy,
  workflowInfo,
} from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import {
  type ClaimedItem,
  DEFAULT_CLAIM_BATCH,
  DEFAULT_ITEMS_PER_RUN,
  DEFAULT_WINDOW,
  type DisbursementActivities,
  disbursementStatusQuery,
  type DisbursementWorkflowInput,
  type DisbursementWorkflowResult,
  type DisbursementWorkflowStatus,
  pauseSignal,
  resumeSignal,
  retryFailedSignal,
} from './disbursement.contract';
import { SA } from './search-attributes.contract';

/** Longest wait before claiming again while the window is full of payouts this run does not hear from. */
const FULL_WINDOW_RECHECK = '1 second';
/**
 * Longest wait before claiming again while the window is full and this run has at least `refillAt`
 * children in flight (it hears them finish; the wait only bounds a stall on slow ones, such as
 * claim links waiting for their recipient). Used under {@link CLAIM_CADENCE}.
 */
const FULL_WINDOW_LONG_RECHECK = '5 seconds';
/**
 * Patch id (2026-11-26, issue #23): claim again after a third of the window finished (was a tenth),
 * with the 1 s recheck only while this run has fewer than that many children in flight.
 */
const CLAIM_CADENCE = 'disbursement-claim-cadence';

const acts = proxyActivities<DisbursementActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/** The batch run (see the file header). */
export async function disbursementWorkflow(input: DisbursementWorkflowInput): Promise<DisbursementWorkflowResult> {
  const { disbursementId } = input;
  const window = Math.max(1, Math.min(1000, Math.floor(input.window ?? DEFAULT_WINDOW)));
  const claimBatch = Math.max(1, Math.min(window, Math.floor(input.claimBatch ?? DEFAULT_CLAIM_BATCH)));
  const itemsPerRun = Math.max(1, Math.floor(input.itemsPerRun ?? DEFAULT_ITEMS_PER_RUN));
  // After a full window, claim again once this many children of the run finished (or a recheck).
  // Patched (CLAIM_CADENCE): a third of the window, and the short recheck only while this run has
  // too few children in flight to hear that many finish: one claim per ~100 items instead of one
  // per second (runs recorded before the patch replay with a tenth and the 1 s recheck).
  const cadence = patched(CLAIM_CADENCE);
  const refillAt = Math.max(1, Math.min(claimBatch, Math.ceil(window / (cadence ? 3 : 10))));

  let paused = input.paused ?? false;
  let claimSeq = input.claimSeq ?? 0;
  let status: DisbursementWorkflowStatus['status'] = 'processing';
  let inFlight = 0;
  /** Children whose start is not yet acknowledged (continue-as-new waits for these only). */
  let starting = 0;
  let startedThisRun = 0;
  let finishedThisRun = 0;
  /** Bumped by every signal and every finished child: what the loop waits on. */
  let wake = 0;
  /** Bumped by every signal. */
  let signals = 0;
  /** Whether the last claim found nothing more to start. */
  let exhausted = false;
  /** Whether the last claim found the window full (Postgres count). */
  let full = false;

  const setStatus = (s: DisbursementWorkflowStatus['status']) => {
    if (s === status) return;
    status = s;
    upsertSearchAttributes([{ key: SA.DisbursementStatus, value: s }]);
  };
  // The start recorded 'processing'; a continued run may start paused.
  if (paused) {
    status = 'paused';
    upsertSearchAttributes([{ key: SA.DisbursementStatus, value: 'paused' }]);
  }

  setHandler(pauseSignal, () => {
    paused = true;
    signals++;
    wake++;
  });
  setHandler(resumeSignal, () => {
    paused = false;
    exhausted = false;
    full = false;
    signals++;
    wake++;
  });
  setHandler(retryFailedSignal, () => {
    exhausted = false;
    full = false;
    signals++;
    wake++;
  });
  /** Waits for a wake-up (a child of this run finished, a signal), at most `timeout` if given. */
  const nextWake = async (timeout?: string): Promise<boolean> => {
    const seen = wake;
    if (timeout === undefined) {
      await condition(() => wake !== seen);
      return true;
    }
    return condition(() => wake !== seen, timeout);
  };
  setHandler(disbursementStatusQuery, () => ({
    disbursementId,
    status,
    paused,
    inFlight,
    startedThisRun,
    finishedThisRun,
    claimSeq,
    window,
  }));

  /** Starts one child without waiting for it (all starts of a claim go out in one workflow task). */
  const startItem = (item: ClaimedItem): void => {
    inFlight++;
    starting++;
    const attributes: SearchAttributePair[] = [];
    for (const [k, v] of Object.entries({ ...item.searchAttributes, DisbursementId: disbursementId })) {
      if (typeof v === 'string' && k in SA) attributes.push({ key: SA[k as keyof typeof SA], value: v } as SearchAttributePair);
    }
    void (async () => {
      try {
        let child;
        try {
          child = await startChild(item.workflowType, {
            workflowId: item.payoutId,
            taskQueue: item.taskQueue,
            args: item.args,
            parentClosePolicy: ParentClosePolicy.ABANDON,
            // A payout's workflow runs once: never again after it closed.
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            typedSearchAttributes: attributes,
          });
        } finally {
          starting--;
          wake++;
        }
        await child.result();
      } catch {
        // Already started (by an earlier run) or failed: the outcome is in Postgres; finalize checks there.
      } finally {
        inFlight--;
        finishedThisRun++;
        wake++;
      }
    })();
  };

  for (;;) {
    if (paused) setStatus('paused');
    const runDone = startedThisRun >= itemsPerRun || workflowInfo().continueAsNewSuggested;
    if (!paused && !exhausted && !full && !runDone) {
      const limit = Math.min(claimBatch, itemsPerRun - startedThisRun);
      const claimed = await acts.disbursementClaimItems({ disbursementId, claimSeq, limit, window });
      claimSeq++;
      if (claimed.paused) {
        paused = true;
        setStatus('paused');
        continue;
      }
      if (!paused) setStatus('processing');
      full = claimed.full === true;
      if (!claimed.more) exhausted = true;
      startedThisRun += claimed.items.length;
      for (const item of claimed.items) startItem(item);
      continue;
    }

    if (runDone && !paused && !exhausted) {
      // Hand over to a fresh run once this run's starts are acknowledged; its children keep
      // running and keep their window slots (counted in Postgres).
      while (starting > 0) await nextWake();
      await continueAsNew<typeof disbursementWorkflow>({ ...input, paused, claimSeq });
    }

    if (full && !paused) {
      // The window is full: claim again when a child of this run finishes, or after a short while
      // for payouts this run does not hear from.
      const finished = finishedThisRun;
      const signalled = signals;
      const recheck = cadence && inFlight >= refillAt ? FULL_WINDOW_LONG_RECHECK : FULL_WINDOW_RECHECK;
      await condition(() => finishedThisRun - finished >= refillAt || signals !== signalled, recheck);
      full = false;
      continue;
    }

    if (inFlight > 0) {
      await nextWake();
      continue;
    }

    // Nothing of this run in flight.
    if (paused) {
      setStatus('paused');
      // The projection is the truth: re-read it now and then in case a resume signal was lost.
      if (!(await nextWake('30 seconds'))) {
        const s = await acts.disbursementProjectionStatus({ disbursementId });
        if (s !== 'paused') paused = false;
        if (s !== 'paused') exhausted = false;
      }
      continue;
    }

    const signalled = signals;
    const f = await acts.disbursementFinalize({ disbursementId });
    if (f.done && signals !== signalled) {
      // A signal came after finalize committed: retry-failed may have queued items again (the
      // server refuses to complete a workflow with an unhandled signal, so this run hears it).
      exhausted = false;
      continue;
    }
    if (f.done) {
      setStatus(f.status);
      return { disbursementId, status: f.status };
    }
    if (f.paused) {
      paused = true;
      continue;
    }
    exhausted = false;
    if (f.pending === 0) {
      // Payouts in flight that this run did not start (an earlier run's): wait for them in Postgres.
      await nextWake(FULL_WINDOW_RECHECK);
    }
  }
}
