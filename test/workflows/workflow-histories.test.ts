import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { DeterminismViolationError } from '@temporalio/workflow';
import { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { PayoutStatus } from '../../src/domain/payout-state';
import { type KeywordAttributes, typedAttributes } from '../../src/temporal/client';
import { SA } from '../../src/temporal/search-attributes';
import { type ClaimResult, type ClaimStartResult, claimedItemArgs, type DisbursementActivities, type FinalizeResult } from '../../workflows/disbursement.contract';
import { pauseSignal, resumeSignal, retryFailedSignal } from '../../workflows/disbursement.contract';
import {
  approveUpdate,
  cancelUpdate,
  claimUpdate,
  confirmPayeeUpdate,
  NOTIFICATION_NOT_DELIVERABLE,
  type PayeeVerificationStep,
  PAYOUT_CHECKS_LEVEL,
  PAYOUT_PATCH_LEVEL,
  type PayoutActivities,
  type PayoutCheckActivities,
  type PayoutNotificationActivities,
  type PayoutRailEvent,
  type PayoutWorkflowInput,
  type RailAttemptResult,
  railEventSignal,
  rejectUpdate,
  type PayoutScreeningStep,
  screeningDecisionSignal,
  screeningRecheckSignal,
} from '../../workflows/payout.contract';
import { testClockAdvanceSignal } from '../../workflows/test-clock.contract';

/**
 * Replay fixtures for every path of payoutWorkflow and disbursementWorkflow (issue #38), and the
 * replay of every recorded history on today's code with `Worker.runReplayHistories`.
 *
 * `RECORD_WORKFLOW_HISTORIES=<date> npx vitest run test/workflows/workflow-histories.test.ts`
 * runs each path on today's workflow bundle with scripted activities (the activities' recorded
 * results are all a replay reads; their shapes are the contracts' `PayoutActivities`,
 * `DisbursementActivities`) and writes test/fixtures/histories/<workflow>-<date>-<path>.json.
 * Without it, the replay and the disbursement children's status upserts (issue #39) run.
 */
const RECORD = process.env.RECORD_WORKFLOW_HISTORIES;
const HISTORIES = new URL('../fixtures/histories/', import.meta.url);
/** Histories recorded before a retired patch (docs/operations.md "Retiring a workflow patch"): today's code refuses them. */
const RETIRED_HISTORIES = new URL('../fixtures/histories-retired/', import.meta.url);

/** How a scripted payout's rail answers and how long its claim or approval window is, in ms. */
interface Script {
  attempts?: RailAttemptResult[];
  claimWindowMs?: number;
  /** Events payoutRailStatus returns on its n-th call (0-based). */
  railStatus?: PayoutRailEvent[][];
  notifyFails?: boolean;
  /** The first payoutNotify attempt fails retryably (the local attempt), the next succeeds. */
  notifyFailsOnce?: boolean;
  /** payoutScreen's answers in order, the last repeated (default clear). */
  screening?: PayoutScreeningStep[];
  /** payoutVerifyPayee's answer (default skipped). */
  payee?: PayeeVerificationStep;
}

const settled = (arrivalMs = 200): RailAttemptResult => ({ ok: true, outcome: 'settled', providerReference: 'sbx_ref', arrivalMs });
const accepted = (deadlineMs = 60_000, returnWindowMs = 0): RailAttemptResult => ({ ok: true, outcome: 'accepted', providerReference: 'E2E-1', deadlineMs, returnWindowMs });
const rejected = (retryable: boolean): RailAttemptResult => ({
  ok: false,
  outcome: 'rejected',
  errorCode: retryable ? 'provider_timeout' : 'invalid_destination',
  message: retryable ? 'The provider timed out' : 'The destination account does not exist',
  retryable,
  retryAfterMs: 300,
  providerReference: null,
});

const scripts = new Map<string, Script>();
const statuses = new Map<string, PayoutStatus>();
const railStatusCalls = new Map<string, number>();
const screenCalls = new Map<string, number>();
const notifyFailed = new Set<string>();
/** Disbursement state the scripted claim and finalize read (the projection's role). */
const batches = new Map<string, { items: string[]; next: number; inFlight: Set<string>; failed: number; paused: boolean; claims: Map<number, ClaimResult>; window: number }>();

const FINAL: PayoutStatus[] = ['succeeded', 'failed', 'canceled', 'refunded'];

function move(payoutId: string, to: PayoutStatus): PayoutStatus {
  statuses.set(payoutId, to);
  if (FINAL.includes(to)) {
    for (const b of batches.values()) {
      if (b.inFlight.delete(payoutId) && to !== 'succeeded') b.failed++;
    }
  }
  return to;
}

const payoutActivities: PayoutActivities & PayoutNotificationActivities & PayoutCheckActivities = {
  async payoutScreen({ payoutId }) {
    const steps = scripts.get(payoutId)?.screening ?? [{ outcome: 'clear', screeningId: 'scr_rec' }];
    const n = screenCalls.get(payoutId) ?? 0;
    screenCalls.set(payoutId, n + 1);
    return steps[Math.min(n, steps.length - 1)]!;
  },
  async payoutVerifyPayee({ payoutId }) {
    return scripts.get(payoutId)?.payee ?? { outcome: 'skipped' };
  },
  async payoutPayeeDecision() {},
  async payoutTransition(input) {
    const to = move(input.payoutId, input.to);
    if (input.deliverAttempt === undefined) return { status: to };
    return { status: to, attempt: scripts.get(input.payoutId)?.attempts?.[input.deliverAttempt - 1] ?? settled() };
  },
  async payoutOpenClaim({ payoutId }) {
    move(payoutId, 'awaiting_claim');
    return { claimWindowMs: scripts.get(payoutId)?.claimWindowMs ?? 60_000 };
  },
  async payoutRailAttempt({ payoutId, attempt }) {
    return scripts.get(payoutId)?.attempts?.[attempt - 1] ?? settled();
  },
  async payoutRailStatus({ payoutId }) {
    const n = railStatusCalls.get(payoutId) ?? 0;
    railStatusCalls.set(payoutId, n + 1);
    return scripts.get(payoutId)?.railStatus?.[n] ?? [];
  },
  async payoutAttemptResult() {},
  async payoutApprovalDecide({ payoutId, decision }) {
    return { status: move(payoutId, decision === 'approved' ? 'submitted' : 'canceled') };
  },
  async payoutNotify({ payoutId }) {
    if (scripts.get(payoutId)?.notifyFails) throw ApplicationFailure.nonRetryable('The provider refused the message', NOTIFICATION_NOT_DELIVERABLE);
    if (scripts.get(payoutId)?.notifyFailsOnce && !notifyFailed.has(payoutId)) {
      notifyFailed.add(payoutId);
      throw ApplicationFailure.retryable('The provider timed out', 'ProviderTimeout');
    }
    return { result: 'sent' };
  },
  async payoutNotificationFailed() {},
};

let taskQueue = '';

const disbursementActivities: DisbursementActivities = {
  async disbursementClaimItems({ disbursementId, claimSeq, limit, window }): Promise<ClaimResult> {
    const b = batches.get(disbursementId)!;
    const done = b.claims.get(claimSeq);
    if (done) return done;
    let r: ClaimResult;
    if (b.paused) r = { paused: true, more: b.next < b.items.length, items: [] };
    else {
      const take = Math.max(0, Math.min(limit, (window ?? b.window) - b.inFlight.size, b.items.length - b.next));
      const ids = b.items.slice(b.next, b.next + take);
      b.next += take;
      for (const id of ids) b.inFlight.add(id);
      r = {
        paused: false,
        more: b.next < b.items.length,
        full: b.inFlight.size >= (window ?? b.window),
        items: ids.map((payoutId) => ({
          itemId: `dsbi_${payoutId}`,
          payoutId,
          workflowType: 'payoutWorkflow',
          taskQueue,
          args: [{ payoutId, channel: 'service_user_usdc' } satisfies PayoutWorkflowInput],
          searchAttributes: { BusinessId: 'biz_rec', Environment: 'sandbox', PayoutStatus: 'submitted', Channel: 'service_user_usdc' },
        })),
      };
    }
    b.claims.set(claimSeq, r);
    return r;
  },
  /** The scripted claim, then its items started with this file's client, as src/core/disbursements does. */
  async disbursementClaimAndStartItems(input): Promise<ClaimStartResult> {
    const { items, ...flags } = await disbursementActivities.disbursementClaimItems(input);
    for (const item of items) {
      await client.workflow
        .start(item.workflowType, {
          taskQueue: item.taskQueue,
          workflowId: item.payoutId,
          args: claimedItemArgs(item, true),
          typedSearchAttributes: typedAttributes({ ...item.searchAttributes, DisbursementId: input.disbursementId } as KeywordAttributes),
        })
        .catch((err: unknown) => {
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        });
    }
    return { ...flags, started: items.length };
  },
  async disbursementFinalize({ disbursementId }): Promise<FinalizeResult> {
    const b = batches.get(disbursementId)!;
    const pending = b.items.length - b.next;
    if (pending > 0 || b.inFlight.size > 0) return { done: false, paused: b.paused, pending, processing: b.inFlight.size };
    return { done: true, status: b.failed > 0 ? 'completed_with_failures' : 'completed' };
  },
  async disbursementProjectionStatus({ disbursementId }) {
    return batches.get(disbursementId)!.paused ? 'paused' : 'processing';
  },
};

let client: Client;
let connection: Connection;
let worker: Worker;
let workerRun: Promise<void>;

beforeAll(async () => {
  taskQueue = `histories-${Date.now()}`;
  const native = await NativeConnection.connect({ address: inject('temporalAddress') });
  worker = await Worker.create({
    connection: native,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: { ...payoutActivities, ...disbursementActivities },
  });
  workerRun = worker.run();
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection });
});
afterAll(async () => {
  worker?.shutdown();
  await workerRun;
  await connection?.close();
});

