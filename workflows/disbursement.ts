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
  DEFAULT_ITEMS_PER_RUN,
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
/** Versioning: refill after a third of the window (a tenth, and always the 1 s recheck, before it). */
const CLAIM_CADENCE = 'disbursement-claim-cadence';
/** Versioning: children started with `statusUpserts: 'long-waits'` (one PayoutStatus upsert per settled item). */
const CHILD_STATUS_UPSERTS = '39-child-status-upserts';
/**
 * Versioning: a run hands over after {@link LONG_RUN_ITEMS} starts or at its history caps, not
 * after 500 or at Temporal's suggestion (4,096 events, about 900 children): each hand-over drains the window
 * while the run waits for its last starts to be acknowledged.
 */
const LONGER_RUNS = '39-longer-runs';
/**
 * Versioning: the claim activity starts the items' workflows (no children): no child events in the
 * run's history, no task of the run per finished item, and no hand-over racing child completions.
 * The run claims again when PostgreSQL's count shows free slots, every {@link CLAIM_STARTED_RECHECK}.
 */
const ITEMS_STARTED_BY_CLAIM = '39-items-started-by-claim';
const CLAIM_STARTED_RECHECK = '250 milliseconds';

const acts = proxyActivities<DisbursementActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

type Status = DisbursementWorkflowStatus['status'];

interface Limits {
  window: number;
  claimBatch: number;
  itemsPerRun: number;
  /** After a full window, claim again once this many children of the run finished. */
  refillAt: number;
  cadence: boolean;
  childStatusAtLongWaits: boolean;
  longerRuns: boolean;
  startedByClaim: boolean;
}

function limitsOf(input: DisbursementWorkflowInput, cadence: boolean, childStatusAtLongWaits: boolean, longerRuns: boolean, startedByClaim: boolean): Limits {
  const window = Math.max(1, Math.min(1000, Math.floor(input.window ?? DEFAULT_WINDOW)));
  const claimBatch = Math.max(1, Math.min(window, Math.floor(input.claimBatch ?? DEFAULT_CLAIM_BATCH)));
  const runItems = startedByClaim ? CLAIM_STARTED_RUN_ITEMS : longerRuns ? LONG_RUN_ITEMS : DEFAULT_ITEMS_PER_RUN;
  const itemsPerRun = Math.max(1, Math.floor(input.itemsPerRun ?? runItems));
  const refillAt = Math.max(1, Math.min(claimBatch, Math.ceil(window / (cadence ? 3 : 10))));
  return { window, claimBatch, itemsPerRun, refillAt, cadence, childStatusAtLongWaits, longerRuns, startedByClaim };
}

/** This run has started its share of children, or its history is as long as it may grow. */
function runDone(run: DisbursementRun): boolean {
  if (run.startedThisRun >= run.limits.itemsPerRun) return true;
  const info = workflowInfo();
  if (!run.limits.longerRuns) return info.continueAsNewSuggested;
  return info.historyLength >= LONG_RUN_MAX_EVENTS || info.historySize >= LONG_RUN_MAX_BYTES;
}

