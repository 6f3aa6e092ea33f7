import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/context';
import { launchDisbursement, recoverDisbursementRuns, retryFailedItems, type RunOptions } from '../../src/core/disbursements';
import { SA } from '../../src/temporal/search-attributes';
import { disbursementStatusQuery } from '../../workflows/disbursement.contract';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * The disbursement run against a real database and Temporal dev server (docs/disbursements.md):
 * launch to completion (sliding window, continue-as-new), failures and retry-failed, correction
 * mode, pause/resume, a worker restart mid-batch, and the results export. Batches stay small.
 */

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';
type Biz = { id: string; sandbox: string; approver: string; caller: Caller };

async function newBiz(fund = '10000'): Promise<Biz> {
  const b = await h.business();
  const owner = await h.db
    .selectFrom('api_keys')
    .select('id')
    .where('business_id', '=', b.id)
    .where('environment', '=', 'sandbox')
    .executeTakeFirstOrThrow();
  const k = await h.request('POST', `${A}/api-keys`, { key: b.sandbox, body: { name: 'Approver' } });
  expect(k.status).toBe(201);
  const f = await h.request('POST', `${A}/sandbox/fund`, { key: b.sandbox, body: { amount: fund } });
  expect(f.status).toBe(200);
  return { id: b.id, sandbox: b.sandbox, approver: k.body.key, caller: { businessId: b.id, environment: 'sandbox', keyId: owner.id, role: 'owner', policy: null } };
}

const user = (i: number, amount = '10.00', reference?: string) => ({
  channel: 'service_user_usdc',
  source_amount: amount,
  recipient: { type: 'service_user', handle: `@payee${i}` },
  ...(reference ? { reference } : {}),
});
const wallet = (i: number, amount = '20.00') => ({
  channel: 'stellar_usdc',
  source_amount: amount,
  recipient: { type: 'wallet', network: 'stellar', address: `G${'A'.repeat(50)}${String(i).padStart(5, '2').replace(/[0189]/g, 'B')}` },
});
const pagomovil = (amount = '15.00') => ({
  channel: 'pagomovil_ves',
  source_amount: amount,
  reference: 'pm-1',
  recipient: {
    type: 'pagomovil',
    phone_number: '+584121234567',
    bank_code: '0102',
    national_id: 'V12345678',
    holder_name: 'Ana Perez',
    date_of_birth: '1990-01-31',
  },
});

/** Creates, submits (owner) and approves (second key) a disbursement; returns its id. */
async function approved(b: Biz, items: unknown[]): Promise<string> {
  const d = await h.request('POST', `${A}/disbursements`, { key: b.sandbox, body: { name: 'Batch', items } });
  expect(d.status).toBe(201);
  expect(d.body.status).toBe('ready');
  const s = await h.request('POST', `${A}/disbursements/${d.body.id}/submit-for-approval`, { key: b.sandbox });
  expect(s.status).toBe(200);
  const a = await h.request('POST', `${A}/disbursements/${d.body.id}/approvals/${s.body.revision_id}/approve`, { key: b.approver });
  expect(a.status).toBe(200);
  expect(a.body.status).toBe('approved');
  return d.body.id;
}

async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const get = async (b: Biz, id: string) => (await h.request('GET', `${A}/disbursements/${id}`, { key: b.sandbox })).body;
const waitFinal = (b: Biz, id: string) =>
  waitFor(async () => {
    const d = await get(b, id);
    return d.status === 'completed' || d.status === 'completed_with_failures' ? d : undefined;
  }, `${id} to complete`);
const allItems = async (b: Biz, id: string) => (await h.request('GET', `${A}/disbursements/${id}/items?limit=200`, { key: b.sandbox })).body.data;
const balance = async (b: Biz) => (await h.request('GET', `${A}/balance`, { key: b.sandbox })).body;
const events = async (id: string) =>
  (await h.db.selectFrom('events').select('type').where('object_id', '=', id).orderBy('created_at').execute()).map((e) => e.type);

/** Payouts per item, with their attempts and settle postings. */
async function payoutsByItem(id: string) {
  const rows = await h.db
    .selectFrom('payouts')
    .select(['id', 'disbursement_item_id', 'status', 'debit_total'])
    .select((eb) => eb.ref('disbursement_attempt' as any).as('attempt'))
    .where('disbursement_id', '=', id)
    .execute();
  const settles = await h.db
    .selectFrom('ledger_postings')
    .select('key')
    .where('key', 'in', rows.length ? rows.map((r) => `payout:${r.id}:settle`) : ['-'])
    .execute();
  const settled = new Set(settles.map((s) => s.key.split(':')[1]));
  const out = new Map<string, { id: string; status: string; attempt: number; settled: boolean; debit: bigint }[]>();
  for (const r of rows) {
    const list = out.get(r.disbursement_item_id as string) ?? [];
    list.push({ id: r.id, status: r.status, attempt: Number((r as any).attempt), settled: settled.has(r.id), debit: r.debit_total });
    out.set(r.disbursement_item_id as string, list);
  }
  return { byItem: out, settleCount: settles.length };
}