async function until(what: string, fn: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Writes the history of `handle`'s run `runId` (default: its latest run) as fixture `<prefix>-<date>-<name>.json`. */
async function record(prefix: string, name: string, handle: WorkflowHandle, runId?: string): Promise<void> {
  const h = runId ? client.workflow.getHandle(handle.workflowId, runId) : handle;
  const history = await h.fetchHistory();
  const json = temporal.api.history.v1.History.fromObject(history as any).toJSON();
  writeFileSync(new URL(`${prefix}-${RECORD}-${name}.json`, HISTORIES), `${JSON.stringify(json, null, 1)}\n`);
}

const statusIs = (id: string, s: PayoutStatus) => () => statuses.get(id) === s;

/** A payout path: its input and script, what the test does to it, and whether it ends. */
interface PayoutPath {
  input: Omit<PayoutWorkflowInput, 'payoutId'>;
  script?: Script;
  drive?: (h: WorkflowHandle, id: string) => Promise<void>;
  /** The final status, or `running` for a history recorded mid-wait. */
  ends: PayoutStatus | 'running';
}

const railEvent = (type: PayoutRailEvent['type'], n: number, failure?: PayoutRailEvent['failure']): PayoutRailEvent => ({
  id: `rf_rec:${n}`,
  attempt: 1,
  type,
  at: '2026-11-27T09:00:00.000Z',
  ...(failure ? { failure } : {}),
});

const PAYOUT_PATHS: Record<string, PayoutPath> = {
  'rail-settled': {
    input: { channel: 'sepa_eur' },
    script: { attempts: [accepted()] },
    drive: async (h, id) => {
      await until('delivering', statusIs(id, 'delivering'));
      await h.signal(railEventSignal, railEvent('accepted', 0));
      await h.signal(railEventSignal, railEvent('settled', 1));
    },
    ends: 'succeeded',
  },
  'rail-returned': {
    input: { channel: 'sepa_eur' },
    script: { attempts: [accepted(60_000, 60_000)] },
    drive: async (h, id) => {
      await until('delivering', statusIs(id, 'delivering'));
      await h.signal(railEventSignal, railEvent('settled', 0));
      await until('succeeded', statusIs(id, 'succeeded'));
      await h.signal(railEventSignal, railEvent('returned', 1, { code: 'refunded_by_provider', message: 'Account closed', retryable: false, railReasonCode: 'AC04' }));
    },
    ends: 'refunded',
  },
  'rail-rejected': {
    input: { channel: 'sepa_eur' },
    script: { attempts: [accepted()] },
    drive: async (h, id) => {
      await until('delivering', statusIs(id, 'delivering'));
      await h.signal(railEventSignal, railEvent('rejected', 0, { code: 'invalid_destination', message: 'Account number incorrect', retryable: false, railReasonCode: 'AC01' }));
    },
    ends: 'failed',
  },
  'rail-overdue': {
    input: { channel: 'sepa_eur' },
    script: { attempts: [accepted(300)], railStatus: [[], [railEvent('settled', 0)]] },
    ends: 'succeeded',
  },
  'rail-running': { input: { channel: 'sepa_eur' }, script: { attempts: [accepted()] }, ends: 'running' },
  'provider-timeout': { input: { channel: 'service_user_usdc' }, script: { attempts: [rejected(true), rejected(true), rejected(true)] }, ends: 'failed' },
  'claim-claimed': {
    input: { channel: 'claim_link', notify: true },
    drive: async (h, id) => {
      await until('awaiting_claim', statusIs(id, 'awaiting_claim'));
      expect(await h.executeUpdate(claimUpdate, { args: [{ method: 'bank_transfer' }] })).toBe('claimed');
    },
    ends: 'succeeded',
  },
  'claim-canceled-notify-failed': {
    input: { channel: 'claim_link', notify: true },
    script: { notifyFails: true },
    drive: async (h, id) => {
      await until('awaiting_claim', statusIs(id, 'awaiting_claim'));
      expect(await h.executeUpdate(cancelUpdate)).toBe('canceled');
    },
    ends: 'canceled',
  },
  'claim-notify-retried': {
    input: { channel: 'claim_link', notify: true, notifyFirst: 'local' },
    script: { notifyFailsOnce: true },
    drive: async (h, id) => {
      await until('awaiting_claim', statusIs(id, 'awaiting_claim'));
      await until('notified', () => notifyFailed.has(id));
      await new Promise((r) => setTimeout(r, 1500));
      expect(await h.executeUpdate(claimUpdate, { args: [{ method: 'wallet' }] })).toBe('claimed');
    },
    ends: 'succeeded',
  },
  'claim-expired': { input: { channel: 'claim_link' }, script: { claimWindowMs: 500 }, ends: 'failed' },
  'claim-test-clock-expired': {
    input: { channel: 'claim_link' },
    drive: async (h, id) => {
      await until('awaiting_claim', statusIs(id, 'awaiting_claim'));
      await h.signal(testClockAdvanceSignal, { advanceId: 'tca_1', byMs: 30_000 });
      await h.signal(testClockAdvanceSignal, { advanceId: 'tca_2', byMs: 60_000 });
    },
    ends: 'failed',
  },
  'claim-running': { input: { channel: 'claim_link' }, ends: 'running' },
  'approval-approved': {
    input: { channel: 'service_user_usdc', approval: { timeoutMs: 60_000 } },
    drive: async (h) => {
      await new Promise((r) => setTimeout(r, 300));
      expect(await h.executeUpdate(approveUpdate, { args: [{ keyId: 'key_2' }] })).toBe('submitted');
    },
    ends: 'succeeded',
  },
  'approval-approved-claim-link': {
    input: { channel: 'claim_link', approval: { timeoutMs: 60_000 } },
    drive: async (h, id) => {
      await new Promise((r) => setTimeout(r, 300));
      await h.executeUpdate(approveUpdate, { args: [{ keyId: 'key_2' }] });
      await until('awaiting_claim', statusIs(id, 'awaiting_claim'));
      await h.executeUpdate(claimUpdate, { args: [{ method: 'wallet' }] });
    },
    ends: 'succeeded',
  },
  'approval-rejected': {
    input: { channel: 'service_user_usdc', approval: { timeoutMs: 60_000 } },
    drive: async (h) => {
      await new Promise((r) => setTimeout(r, 300));
      expect(await h.executeUpdate(rejectUpdate, { args: [{ keyId: 'key_2', reason: 'not this one' }] })).toBe('canceled');
    },
    ends: 'canceled',
  },
  'approval-canceled': {
    input: { channel: 'service_user_usdc', approval: { timeoutMs: 60_000 } },
    drive: async (h) => {
      await new Promise((r) => setTimeout(r, 300));
      expect(await h.executeUpdate(cancelUpdate)).toBe('canceled');
    },
    ends: 'canceled',
  },
  'approval-expired': { input: { channel: 'service_user_usdc', approval: { timeoutMs: 500 } }, ends: 'canceled' },
  'approval-running': { input: { channel: 'service_user_usdc', approval: { timeoutMs: 60_000 } }, ends: 'running' },
};

/** `path` with the notification's first attempt in the workflow task (input `notifyFirst: 'local'`, issue #39). */
const notifyLocalFirst = (path: PayoutPath): PayoutPath => ({ ...path, input: { ...path.input, notifyFirst: 'local' } });
PAYOUT_PATHS['claim-notified-local'] = notifyLocalFirst(PAYOUT_PATHS['claim-claimed']!);
PAYOUT_PATHS['claim-notify-refused'] = notifyLocalFirst(PAYOUT_PATHS['claim-canceled-notify-failed']!);
/** `path` started at {@link PAYOUT_PATCH_LEVEL} (its patches' new paths without their markers, issue #39). */
const atPatchLevel = (path: PayoutPath): PayoutPath => ({ ...path, input: { ...path.input, patchLevel: PAYOUT_PATCH_LEVEL } });
PAYOUT_PATHS['claim-claimed-patch-level'] = atPatchLevel(PAYOUT_PATHS['claim-notified-local']!);
PAYOUT_PATHS['approval-approved-patch-level'] = atPatchLevel(PAYOUT_PATHS['approval-approved']!);
PAYOUT_PATHS['claim-test-clock-expired-patch-level'] = atPatchLevel(PAYOUT_PATHS['claim-test-clock-expired']!);

/** The checks phase (input `checks`, issue #52): screening and Verification of Payee before the rail. */
const checked = (input: Omit<PayoutWorkflowInput, 'payoutId'> = { channel: 'service_user_usdc' }): Omit<PayoutWorkflowInput, 'payoutId'> => ({ ...input, patchLevel: PAYOUT_PATCH_LEVEL, checks: PAYOUT_CHECKS_LEVEL });
const review: PayoutScreeningStep = { outcome: 'review', screeningId: 'scr_rec', caseId: 'scc_rec' };
const screenedClear: PayoutScreeningStep = { outcome: 'clear', screeningId: 'scr_rec' };
const afterScreening = (id: string) => until('screened', () => (screenCalls.get(id) ?? 0) > 0);
const payeeWait = (result: 'close_match' | 'no_match', confirmWithinMs = 60_000): PayeeVerificationStep => ({ outcome: 'confirm', result, confirmWithinMs });
Object.assign(PAYOUT_PATHS, {
  'checks-clear': { input: checked(), ends: 'succeeded' },
  'checks-released': {
    input: checked(),
    script: { screening: [review, screenedClear] },
    drive: async (h: WorkflowHandle, id: string) => {
      await afterScreening(id);
      await h.signal(screeningDecisionSignal, { caseId: 'scc_rec', decision: 'released' });
    },
    ends: 'succeeded',
  },
  'checks-rejected': {
    input: checked(),
    script: { screening: [review] },
    drive: async (h: WorkflowHandle, id: string) => {
      await afterScreening(id);
      await h.signal(screeningDecisionSignal, { caseId: 'scc_rec', decision: 'rejected', reason: 'listed' });
    },
    ends: 'failed',
  },
  'checks-refused': { input: checked(), script: { screening: [{ outcome: 'refused', screeningId: 'scr_rec', failure: { code: 'screening_rejected', message: 'Confirmed match' } }] }, ends: 'failed' },
  'checks-unavailable-recheck': {
    input: checked(),
    script: { screening: [{ outcome: 'unavailable', screeningId: 'scr_rec', reasons: ['stale'], retryAfterMs: 60_000 }, screenedClear] },
    drive: async (h: WorkflowHandle, id: string) => {
      await afterScreening(id);
      await h.signal(screeningRecheckSignal);
    },
    ends: 'succeeded',
  },
  'checks-review-running': { input: checked(), script: { screening: [review] }, ends: 'running' },
  'checks-payee-confirmed': {
    input: checked({ channel: 'sepa_eur' }),
    script: { payee: payeeWait('close_match'), attempts: [settled()] },
    drive: async (h: WorkflowHandle) => {
      await until('payee wait', async () => (await h.executeUpdate(confirmPayeeUpdate, { args: [{ keyId: 'key_rec' }] }).catch(() => null)) === 'submitted');
    },
    ends: 'succeeded',
  },
  'checks-payee-canceled': {
    input: checked({ channel: 'sepa_eur' }),
    script: { payee: payeeWait('no_match') },
    drive: async (h: WorkflowHandle) => {
      await until('payee wait', async () => (await h.executeUpdate(cancelUpdate).catch(() => null)) === 'canceled');
    },
    ends: 'canceled',
  },
  'checks-payee-expired': { input: checked({ channel: 'sepa_eur' }), script: { payee: payeeWait('close_match', 300) }, ends: 'canceled' },
  'checks-claim-released': {
    input: checked({ channel: 'claim_link' }),
    script: { screening: [review, screenedClear] },
    drive: async (h: WorkflowHandle, id: string) => {
      await until('awaiting_claim', statusIs(id, 'awaiting_claim'));
      expect(await h.executeUpdate(claimUpdate, { args: [{ method: 'bank_transfer' }] })).toBe('claimed');
      await afterScreening(id);
      await h.signal(screeningDecisionSignal, { caseId: 'scc_rec', decision: 'released' });
    },
    ends: 'succeeded',
  },
} satisfies Record<string, PayoutPath>);

describe.runIf(RECORD)('recording workflow histories', () => {
  it.each(Object.keys(PAYOUT_PATHS))('payout path %s', async (name) => {
    const path = PAYOUT_PATHS[name]!;
    const payoutId = `po_rec_${name}_${Date.now()}`;
    if (path.script) scripts.set(payoutId, path.script);
    statuses.set(payoutId, path.input.approval ? 'pending' : 'submitted');
    const handle = await client.workflow.start('payoutWorkflow', { taskQueue, workflowId: payoutId, args: [{ payoutId, ...path.input }] });
    await path.drive?.(handle, payoutId);
    if (path.ends === 'running') await new Promise((r) => setTimeout(r, 1500));
    else expect(await handle.result()).toEqual({ payoutId, status: path.ends });
    await record('payout', name, handle);
    if (path.ends === 'running') await handle.terminate('recorded');
  });

  const batch = (id: string, n: number, failing: number[], window: number) => {
    const items = Array.from({ length: n }, (_, i) => `${id}_po${i}`);
    for (const i of failing) scripts.set(items[i]!, { attempts: [rejected(false)] });
    batches.set(id, { items, next: 0, inFlight: new Set(), failed: 0, paused: false, claims: new Map(), window });
  };

  it('disbursement completed with failures (window 4, claim batch 3)', async () => {
    const id = `dsb_rec_failures_${Date.now()}`;
    batch(id, 8, [2, 5], 4);
    const handle = await client.workflow.start('disbursementWorkflow', {
      taskQueue,
      workflowId: id,
      args: [{ disbursementId: id, businessId: 'biz_rec', environment: 'sandbox', window: 4, claimBatch: 3, itemsPerRun: 100 }],
    });
    expect(await handle.result()).toEqual({ disbursementId: id, status: 'completed_with_failures' });
    await record('disbursement', 'completed-with-failures', handle);
    await record('payout', 'disbursement-item', client.workflow.getHandle(batches.get(id)!.items[0]!));
  });

  it('disbursement paused, resumed and retried (retry-failed signal)', async () => {
    const id = `dsb_rec_paused_${Date.now()}`;
    batch(id, 6, [], 2);
    for (const p of batches.get(id)!.items) scripts.set(p, { attempts: [settled(600)] });
    const handle = await client.workflow.start('disbursementWorkflow', {
      taskQueue,
      workflowId: id,
      args: [{ disbursementId: id, businessId: 'biz_rec', environment: 'sandbox', window: 2, claimBatch: 2, itemsPerRun: 100 }],
    });
    const b = batches.get(id)!;
    await until('first claim', () => b.next > 0);
    b.paused = true;
    await handle.signal(pauseSignal);
    await until('in flight drained', () => b.inFlight.size === 0);
    await new Promise((r) => setTimeout(r, 500));
    b.paused = false;
    await handle.signal(resumeSignal);
    await until('second claim', () => b.next > 2);
    await handle.signal(retryFailedSignal);
    expect(await handle.result()).toEqual({ disbursementId: id, status: 'completed' });
    await record('disbursement', 'paused-resumed', handle);
  });

  it('disbursement continued as new (3 items per run)', async () => {
    const id = `dsb_rec_can_${Date.now()}`;
    batch(id, 7, [1], 3);
    const handle = await client.workflow.start('disbursementWorkflow', {
      taskQueue,
      workflowId: id,
      args: [{ disbursementId: id, businessId: 'biz_rec', environment: 'sandbox', window: 3, claimBatch: 3, itemsPerRun: 3 }],
    });
    expect(await client.workflow.getHandle(id).result()).toEqual({ disbursementId: id, status: 'completed_with_failures' });
    await record('disbursement', 'continued-first-run', handle, handle.firstExecutionRunId);
    await record('disbursement', 'continued-last-run', client.workflow.getHandle(id));
  });
});

/** The PayoutStatus values a run upserted, in order. */
async function payoutStatusUpserts(h: WorkflowHandle): Promise<string[]> {
  const { events } = await h.fetchHistory();
  return (events ?? [])
    .filter((e) => e.upsertWorkflowSearchAttributesEventAttributes)
    .map((e) => e.upsertWorkflowSearchAttributesEventAttributes!.searchAttributes?.indexedFields?.PayoutStatus?.data)
    .filter((d): d is Uint8Array => d != null)
    .map((d) => JSON.parse(Buffer.from(d).toString('utf8')) as string);
}

describe('disbursement children publish PayoutStatus at long waits only (issue #39)', () => {
  it("a settled item upserts its status once, at the end; an item waiting for its rail's answer still shows delivering", async () => {
    const id = `dsb_upserts_${Date.now()}`;
    const items = Array.from({ length: 3 }, (_, i) => `${id}_po${i}`);
    batches.set(id, { items, next: 0, inFlight: new Set(), failed: 0, paused: false, claims: new Map(), window: 3 });
    scripts.set(items[1]!, { attempts: [rejected(true), settled(200)] });
    scripts.set(items[2]!, { attempts: [accepted()] });
    const handle = await client.workflow.start('disbursementWorkflow', {
      taskQueue,
      workflowId: id,
      args: [{ disbursementId: id, businessId: 'biz_rec', environment: 'sandbox', window: 3, claimBatch: 3, itemsPerRun: 100 }],
    });
    const child = (i: number) => client.workflow.getHandle(items[i]!);
    await until('the rail item delivering', statusIs(items[2]!, 'delivering'));
    await until('its status published', async () => (await child(2).describe()).typedSearchAttributes.get(SA.PayoutStatus) === 'delivering');
    await child(2).signal(railEventSignal, railEvent('settled', 0));
    expect(await handle.result()).toEqual({ disbursementId: id, status: 'completed' });

    // Settled after the 0.2 s arrival timer (and after a 0.3 s retry backoff): one upsert each.
    expect(await payoutStatusUpserts(child(0))).toEqual(['succeeded']);
    expect(await payoutStatusUpserts(child(1))).toEqual(['succeeded']);
    expect(await payoutStatusUpserts(child(2))).toEqual(['delivering', 'succeeded']);
    for (const i of [0, 1, 2]) expect((await child(i).describe()).typedSearchAttributes.get(SA.PayoutStatus)).toBe('succeeded');
    // A payout started on its own keeps its status before every wait.
    const direct = `po_direct_${Date.now()}`;
    const h = await client.workflow.start('payoutWorkflow', { taskQueue, workflowId: direct, args: [{ payoutId: direct, channel: 'service_user_usdc' }] });
    await h.result();
    expect(await payoutStatusUpserts(h)).toEqual(['delivering', 'succeeded']);
  });
});

describe("the claim starts a disbursement's items, the run keeps no children (patched('39-items-started-by-claim'), issue #39)", () => {
  it('600 items complete in one run without child events; each item runs on its own with the DisbursementId attribute', async () => {
    const id = `dsb_long_${Date.now()}`;
    const items = Array.from({ length: 600 }, (_, i) => `${id}_po${i}`);
    batches.set(id, { items, next: 0, inFlight: new Set(), failed: 0, paused: false, claims: new Map(), window: 300 });
    for (const p of items) scripts.set(p, { attempts: [settled(0)] });
    const handle = await client.workflow.start('disbursementWorkflow', {
      taskQueue,
      workflowId: id,
      args: [{ disbursementId: id, businessId: 'biz_rec', environment: 'sandbox', window: 300, claimBatch: 100 }],
    });
    expect(await handle.result()).toEqual({ disbursementId: id, status: 'completed' });
    // The first run is the only one: its claims started all 600 payouts and it completed the batch itself.
    const { events } = await client.workflow.getHandle(id, handle.firstExecutionRunId).fetchHistory();
    const types = (events ?? []).map((e) => temporal.api.enums.v1.EventType[e.eventType!]);
    expect(types.at(-1)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
    expect(types.filter((t) => t.startsWith('EVENT_TYPE_START_CHILD') || t.startsWith('EVENT_TYPE_CHILD_'))).toEqual([]);
    const claims = (events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'disbursementClaimAndStartItems');
    expect(claims.length).toBeGreaterThanOrEqual(6);
    expect((events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')).toHaveLength(4);
    expect(items.every((p) => statuses.get(p) === 'succeeded')).toBe(true);
    const item = await client.workflow.getHandle(items[599]!).describe();
    expect(item.parentExecution).toBeUndefined();
    expect(item.typedSearchAttributes.get(SA.DisbursementId)).toBe(id);
    expect(await payoutStatusUpserts(client.workflow.getHandle(items[599]!))).toEqual(['succeeded']);
  }, 120_000);
});

describe('a payout started at PAYOUT_PATCH_LEVEL records no patch marker (issue #39)', () => {
  it('a claimed claim link and an approved payout: no marker, no TemporalChangeVersion, the same statuses', async () => {
    for (const name of ['claim-claimed', 'approval-approved']) {
      const path = atPatchLevel(PAYOUT_PATHS[name]!);
      const payoutId = `po_level_${name}_${Date.now()}`;
      statuses.set(payoutId, path.input.approval ? 'pending' : 'submitted');
      const handle = await client.workflow.start('payoutWorkflow', { taskQueue, workflowId: payoutId, args: [{ payoutId, ...path.input }] });
      await path.drive?.(handle, payoutId);
      expect(await handle.result()).toEqual({ payoutId, status: 'succeeded' });
      const { events } = await handle.fetchHistory();
      expect((events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')).toEqual([]);
      const upserted = (events ?? []).flatMap((e) => Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}));
      expect(upserted.filter((k) => k !== 'PayoutStatus')).toEqual([]);
      // The Update's effect ran as a regular activity, as under patched('update-effects-as-activities').
      expect((events ?? []).some((e) => e.activityTaskScheduledEventAttributes)).toBe(true);
    }
  });
});

describe('every recorded payout and disbursement history replays on today\'s code', () => {
  const files = readdirSync(HISTORIES).filter((f) => /^(payout|disbursement)-.*\.json$/.test(f)).sort();

  it(`${files.length} histories, with runWorkflowHistories`, async () => {
    const histories = files.map((f) => ({
      workflowId: f.replace(/\.json$/, ''),
      history: temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(new URL(f, HISTORIES), 'utf8'))),
    }));
    const failures: string[] = [];
    for await (const r of Worker.runReplayHistories({ workflowBundle: { codePath: inject('workflowBundlePath') } }, histories)) {
      if (r.error) failures.push(`${r.workflowId}: ${r.error.message}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('histories recorded before a retired patch are refused, not replayed on the wrong path', () => {
  const files = readdirSync(RETIRED_HISTORIES).filter((f) => f.endsWith('.json')).sort();

  it(`${files.length} retired histories, each a nondeterminism error`, async () => {
    expect(files.length).toBeGreaterThan(0);
    const histories = files.map((f) => ({
      workflowId: f.replace(/\.json$/, ''),
      history: temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(new URL(f, RETIRED_HISTORIES), 'utf8'))),
    }));
    const refused: string[] = [];
    for await (const r of Worker.runReplayHistories({ workflowBundle: { codePath: inject('workflowBundlePath') } }, histories)) {
      if (r.error instanceof DeterminismViolationError) refused.push(r.workflowId);
    }
    expect(refused).toEqual(histories.map((h) => h.workflowId));
  });
});
