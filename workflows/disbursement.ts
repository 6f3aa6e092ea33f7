/**
 * disbursementWorkflow: runs a launched batch (docs/disbursements.md "Launch, the run, and money"),
 * workflow id = disbursement id, in phases: claim and start the items (a window counted in
 * PostgreSQL), wait for a refill, hand over (continue-as-new), finalize. Determinism contract: a
 * claim is idempotent per `claimSeq`; a signal after finalize committed keeps the loop going.
 * Recorded histories replay (test/workflows/workflow-histories.test.ts).
 */
import type { SearchAttributePair } from '@temporalio/common';
import {
  condition,
  continueAsNew,
  deprecatePatch,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  WorkflowIdReusePolicy,
  workflowInfo,
} from '@temporalio/workflow';
import {
  CLAIM_STARTED_RUN_ITEMS,
  type ClaimedItem,
  claimedItemArgs,
  DEFAULT_CLAIM_BATCH,
  DEFAULT_WINDOW,
  type DisbursementActivities,
  LONG_RUN_ITEMS,
  LONG_RUN_MAX_BYTES,
  LONG_RUN_MAX_EVENTS,
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
/** The same while this run has at least `refillAt` children in flight (it hears them finish). */
const FULL_WINDOW_LONG_RECHECK = '5 seconds';
/**
 * Retired patches (docs/operations.md "Retiring a workflow patch"): every run takes their new paths
 * and records their markers through `deprecatePatch`, so a worker still on the code before their
 * retirement replays it. A run started before a retired patch no longer replays: retire one early
 * only once visibility shows no such run open (the operator's check there). Remove these calls
 * on or after 2027-01-26 (landed 2026-11-26/27, plus 30 days of approval wait, plus the 30-day claim window).
 */
const RETIRED_PATCHES = ['disbursement-claim-cadence', '39-child-status-upserts', '39-longer-runs'] as const;
/**
 * Versioning: the claim activity starts the items' workflows (no children): no child events in the
 * run's history, no task of the run per finished item, and no hand-over racing child completions.
 * The run claims again when PostgreSQL's count shows free slots, every {@link CLAIM_STARTED_RECHECK}.
 * Retirement date 2027-01-27 (landed 2026-11-28, plus 30 days plus the 30-day claim window): then
 * deprecatePatch, then removed with the children path (docs/operations.md "Retiring a workflow patch").
 */
const ITEMS_STARTED_BY_CLAIM = '39-items-started-by-claim';
const CLAIM_STARTED_RECHECK = '250 milliseconds';

const acts = proxyActivities<DisbursementActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

type Status = DisbursementWorkflowStatus['status'];

/** The run's sizes (from its input) and the one versioned choice left: who starts the items. */
interface Limits {
  window: number;
  claimBatch: number;
  itemsPerRun: number;
  /** After a full window, claim again once this many children of the run finished (a third of the window). */
  refillAt: number;
  /** The claim activity starts the items (`patched(ITEMS_STARTED_BY_CLAIM)`); else this run starts them as children. */
  startedByClaim: boolean;
}

function limitsOf(input: DisbursementWorkflowInput, startedByClaim: boolean): Limits {
  const window = Math.max(1, Math.min(1000, Math.floor(input.window ?? DEFAULT_WINDOW)));
  const claimBatch = Math.max(1, Math.min(window, Math.floor(input.claimBatch ?? DEFAULT_CLAIM_BATCH)));
  const itemsPerRun = Math.max(1, Math.floor(input.itemsPerRun ?? (startedByClaim ? CLAIM_STARTED_RUN_ITEMS : LONG_RUN_ITEMS)));
  const refillAt = Math.max(1, Math.min(claimBatch, Math.ceil(window / 3)));
  return { window, claimBatch, itemsPerRun, refillAt, startedByClaim };
}

/** Records the retired patches' markers (in their recorded order), then decides the live one. */
function versionedLimits(input: DisbursementWorkflowInput): Limits {
  for (const id of RETIRED_PATCHES) deprecatePatch(id);
  return limitsOf(input, patched(ITEMS_STARTED_BY_CLAIM));
}

/** What the last claim said about the batch: items left to claim, and room in the window. */
type ClaimView = { itemsLeft: boolean; windowFull: boolean };
const FRESH: ClaimView = { itemsLeft: true, windowFull: false };

/** One run's state, shared by its phases and Signal handlers (the safe-message-handlers shape). */
class DisbursementRun {
  paused: boolean;
  claimSeq: number;
  status: Status = 'processing';
  /** Set by the claim phase, reset by resume and retry-failed (which may free items or room). */
  view: ClaimView = FRESH;
  inFlight = 0;
  /** Children whose start is not yet acknowledged (the hand-over waits for these only). */
  starting = 0;
  startedThisRun = 0;
  finishedThisRun = 0;
  wake = 0;
  signals = 0;

  constructor(
    readonly input: DisbursementWorkflowInput,
    readonly limits: Limits,
  ) {
    this.paused = input.paused ?? false;
    this.claimSeq = input.claimSeq ?? 0;
  }

  setStatus(s: Status): void {
    if (s === this.status) return;
    this.status = s;
    upsertSearchAttributes([{ key: SA.DisbursementStatus, value: s }]);
  }

  pause(): void {
    this.paused = true;
    this.signal();
  }

  resume(): void {
    this.paused = false;
    this.view = FRESH;
    this.signal();
  }

  retryFailed(): void {
    this.view = FRESH;
    this.signal();
  }

  private signal(): void {
    this.signals++;
    this.wake++;
  }

  /** This run has started its share of items, or its history is as long as it may grow. */
  runDone(): boolean {
    if (this.startedThisRun >= this.limits.itemsPerRun) return true;
    const info = workflowInfo();
    return info.historyLength >= LONG_RUN_MAX_EVENTS || info.historySize >= LONG_RUN_MAX_BYTES;
  }

  summary(): DisbursementWorkflowStatus {
    const { inFlight, startedThisRun, finishedThisRun, claimSeq, paused, status } = this;
    return { disbursementId: this.input.disbursementId, status, paused, inFlight, startedThisRun, finishedThisRun, claimSeq, window: this.limits.window };
  }

  /** Waits for a signal or a finished child of this run; with `timeout`, false when it passed first. */
  nextWake(timeout?: string): Promise<boolean> {
    const seen = this.wake;
    if (timeout === undefined) return condition(() => this.wake !== seen).then(() => true);
    return condition(() => this.wake !== seen, timeout);
  }

  /** Starts one child without waiting (all starts of a claim go out in one workflow task). */
  startItem(item: ClaimedItem): void {
    this.inFlight++;
    this.starting++;
    void this.runChild(item);
  }

  private async runChild(item: ClaimedItem): Promise<void> {
    try {
      let child;
      try {
        child = await startChild(item.workflowType, {
          workflowId: item.payoutId,
          taskQueue: item.taskQueue,
          args: claimedItemArgs(item, true),
          parentClosePolicy: ParentClosePolicy.ABANDON,
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          typedSearchAttributes: childSearchAttributes(item, this.input.disbursementId),
        });
      } finally {
        this.starting--;
        this.wake++;
      }
      await child.result();
    } catch {
      // Already started by an earlier run, or failed: the outcome is in PostgreSQL (finalize reads it).
    } finally {
      this.inFlight--;
      this.finishedThisRun++;
      this.wake++;
    }
  }
}

function childSearchAttributes(item: ClaimedItem, disbursementId: string): SearchAttributePair[] {
  const attributes: SearchAttributePair[] = [];
  for (const [k, v] of Object.entries({ ...item.searchAttributes, DisbursementId: disbursementId })) {
    if (typeof v === 'string' && k in SA) attributes.push({ key: SA[k as keyof typeof SA], value: v } as SearchAttributePair);
  }
  return attributes;
}

function installHandlers(run: DisbursementRun): void {
  setHandler(pauseSignal, () => run.pause());
  setHandler(resumeSignal, () => run.resume());
  setHandler(retryFailedSignal, () => run.retryFailed());
  setHandler(disbursementStatusQuery, () => run.summary());
}

/** A phase's outcome: the batch's result ends the workflow; `next` asks {@link nextPhase} again. */
type PhaseResult = DisbursementWorkflowResult | 'next';
type Phase = (run: DisbursementRun) => Promise<PhaseResult>;

/**
 * The phase the run is in, read from its state in one place. The order of the tests is the command
 * contract every recorded history replays: claim while there is room and items; hand over when this
 * run has done its share; wait for room; drain this run's children; wait while paused; finalize.
 */
function nextPhase(run: DisbursementRun): Phase {
  const { paused, view } = run;
  const done = run.runDone();
  if (!paused && view.itemsLeft && !view.windowFull && !done) return claimPhase;
  if (done && !paused && view.itemsLeft) return handOverPhase;
  if (view.windowFull && !paused) return refillPhase;
  if (run.inFlight > 0) return drainPhase;
  if (paused) return pausedPhase;
  return finalizePhase;
}

/** Claims up to a batch of pending items (idempotent per claimSeq) and starts them (as children before {@link ITEMS_STARTED_BY_CLAIM}). */
async function claimPhase(run: DisbursementRun): Promise<PhaseResult> {
  const limit = Math.min(run.limits.claimBatch, run.limits.itemsPerRun - run.startedThisRun);
  const claim = { disbursementId: run.input.disbursementId, claimSeq: run.claimSeq, limit, window: run.limits.window };
  const claimed = run.limits.startedByClaim ? await acts.disbursementClaimAndStartItems(claim) : await acts.disbursementClaimItems(claim);
  run.claimSeq++;
  if (claimed.paused) {
    run.paused = true;
    run.setStatus('paused');
    return 'next';
  }
  if (!run.paused) run.setStatus('processing');
  run.view = { itemsLeft: claimed.more, windowFull: claimed.full === true };
  if ('started' in claimed) run.startedThisRun += claimed.started;
  else {
    run.startedThisRun += claimed.items.length;
    for (const item of claimed.items) run.startItem(item);
  }
  return 'next';
}

/** Continues as new once this run's starts are acknowledged; its children keep their window slots. */
async function handOverPhase(run: DisbursementRun): Promise<never> {
  while (run.starting > 0) await run.nextWake();
  return continueAsNew<typeof disbursementWorkflow>({ ...run.input, paused: run.paused, claimSeq: run.claimSeq });
}

/** The window is full: waits until `refillAt` children of this run finished, a signal, or the recheck. */
async function refillPhase(run: DisbursementRun): Promise<PhaseResult> {
  const finished = run.finishedThisRun;
  const signalled = run.signals;
  const recheck = run.limits.startedByClaim ? CLAIM_STARTED_RECHECK : run.inFlight >= run.limits.refillAt ? FULL_WINDOW_LONG_RECHECK : FULL_WINDOW_RECHECK;
  await condition(() => run.finishedThisRun - finished >= run.limits.refillAt || run.signals !== signalled, recheck);
  run.view = { ...run.view, windowFull: false };
  return 'next';
}

/** Nothing to claim now: waits for a child of this run to finish or a signal. */
async function drainPhase(run: DisbursementRun): Promise<PhaseResult> {
  await run.nextWake();
  return 'next';
}

/** Paused with nothing in flight: waits for a signal, re-reading the projection every 30 s (a lost resume). */
async function pausedPhase(run: DisbursementRun): Promise<PhaseResult> {
  run.setStatus('paused');
  if (await run.nextWake('30 seconds')) return 'next';
  if ((await acts.disbursementProjectionStatus({ disbursementId: run.input.disbursementId })) === 'paused') return 'next';
  run.paused = false;
  run.view = { ...run.view, itemsLeft: true };
  return 'next';
}

/** Completes the batch when every item is final (the result); else goes on. */
async function finalizePhase(run: DisbursementRun): Promise<PhaseResult> {
  const signalled = run.signals;
  const f = await acts.disbursementFinalize({ disbursementId: run.input.disbursementId });
  if (f.done && run.signals === signalled) {
    run.setStatus(f.status);
    return { disbursementId: run.input.disbursementId, status: f.status };
  }
  if (!f.done && f.paused) {
    run.paused = true;
    return 'next';
  }
  run.view = { ...run.view, itemsLeft: true };
  // Payouts in flight that an earlier run started: wait for them in PostgreSQL.
  if (!f.done && f.pending === 0) await run.nextWake(FULL_WINDOW_RECHECK);
  return 'next';
}

/** The batch's run (see the file header): one state object, its handlers, then phase after phase. */
export async function disbursementWorkflow(input: DisbursementWorkflowInput): Promise<DisbursementWorkflowResult> {
  const run = new DisbursementRun(input, versionedLimits(input));
  if (run.paused) {
    run.status = 'paused';
    upsertSearchAttributes([{ key: SA.DisbursementStatus, value: 'paused' }]);
  }
  installHandlers(run);
  for (;;) {
    if (run.paused) run.setStatus('paused');
    const result = await nextPhase(run)(run);
    if (result !== 'next') return result;
  }
}