/** Per-test limit: batches wait on a shared Temporal dev server, slower on a loaded CI machine. */
const SLOW = 150_000;

/** Micro-USDC of a decimal string (test arithmetic only). */
const micro = (v: string) => {
  const [i, f = ''] = v.split('.');
  return BigInt(i) * 1_000_000n + BigInt((f + '000000').slice(0, 6));
};

describe('launch to completion', () => {
  it('20 items: held once, every item paid exactly once, continue-as-new, disbursement.completed, balance exact', async () => {
    const b = await newBiz('1000');
    const items = Array.from({ length: 20 }, (_, i) => (i % 4 === 0 ? wallet(i) : user(i, `${i + 1}.25`)));
    const id = await approved(b, items);
    const before = await get(b, id);
    const total = micro(before.balance_check.required);
    expect(before.balance_check.ok).toBe(true);

    const opts: RunOptions = { window: 4, claimBatch: 3, itemsPerRun: 7 };
    const launched = await launchDisbursement(h.core, b.caller, id, opts);
    expect(launched.status).toBe('processing');
    expect(launched.progress).toMatchObject({ pending: 20, processing: 0, succeeded: 0, failed: 0 });
    // The batch total was held at once.
    const held = await h.db.selectFrom('ledger_postings').select(['amount', 'key']).where('key', 'like', `disbursement:${id}:hold:%`).execute();
    expect(held).toHaveLength(1);
    expect(held[0].amount).toBe(total);

    const done = await waitFinal(b, id);
    expect(done.status).toBe('completed');
    expect(done.progress).toEqual({ pending: 0, processing: 0, succeeded: 20, failed: 0, refunded: 0 });
    expect(done.completed_at).not.toBeNull();

    const { byItem, settleCount } = await payoutsByItem(id);
    expect(byItem.size).toBe(20);
    for (const list of byItem.values()) {
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ status: 'succeeded', attempt: 1, settled: true });
    }
    expect(settleCount).toBe(20);
    const bal = await balance(b);
    expect(micro(bal.available)).toBe(micro('1000') - total);
    expect(bal.held).toBe('0.00');

    const ev = await events(id);
    expect(ev.filter((e) => e === 'disbursement.launched')).toHaveLength(1);
    expect(ev.filter((e) => e === 'disbursement.completed')).toHaveLength(1);
    const list = await allItems(b, id);
    expect(list.every((i: any) => i.status === 'succeeded' && i.attempts === 1 && i.payout_id)).toBe(true);

    // Temporal: several runs (continue-as-new), the status attribute, DisbursementId on the payouts.
    const runs: { status: { name: string } }[] = [];
    await waitFor(async () => {
      runs.length = 0;
      for await (const w of h.core.temporal.workflow.list({ query: `WorkflowId = '${id}'` })) runs.push(w as any);
      return runs.length >= 3;
    }, 'the runs to be listed');
    expect(runs.filter((r) => r.status.name === 'CONTINUED_AS_NEW').length).toBeGreaterThanOrEqual(2);
    // The projection turns completed inside the finalize activity; the workflow upserts the search
    // attribute in its next task, so on a loaded machine describe can briefly still say processing.
    await waitFor(async () => {
      const d = await h.core.temporal.workflow.getHandle(id).describe();
      return d.typedSearchAttributes.get(SA.DisbursementStatus) === 'completed';
    }, 'DisbursementStatus completed');
    const desc = await h.core.temporal.workflow.getHandle(id).describe();
    expect(desc.typedSearchAttributes.get(SA.DisbursementStatus)).toBe('completed');
    expect(desc.typedSearchAttributes.get(SA.BusinessId)).toBe(b.id);
    const payoutDesc = await h.core.temporal.workflow.getHandle(list[0].payout_id).describe();
    expect(payoutDesc.typedSearchAttributes.get(SA.DisbursementId)).toBe(id);
    // The claim started it (patched('39-items-started-by-claim')): a workflow of its own, not a child.
    expect(payoutDesc.parentExecution).toBeUndefined();
  }, SLOW);
});

