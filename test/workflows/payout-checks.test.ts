/**
 * The checks phase of payoutWorkflow (docs/screening.md "Holding payouts", docs/payee-verification.md):
 * the orchestration alone. The screening and Verification of Payee steps are scripted per payout
 * (their answers are the contract's shapes); every other activity is the real one, so the holds,
 * the transitions and the ledger are real. End-to-end paths with the real screening and the test
 * bank are in test/e2e/screening-holds.test.ts.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities';
import { drainWorkflowStarts } from '../../src/core/workflow-starts';
import {
  cancelUpdate,
  confirmPayeeUpdate,
  type PayeeVerificationStep,
  type PayoutScreeningStep,
  screeningDecisionSignal,
  screeningRecheckSignal,
} from '../../workflows/payout.contract';
import { createHarness, type Harness } from '../helpers/harness';
import { waitFor } from '../helpers/wait-for';

let h: Harness;
let biz: { id: string; sandbox: string; live: string };

/** Per payout: the screening answers in order (the last repeats), the VoP answer, and what was decided. */
interface Script {
  screening: PayoutScreeningStep[];
  payee: PayeeVerificationStep;
  screenCalls: number;
  decisions: string[];
}
const scripts = new Map<string, Script>();

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
  const r = await h.request('POST', '/sandbox/v1/sandbox/fund', { key: biz.sandbox, body: { amount: '1000' } });
  expect(r.status).toBe(200);
}, 60_000);
afterAll(async () => h?.close());

async function withWorker<T>(fn: () => Promise<T>): Promise<T> {
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const script = (payoutId: string) => {
    const s = scripts.get(payoutId);
    if (!s) throw new Error(`no script for ${payoutId}`);
    return s;
  };
  try {
    const worker = await Worker.create({
      connection,
      namespace: h.config.TEMPORAL_NAMESPACE,
      taskQueue: h.config.TASK_QUEUE,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: {
        ...createActivities(h.core),
        async payoutScreen({ payoutId }: { payoutId: string }) {
          const s = script(payoutId);
          return s.screening[Math.min(s.screenCalls++, s.screening.length - 1)]!;
        },
        async payoutVerifyPayee({ payoutId }: { payoutId: string }) {
          return script(payoutId).payee;
        },
        async payoutPayeeDecision({ payoutId, decision }: { payoutId: string; decision: string }) {
          script(payoutId).decisions.push(decision);
        },
      },
    });
    return await worker.runUntil(fn());
  } finally {
    await connection.close();
  }
}

const clear: PayoutScreeningStep = { outcome: 'clear', screeningId: 'scr_clear' };
const review = (caseId: string): PayoutScreeningStep => ({ outcome: 'review', screeningId: 'scr_hit', caseId });