/** One run's state, shared by its phases and Signal handlers (the safe-message-handlers shape). */
class DisbursementRun {
  paused: boolean;
  claimSeq: number;
  status: Status = 'processing';
  inFlight = 0;
  /** Children whose start is not yet acknowledged (the hand-over waits for these only). */
  starting = 0;
  startedThisRun = 0;
  finishedThisRun = 0;
  wake = 0;
  signals = 0;
  exhausted = false;
  /** The last claim found the window full (PostgreSQL's count). */
  full = false;

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
    this.exhausted = false;
    this.full = false;
    this.signal();
  }

  retryFailed(): void {
    this.exhausted = false;
    this.full = false;
    this.signal();
  }

  private signal(): void {
    this.signals++;
    this.wake++;
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
          args: claimedItemArgs(item, this.limits.childStatusAtLongWaits),
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

/** Claims up to a batch of pending items (idempotent per claimSeq) and starts them (as children before {@link ITEMS_STARTED_BY_CLAIM}). */
async function claimAndStart(run: DisbursementRun): Promise<void> {
  const limit = Math.min(run.limits.claimBatch, run.limits.itemsPerRun - run.startedThisRun);
  const claim = { disbursementId: run.input.disbursementId, claimSeq: run.claimSeq, limit, window: run.limits.window };
  const claimed = run.limits.startedByClaim ? await acts.disbursementClaimAndStartItems(claim) : await acts.disbursementClaimItems(claim);
  run.claimSeq++;
  if (claimed.paused) {
    run.paused = true;
    return run.setStatus('paused');
  }
  if (!run.paused) run.setStatus('processing');
  run.full = claimed.full === true;
  if (!claimed.more) run.exhausted = true;
  if ('started' in claimed) {
    run.startedThisRun += claimed.started;
    return;
  }
  run.startedThisRun += claimed.items.length;
  for (const item of claimed.items) run.startItem(item);
}

/** Continues as new once this run's starts are acknowledged; its children keep their window slots. */
async function handOver(run: DisbursementRun): Promise<never> {
  while (run.starting > 0) await run.nextWake();
  return continueAsNew<typeof disbursementWorkflow>({ ...run.input, paused: run.paused, claimSeq: run.claimSeq });
}

/** The window is full: waits until `refillAt` children of this run finished, a signal, or the recheck. */
async function waitForRefill(run: DisbursementRun): Promise<void> {
  const finished = run.finishedThisRun;
  const signalled = run.signals;
  const recheck = run.limits.startedByClaim
    ? CLAIM_STARTED_RECHECK
    : run.limits.cadence && run.inFlight >= run.limits.refillAt
      ? FULL_WINDOW_LONG_RECHECK
      : FULL_WINDOW_RECHECK;
  await condition(() => run.finishedThisRun - finished >= run.limits.refillAt || run.signals !== signalled, recheck);
  run.full = false;
}

/** Paused with nothing in flight: waits for a signal, re-reading the projection every 30 s (a lost resume). */
async function waitWhilePaused(run: DisbursementRun): Promise<void> {
  run.setStatus('paused');
  if (await run.nextWake('30 seconds')) return;
  if ((await acts.disbursementProjectionStatus({ disbursementId: run.input.disbursementId })) === 'paused') return;
  run.paused = false;
  run.exhausted = false;
}

/** Completes the batch when every item is final (the result); else goes on (undefined). */
async function finalize(run: DisbursementRun): Promise<DisbursementWorkflowResult | undefined> {
  const signalled = run.signals;
  const f = await acts.disbursementFinalize({ disbursementId: run.input.disbursementId });
  if (f.done && run.signals === signalled) {
    run.setStatus(f.status);
    return { disbursementId: run.input.disbursementId, status: f.status };
  }
  if (!f.done && f.paused) {
    run.paused = true;
    return undefined;
  }
  run.exhausted = false;
  // Payouts in flight that an earlier run started: wait for them in PostgreSQL.
  if (!f.done && f.pending === 0) await run.nextWake(FULL_WINDOW_RECHECK);
  return undefined;
}

export async function disbursementWorkflow(input: DisbursementWorkflowInput): Promise<DisbursementWorkflowResult> {
  const run = new DisbursementRun(
    input,
    limitsOf(input, patched(CLAIM_CADENCE), patched(CHILD_STATUS_UPSERTS), patched(LONGER_RUNS), patched(ITEMS_STARTED_BY_CLAIM)),
  );
  if (run.paused) {
    run.status = 'paused';
    upsertSearchAttributes([{ key: SA.DisbursementStatus, value: 'paused' }]);
  }
  installHandlers(run);
  for (;;) {
    if (run.paused) run.setStatus('paused');
    const done = runDone(run);
    if (!run.paused && !run.exhausted && !run.full && !done) await claimAndStart(run);
    else if (done && !run.paused && !run.exhausted) await handOver(run);
    else if (run.full && !run.paused) await waitForRefill(run);
    else if (run.inFlight > 0) await run.nextWake();
    else if (run.paused) await waitWhilePaused(run);
    else {
      const result = await finalize(run);
      if (result) return result;
    }
  }
}