describe('the window across continue-as-new', () => {
  it('never has more than `window` payouts in flight, counting the children of earlier runs; runs on the batch queue', async () => {
    const b = await newBiz('1000');
    const id = await approved(
      b,
      Array.from({ length: 12 }, (_, i) => user(i, '1')),
    );
    // Each run starts 2 items and hands over without waiting for them: only the count in
    // PostgreSQL keeps the next run from going past the window.
    await launchDisbursement(h.core, b.caller, id, { window: 3, claimBatch: 2, itemsPerRun: 2 });
    let maxInFlight = 0;
    let samples = 0;
    await waitFor(async () => {
      const { n } = await h.db
        .selectFrom('payouts')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('disbursement_id', '=', id)
        .where('status', 'in', ['pending', 'submitted', 'claimed', 'delivering'])
        .executeTakeFirstOrThrow();
      maxInFlight = Math.max(maxInFlight, Number(n));
      samples++;
      const d = await get(b, id);
      return d.status === 'completed';
    }, `${id} to complete`);
    expect(samples).toBeGreaterThan(1);
    expect(maxInFlight).toBeGreaterThan(0);
    expect(maxInFlight).toBeLessThanOrEqual(3);
    const { byItem } = await payoutsByItem(id);
    expect([...byItem.values()].every((l) => l.length === 1 && l[0].status === 'succeeded')).toBe(true);

    const desc = await h.core.temporal.workflow.getHandle(id).describe();
    expect(desc.taskQueue).toBe(`${h.core.config.TASK_QUEUE}-batches`);
    // Visibility is eventually consistent: wait for the continued runs to be listed.
    await waitFor(async () => {
      let continued = 0;
      for await (const _ of h.core.temporal.workflow.list({ query: `WorkflowId = '${id}' AND ExecutionStatus = 'ContinuedAsNew'` })) continued++;
      return continued >= 5;
    }, 'at least 5 continued runs to be listed');
    const payout = await h.core.temporal.workflow.getHandle(byItem.values().next().value![0].id).describe();
    expect(payout.taskQueue).toBe(h.core.config.TASK_QUEUE);
  }, SLOW);
});

describe('failures, retry-failed and correction mode', () => {
  it('retries only retryable failures as new attempts, corrected items too, and never pays an item twice', async () => {
    const b = await newBiz('1000');
    const items = [
      user(1, '10'),
      user(2, '10'),
      user(3, '10'),
      user(4, '10', 'sandbox:provider_declined'),
      user(5, '10', 'sandbox:provider_declined'),
      user(6, '10', 'sandbox:provider_timeout'),
      user(7, '10', 'sandbox:provider_timeout'),
    ];
    const id = await approved(b, items);
    const l = await h.request('POST', `${A}/disbursements/${id}/launch`, { key: b.sandbox });
    expect(l.status).toBe(200);
    expect(l.body.status).toBe('processing');

    const first = await waitFinal(b, id);
    expect(first.status).toBe('completed_with_failures');
    expect(first.progress).toMatchObject({ succeeded: 3, failed: 4, pending: 0, processing: 0 });
    expect((await events(id)).filter((e) => e === 'disbursement.completed_with_failures')).toHaveLength(1);
    // What retry-failed would hold: the two provider_timeout items.
    expect(first.balance_check.required).toBe('20.00');
    let list = await allItems(b, id);
    expect(list.map((i: any) => i.failure?.code ?? null)).toEqual([
      null,
      null,
      null,
      'provider_declined',
      'provider_declined',
      'provider_timeout',
      'provider_timeout',
    ]);
    let bal = await balance(b);
    expect(bal).toMatchObject({ available: '970.00', held: '0.00' });

    // Correction mode: only failed items are editable.
    const notFailed = await h.request('PATCH', `${A}/disbursements/${id}/items/${list[0].id}`, { key: b.sandbox, body: { memo: 'x' } });
    expect(notFailed.status).toBe(409);

    const retry = await h.request('POST', `${A}/disbursements/${id}/items/retry-failed`, { key: b.sandbox });
    expect(retry.status).toBe(200);
    expect(retry.body.status).toBe('processing');
    const second = await waitFinal(b, id);
    expect(second.status).toBe('completed_with_failures');
    expect(second.progress).toMatchObject({ succeeded: 3, failed: 4 });
    list = await allItems(b, id);
    expect(list.map((i: any) => i.attempts)).toEqual([1, 1, 1, 1, 1, 2, 2]);
    let { byItem } = await payoutsByItem(id);
    expect(byItem.get(list[5].id)?.map((p) => p.attempt).sort()).toEqual([1, 2]);
    expect(byItem.get(list[3].id)).toHaveLength(1);
    expect(byItem.get(list[0].id)).toHaveLength(1);
    expect((await events(id)).filter((e) => e === 'disbursement.completed_with_failures')).toHaveLength(2);
    bal = await balance(b);
    expect(bal).toMatchObject({ available: '970.00', held: '0.00' });

    // Correct a declined item and a timed-out one (their magic references), then retry: the corrected
    // declined item is retried although provider_declined is final; the uncorrected timeout still fails.
    for (const i of [3, 5]) {
      const p = await h.request('PATCH', `${A}/disbursements/${id}/items/${list[i].id}`, { key: b.sandbox, body: { reference: `fixed-${i}` } });
      expect(p.status).toBe(200);
      expect(p.body.status).toBe('failed');
    }
    const retry2 = await h.request('POST', `${A}/disbursements/${id}/items/retry-failed`, { key: b.sandbox });
    expect(retry2.status).toBe(200);
    const third = await waitFinal(b, id);
    expect(third.progress).toMatchObject({ succeeded: 5, failed: 2 });
    list = await allItems(b, id);
    expect(list.map((i: any) => i.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'failed', 'succeeded', 'failed']);
    expect(list.map((i: any) => i.attempts)).toEqual([1, 1, 1, 2, 1, 3, 3]);

    // Never two successful payouts for an item; one settle per succeeded payout.
    ({ byItem } = await payoutsByItem(id));
    let settles = 0;
    for (const payouts of byItem.values()) {
      expect(payouts.filter((p) => p.status === 'succeeded')).toHaveLength(payouts.some((p) => p.status === 'succeeded') ? 1 : 0);
      expect(new Set(payouts.map((p) => p.attempt)).size).toBe(payouts.length);
      settles += payouts.filter((p) => p.settled).length;
    }
    expect(settles).toBe(5);
    bal = await balance(b);
    expect(bal).toMatchObject({ available: '950.00', held: '0.00' });

    // Nothing retryable left but the last timeout; after it, provider_declined alone is not retried.
    const retry3 = await h.request('POST', `${A}/disbursements/${id}/items/retry-failed`, { key: b.sandbox });
    expect(retry3.status).toBe(200);
    await waitFinal(b, id);
    list = await allItems(b, id);
    expect(list[4].attempts).toBe(1);
  }, SLOW);
});