/** A sandbox payout of 10 USDC that settles at once, its workflow started and its checks scripted. */
async function payout(screening: PayoutScreeningStep[], payee: PayeeVerificationStep = { outcome: 'skipped' }): Promise<string> {
  const r = await h.request('POST', '/sandbox/v1/payouts', {
    key: biz.sandbox,
    body: { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: '10' },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  scripts.set(r.body.id, { screening, payee, screenCalls: 0, decisions: [] });
  await drainWorkflowStarts(h.core);
  return r.body.id as string;
}

const row = (id: string) => h.db.selectFrom('payouts').select(['status', 'failure_code', 'failure_message']).where('id', '=', id).executeTakeFirstOrThrow();
const result = (id: string) => h.core.temporal.workflow.getHandle(id).result();
const postings = async (id: string) =>
  (await h.db.selectFrom('ledger_postings').select('key').where('key', 'like', `payout:${id}:%`).orderBy('id').execute()).map((p) => p.key.split(':')[2]);
/** Resolves once the run has asked for `n` screenings (it is then waiting on what the last one answered). */
const screened = (id: string, n = 1) => waitFor(async () => scripts.get(id)!.screenCalls >= n, `${id} screened ${n} time(s)`);

describe('payoutWorkflow checks phase', () => {
  it('a clear screening and no payee check go straight to the rail', async () => {
    await withWorker(async () => {
      const id = await payout([clear]);
      expect(await result(id)).toMatchObject({ status: 'succeeded' });
      expect(scripts.get(id)!.screenCalls).toBe(1);
    });
  });

  it('a potential match holds the payout submitted until the operators release it, then pays it', async () => {
    await withWorker(async () => {
      const id = await payout([review('scc_release'), clear]);
      await screened(id);
      await new Promise((r) => setTimeout(r, 300));
      expect((await row(id)).status).toBe('submitted');
      expect(await postings(id)).toEqual(['hold']);
      // A decision about another case changes nothing.
      await h.core.temporal.workflow.getHandle(id).signal(screeningDecisionSignal, { caseId: 'scc_other', decision: 'rejected' });
      await new Promise((r) => setTimeout(r, 300));
      expect((await row(id)).status).toBe('submitted');
      await h.core.temporal.workflow.getHandle(id).signal(screeningDecisionSignal, { caseId: 'scc_release', decision: 'released' });
      expect(await result(id)).toMatchObject({ status: 'succeeded' });
      expect(await postings(id)).toEqual(['hold', 'settle']);
      // Released: the run asked again and the step answered clear (the case is decided).
      expect(scripts.get(id)!.screenCalls).toBe(2);
    });
  });

  it('a rejection fails the payout with screening_rejected and returns the held funds', async () => {
    await withWorker(async () => {
      const id = await payout([review('scc_reject')]);
      await screened(id);
      await h.core.temporal.workflow.getHandle(id).signal(screeningDecisionSignal, { caseId: 'scc_reject', decision: 'rejected', reason: 'listed entity' });
      expect(await result(id)).toMatchObject({ status: 'failed' });
      const r = await row(id);
      expect(r.failure_code).toBe('screening_rejected');
      expect(r.failure_message).toContain('listed entity');
      expect(await postings(id)).toEqual(['hold', 'release']);
    });
  });

  it('a confirmed match is refused without a review', async () => {
    await withWorker(async () => {
      const id = await payout([{ outcome: 'refused', screeningId: 'scr_c', failure: { code: 'screening_rejected', message: 'Confirmed sanctions match' } }]);
      expect(await result(id)).toMatchObject({ status: 'failed' });
      expect((await row(id)).failure_code).toBe('screening_rejected');
      expect(await postings(id)).toEqual(['hold', 'release']);
    });
  });

  it('unavailable screening waits (fail closed) and screens again on the recheck signal, not before', async () => {
    await withWorker(async () => {
      const id = await payout([{ outcome: 'unavailable', screeningId: 'scr_u', reasons: ['list ofac-sdn-csv is stale'], retryAfterMs: 3_600_000 }, clear]);
      await screened(id);
      await new Promise((r) => setTimeout(r, 500));
      expect(scripts.get(id)!.screenCalls).toBe(1);
      expect((await row(id)).status).toBe('submitted');
      await h.core.temporal.workflow.getHandle(id).signal(screeningRecheckSignal);
      expect(await result(id)).toMatchObject({ status: 'succeeded' });
      expect(scripts.get(id)!.screenCalls).toBe(2);
    });
  });

  it('unavailable screening screens again after its recheck interval', async () => {
    await withWorker(async () => {
      const id = await payout([{ outcome: 'unavailable', screeningId: 'scr_u', reasons: ['stale'], retryAfterMs: 200 }, { outcome: 'unavailable', screeningId: 'scr_u', reasons: ['stale'], retryAfterMs: 200 }, clear]);
      expect(await result(id)).toMatchObject({ status: 'succeeded' });
      expect(scripts.get(id)!.screenCalls).toBe(3);
    });
  });

  it('a payee close match waits for the business: confirmPayee pays it', async () => {
    await withWorker(async () => {
      const id = await payout([clear], { outcome: 'confirm', result: 'close_match', confirmWithinMs: 3_600_000 });
      const handle = h.core.temporal.workflow.getHandle(id);
      await screened(id);
      await new Promise((r) => setTimeout(r, 300));
      expect((await row(id)).status).toBe('submitted');
      expect(await handle.executeUpdate(confirmPayeeUpdate, { args: [{ keyId: 'key_test' }] })).toBe('submitted');
      expect(await result(id)).toMatchObject({ status: 'succeeded' });
      expect(scripts.get(id)!.decisions).toEqual(['confirmed']);
      // Once answered, neither a second confirmation nor a cancel is accepted.
      await expect(handle.executeUpdate(confirmPayeeUpdate, { args: [{ keyId: 'key_test' }] })).rejects.toThrow();
    });
  });

  it('a payee no match canceled by the business ends canceled with the hold released', async () => {
    await withWorker(async () => {
      const id = await payout([clear], { outcome: 'confirm', result: 'no_match', confirmWithinMs: 3_600_000 });
      const handle = h.core.temporal.workflow.getHandle(id);
      await screened(id);
      await waitFor(async () => {
        try {
          return (await handle.executeUpdate(cancelUpdate)) === 'canceled';
        } catch (err) {
          if (err instanceof WorkflowUpdateFailedError) return false; // not yet waiting for the payee
          throw err;
        }
      }, 'cancel accepted');
      expect(await result(id)).toMatchObject({ status: 'canceled' });
      expect(scripts.get(id)!.decisions).toEqual(['canceled']);
      expect(await postings(id)).toEqual(['hold', 'release']);
    });
  });

  it('a payee confirmation not given in time cancels the payout with payee_not_confirmed', async () => {
    await withWorker(async () => {
      const id = await payout([clear], { outcome: 'confirm', result: 'close_match', confirmWithinMs: 300 });
      expect(await result(id)).toMatchObject({ status: 'canceled' });
      expect((await row(id)).failure_code).toBe('payee_not_confirmed');
      expect(scripts.get(id)!.decisions).toEqual(['expired']);
      expect(await postings(id)).toEqual(['hold', 'release']);
    });
  });

  it('confirmPayee is refused while the payout is held for screening review, and so is cancel', async () => {
    await withWorker(async () => {
      const id = await payout([review('scc_hold'), clear]);
      const handle = h.core.temporal.workflow.getHandle(id);
      await screened(id);
      await expect(handle.executeUpdate(confirmPayeeUpdate, { args: [{ keyId: 'key_test' }] })).rejects.toThrow(WorkflowUpdateFailedError);
      await expect(handle.executeUpdate(cancelUpdate)).rejects.toThrow(WorkflowUpdateFailedError);
      await handle.signal(screeningDecisionSignal, { caseId: 'scc_hold', decision: 'released' });
      expect(await result(id)).toMatchObject({ status: 'succeeded' });
    });
  });
});
