import { WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPayoutActivities } from '../../activities/payouts';
import type { Caller } from '../../src/core/context';
import {
  cancelPayout,
  IllegalPayoutTransitionError,
  insertPayout,
  preparePayout,
  recordAttemptStart,
  transitionPayout,
} from '../../src/core/payouts';
import { drainWorkflowStarts, flushWorkflowStart } from '../../src/core/workflow-starts';
import { ApiError } from '../../src/domain/errors';
import { SA } from '../../src/temporal/search-attributes';
import { payoutWorkflow } from '../../workflows/payout';
import { cancelUpdate, statusQuery } from '../../workflows/payout.contract';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h?.close());

type Biz = { id: string; sandbox: string; live: string; caller: Caller };

async function newBiz(fund = '1000'): Promise<Biz> {
  const b = await h.business();
  const key = await h.db.selectFrom('api_keys').select('id').where('business_id', '=', b.id).where('environment', '=', 'sandbox').executeTakeFirstOrThrow();
  const r = await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: fund } });
  expect(r.status).toBe(200);
  return { ...b, caller: { businessId: b.id, environment: 'sandbox', keyId: key.id, role: 'owner', policy: null } };
}

async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const statusOf = async (id: string) => (await h.db.selectFrom('payouts').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
const waitStatus = (id: string, status: string) => waitFor(async () => (await statusOf(id)) === status, `${id} to be ${status}`);
const balance = async (b: Biz) => (await h.request('GET', '/sandbox/v1/balance', { key: b.sandbox })).body;
const events = async (id: string) =>
  (await h.db.selectFrom('events').select('type').where('object_id', '=', id).orderBy('created_at').orderBy('id').execute()).map((e) => e.type);
const postings = async (id: string) =>
  (await h.db.selectFrom('ledger_postings').select('key').where('key', 'like', `payout:${id}:%`).orderBy('id').execute()).map((p) => p.key);

const claimBody = (reference?: string) => ({
  channel: 'claim_link',
  recipient: { type: 'email', address: 'ana@example.com' },
  source_amount: '10',
  ...(reference ? { reference } : {}),
});
const usdcBody = (amount: string) => ({ channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: amount });

describe('payoutWorkflow (dev server)', () => {
  it('is findable by its search attributes, upserted to the final status', async () => {
    const b = await newBiz();
    const r = await h.request('POST', '/sandbox/v1/payouts', { key: b.sandbox, body: usdcBody('1') });
    expect(r.status).toBe(201);
    // The POST answered before its workflow start was made (src/core/workflow-starts.ts handOffWorkflowStart).
    await drainWorkflowStarts(h.core);
    const handle = h.core.temporal.workflow.getHandle(r.body.id);
    const result = await handle.result();
    expect(result).toEqual({ payoutId: r.body.id, status: 'succeeded' });
    const d = await handle.describe();
    expect(d.type).toBe('payoutWorkflow');
    expect(d.typedSearchAttributes.get(SA.PayoutStatus)).toBe('succeeded');
    expect(d.typedSearchAttributes.get(SA.BusinessId)).toBe(b.id);
    expect(d.typedSearchAttributes.get(SA.Environment)).toBe('sandbox');
    expect(d.typedSearchAttributes.get(SA.Channel)).toBe('service_user_usdc');
    expect(await handle.query(statusQuery)).toBe('succeeded');
  });

  it('a claim link answers the status query and can be canceled while unclaimed (hold released)', async () => {
    const b = await newBiz('100');
    const r = await h.request('POST', '/sandbox/v1/payouts', { key: b.sandbox, body: claimBody() });
    expect(r.status).toBe(201);
    await waitStatus(r.body.id, 'awaiting_claim');
    const handle = h.core.temporal.workflow.getHandle(r.body.id);
    expect(await handle.query(statusQuery)).toBe('awaiting_claim');
    const d = await handle.describe();
    expect(d.typedSearchAttributes.get(SA.PayoutStatus)).toBe('awaiting_claim');

    const canceled = await cancelPayout(h.core, b.caller, r.body.id);
    expect(canceled.status).toBe('canceled');
    expect(await handle.result()).toEqual({ payoutId: r.body.id, status: 'canceled' });
    expect(await balance(b)).toMatchObject({ available: '100.00', held: '0.00' });
    expect(await events(r.body.id)).toEqual(['payout.submitted', 'payout.awaiting_claim', 'payout.canceled']);
    expect(await postings(r.body.id)).toEqual([`payout:${r.body.id}:hold`, `payout:${r.body.id}:release`]);
    await expect(cancelPayout(h.core, b.caller, r.body.id)).rejects.toMatchObject({ status: 409, code: 'invalid_state' });
  });

  it('the cancel Update is refused once the payout is past its claim', async () => {
    const b = await newBiz('100');
    const r = await h.request('POST', '/sandbox/v1/payouts', { key: b.sandbox, body: { ...usdcBody('1'), reference: 'sandbox:slow' } });
    await waitStatus(r.body.id, 'delivering');
    const handle = h.core.temporal.workflow.getHandle(r.body.id);
    await expect(handle.executeUpdate(cancelUpdate)).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    await expect(cancelPayout(h.core, b.caller, r.body.id)).rejects.toMatchObject({ status: 409, code: 'invalid_state' });
    await handle.terminate('test done');
  });

  it('accepted work never lacks its workflow: the relay starts a start recorded but never flushed', async () => {
    const b = await newBiz('100');
    const prepared = await preparePayout(h.core, b.caller, { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@relay1' }, sourceAmount: '2' });
    const { id } = await h.db.transaction().execute((tx) => insertPayout(tx, h.core, b.caller, prepared, { funding: 'balance', startWorkflow: true }));
    // No flushWorkflowStart: as if the API process died right after commit.
    await waitStatus(id, 'succeeded');
    const start = await h.db.selectFrom('workflow_starts').selectAll().where('workflow_id', '=', id).executeTakeFirstOrThrow();
    expect(start.started_at).not.toBeNull();
    expect(start.workflow_type).toBe('payoutWorkflow');
    expect(await balance(b)).toMatchObject({ available: '98.00', held: '0.00' });
    await flushWorkflowStart(h.core, id); // a second start is a no-op
  });
});

describe('core contract for the disbursements engine', () => {
  it('preparePayout prefixes every param with paramPrefix', async () => {
    const b = await newBiz();
    const cases: [Record<string, unknown>, string][] = [
      [{ channel: 'nope', recipient: { type: 'phone' }, sourceAmount: '1' }, 'items.3.channel'],
      [{ channel: 'spei_mxn', recipient: { type: 'bank_account', holder_name: 'A', clabe: '1', recipient_kind: 'individual' }, sourceAmount: '10' }, 'items.3.recipient.clabe'],
      [{ channel: 'spei_mxn', recipientId: 'rcp_nope', sourceAmount: '10' }, 'items.3.recipient_id'],
      [{ channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@abc' }, sourceAmount: '1.1234567' }, 'items.3.source_amount'],
      [{ channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@abc' }, sourceAmount: '1000000' }, 'items.3.source_amount'],
    ];
    for (const [req, param] of cases) {
      const err = await preparePayout(h.core, b.caller, req as any, { paramPrefix: 'items.3.' }).catch((e) => e);
      expect(err, param).toBeInstanceOf(ApiError);
      expect(err.param).toBe(param);
    }
  });

  it("insertPayout with funding 'batch' takes no hold; a pending payout has no event and attempts 0", async () => {
    const b = await newBiz('10');
    const prepared = await preparePayout(h.core, b.caller, { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@abc' }, sourceAmount: '500' });
    // 500 > the 10 available: only a disbursement-held batch can pay it.
    const { id, row } = await h.db
      .transaction()
      .execute((tx) => insertPayout(tx, h.core, b.caller, prepared, { funding: 'batch', status: 'pending', disbursementId: 'dsb_x', disbursementItemId: 'dsi_x', startWorkflow: false }));
    expect(row).toMatchObject({ status: 'pending', attempt_count: 0, disbursement_id: 'dsb_x', disbursement_item_id: 'dsi_x' });
    expect(await postings(id)).toEqual([]);
    expect(await events(id)).toEqual([]);
    await expect(
      h.db.transaction().execute((tx) => insertPayout(tx, h.core, b.caller, prepared, { funding: 'batch', status: 'pending', startWorkflow: true })),
    ).rejects.toThrow(/pending/);
    await expect(
      h.db.transaction().execute((tx) => insertPayout(tx, h.core, b.caller, prepared, { funding: 'balance', startWorkflow: false })),
    ).rejects.toMatchObject({ status: 402, code: 'insufficient_balance' });
  });

  it('transitions are table-guarded, idempotent, and post and emit once', async () => {
    const b = await newBiz('100');
    const prepared = await preparePayout(h.core, b.caller, { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@abc' }, sourceAmount: '5' });
    const { id } = await h.db.transaction().execute((tx) => insertPayout(tx, h.core, b.caller, prepared, { funding: 'balance', startWorkflow: false }));
    const acts = createPayoutActivities(h.core);

    await expect(transitionPayout(h.core, id, 'succeeded')).rejects.toBeInstanceOf(IllegalPayoutTransitionError);
    await expect(acts.payoutTransition({ payoutId: id, to: 'refunded' })).rejects.toMatchObject({ type: 'IllegalPayoutTransition', nonRetryable: true });

    expect(await acts.payoutTransition({ payoutId: id, to: 'delivering' })).toEqual({ status: 'delivering' });
    const first = await acts.payoutRailAttempt({ payoutId: id, attempt: 1 });
    const again = await acts.payoutRailAttempt({ payoutId: id, attempt: 1 });
    expect(first.ok && again.ok && again.providerReference === first.providerReference).toBe(true);
    const att = await recordAttemptStart(h.core, id, 1);
    expect(att.status).toBe('processing');

    const patch = { attempt: { number: 1, status: 'succeeded' as const, providerReference: first.providerReference } };
    await acts.payoutTransition({ payoutId: id, to: 'succeeded', ...patch });
    await acts.payoutTransition({ payoutId: id, to: 'succeeded', ...patch });
    expect(await postings(id)).toEqual([`payout:${id}:hold`, `payout:${id}:settle`]);
    expect(await events(id)).toEqual(['payout.submitted', 'payout.succeeded']);
    expect(await balance(b)).toMatchObject({ available: '95.00', held: '0.00' });
    const row = await h.db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.attempt_count).toBe(1);
    expect(row.confirmed_received_at).toEqual(row.delivered_at);
    const attempts = await h.db.selectFrom('payout_attempts').selectAll().where('payout_id', '=', id).execute();
    expect(attempts).toMatchObject([{ number: 1, status: 'succeeded', completed_at: expect.any(Date) }]);
  });

  it('payoutWorkflow is exported from workflows/index.ts', async () => {
    const index = await import('../../workflows/index');
    expect((index as Record<string, unknown>).payoutWorkflow).toBe(payoutWorkflow);
  });
});