describe('retry-failed while Temporal is unreachable', () => {
  it('keeps the committed retry, answers processing, and the relay recovery starts the run', async () => {
    const b = await newBiz('1000');
    const id = await approved(b, [user(1, '10'), user(2, '10', 'sandbox:provider_timeout')]);
    await launchDisbursement(h.core, b.caller, id);
    expect((await waitFinal(b, id)).status).toBe('completed_with_failures');

    // The signal-with-start after the commit fails.
    const workflow = Object.create(h.core.temporal.workflow, {
      signalWithStart: { value: async () => Promise.reject(new Error('14 UNAVAILABLE: Temporal unreachable')) },
    });
    const down = { ...h.core, temporal: Object.create(h.core.temporal, { workflow: { value: workflow } }) };
    const retried = await retryFailedItems(down, b.caller, id);
    expect(retried.status).toBe('processing');
    expect(retried.progress).toMatchObject({ pending: 1, succeeded: 1 });
    // Nothing runs the retried item until the recovery does.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await get(b, id)).progress).toMatchObject({ pending: 1 });

    expect(await recoverDisbursementRuns(h.core, { olderThanMs: 0 })).toBe(1);
    const done = await waitFinal(b, id);
    expect(done.status).toBe('completed_with_failures');
    const list = await allItems(b, id);
    expect(list.map((i: any) => i.attempts)).toEqual([1, 2]);
    // Nothing left to recover: a completed batch is not touched again.
    expect(await recoverDisbursementRuns(h.core, { olderThanMs: 0 })).toBe(0);
    expect((await events(id)).filter((e) => e === 'disbursement.completed_with_failures')).toHaveLength(2);
  }, SLOW);
});

describe('pause and resume', () => {
  it('pause stops new items from starting; items in flight finish; resume finishes the batch', async () => {
    const b = await newBiz('1000');
    const id = await approved(
      b,
      Array.from({ length: 16 }, (_, i) => user(i, '2')),
    );
    await launchDisbursement(h.core, b.caller, id, { window: 2, claimBatch: 1 });
    const p = await h.request('POST', `${A}/disbursements/${id}/pause`, { key: b.sandbox });
    expect(p.status).toBe(200);
    expect(p.body.status).toBe('paused');

    // In-flight payouts finish; then nothing moves.
    const settled = await waitFor(async () => {
      const d = await get(b, id);
      return d.progress.processing === 0 ? d : undefined;
    }, 'in-flight items to finish');
    expect(settled.progress.pending).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1500));
    const still = await get(b, id);
    expect(still.status).toBe('paused');
    expect(still.progress).toEqual(settled.progress);
    const payoutsWhilePaused = (await payoutsByItem(id)).byItem.size;
    expect(payoutsWhilePaused).toBe(settled.progress.succeeded);

    const handle = h.core.temporal.workflow.getHandle(id);
    const q = await waitFor(async () => {
      const s = await handle.query(disbursementStatusQuery);
      return s.paused ? s : undefined;
    }, 'the workflow to report paused');
    expect(q.status).toBe('paused');
    const desc = await handle.describe();
    expect(desc.typedSearchAttributes.get(SA.DisbursementStatus)).toBe('paused');

    const again = await h.request('POST', `${A}/disbursements/${id}/pause`, { key: b.sandbox });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state');

    const r = await h.request('POST', `${A}/disbursements/${id}/resume`, { key: b.sandbox });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('processing');
    const done = await waitFinal(b, id);
    expect(done.status).toBe('completed');
    expect(done.progress.succeeded).toBe(16);
    const { byItem, settleCount } = await payoutsByItem(id);
    expect(byItem.size).toBe(16);
    expect([...byItem.values()].every((l) => l.length === 1)).toBe(true);
    expect(settleCount).toBe(16);
    expect(await balance(b)).toMatchObject({ available: '968.00', held: '0.00' });
  }, SLOW);
});

describe('worker restart mid-batch', () => {
  it('finishes with every item paid exactly once', async () => {
    const b = await newBiz('1000');
    const id = await approved(
      b,
      Array.from({ length: 30 }, (_, i) => user(i, '3')),
    );
    await launchDisbursement(h.core, b.caller, id, { window: 3, claimBatch: 3, itemsPerRun: 10 });
    await waitFor(async () => (await get(b, id)).progress.succeeded >= 4, 'some items to succeed', 60_000);
    await h.stopWorker();
    const during = await get(b, id);
    expect(during.status).toBe('processing');
    expect(during.progress.succeeded).toBeLessThan(30);
    await new Promise((r) => setTimeout(r, 300));
    await h.startWorker();

    const done = await waitFinal(b, id);
    expect(done.status).toBe('completed');
    expect(done.progress.succeeded).toBe(30);
    const { byItem, settleCount } = await payoutsByItem(id);
    expect(byItem.size).toBe(30);
    for (const list of byItem.values()) expect(list).toHaveLength(1);
    expect(settleCount).toBe(30);
    expect(await balance(b)).toMatchObject({ available: '910.00', held: '0.00' });
    expect((await events(id)).filter((e) => e === 'disbursement.completed')).toHaveLength(1);
  }, SLOW);
});

describe('GET /disbursements/{id}/export.csv', () => {
  it('one row per item with results; bank and identity fields masked', async () => {
    const b = await newBiz('1000');
    const id = await approved(b, [user(1, '5', 'ok-1'), pagomovil(), user(3, '5', 'sandbox:provider_declined'), wallet(4)]);
    await h.request('POST', `${A}/disbursements/${id}/launch`, { key: b.sandbox });
    await waitFinal(b, id);
    const res = await h.app.request(`${A}/disbursements/${id}/export.csv`, { headers: { Authorization: `Bearer ${b.sandbox}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/csv/);
    const text = await res.text();
    expect(text).not.toContain('V12345678');
    expect(text).not.toContain('1990-01-31');
    expect(text).not.toContain('+584121234567');
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(4);
    expect(Object.keys(rows[0])).toEqual(
      expect.arrayContaining(['reference', 'status', 'source_amount', 'fees', 'rate', 'destination_amount', 'provider_reference', 'attempts', 'created_at', 'delivered_at']),
    );
    expect(rows[0]).toMatchObject({ reference: 'ok-1', status: 'succeeded', source_amount: '5.00', attempts: '1' });
    expect(rows[0].provider_reference).toMatch(/^sbx_/);
    expect(rows[0].delivered_at).not.toBe('');
    expect(rows[1]).toMatchObject({ reference: 'pm-1', status: 'succeeded', destination_currency: 'VES' });
    expect(rows[1].recipient).toContain('national_id=••••78');
    expect(rows[2]).toMatchObject({ status: 'failed', failure_code: 'provider_declined' });
    expect(rows[3].onchain_transaction).toMatch(/^sbx_stellar_/);
  }, SLOW);
});
