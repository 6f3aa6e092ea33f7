import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * Key policies enforced (spec "Authentication" 4, Surface A rule 3; docs/getting-paid.md "Key
 * policies"): channels, per_payout_max, daily_budget (exact under concurrency), approval_threshold
 * (pending with funds held until another key approves or rejects, or the timeout).
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';
type Biz = { id: string; sandbox: string; live: string };

async function biz(fund = '1000', approvalsRequired?: number): Promise<Biz> {
  const b = await h.business({ approvalsRequired });
  expect((await h.request('POST', `${A}/sandbox/fund`, { key: b.sandbox, body: { amount: fund } })).status).toBe(200);
  return b;
}
async function keyWith(b: Biz, policy: Record<string, unknown> | null): Promise<string> {
  const r = await h.request('POST', `${A}/api-keys`, { key: b.sandbox, body: { name: 'Ops', ...(policy ? { policy } : {}) } });
  expect(r.status, r.text).toBe(201);
  return r.body.key;
}
/** service_user_usdc has no fees: a payout of X holds exactly X. */
const usdc = (amount: string, extra: Record<string, unknown> = {}) => ({
  channel: 'service_user_usdc',
  recipient: { type: 'service_user', handle: '@maria' },
  source_amount: amount,
  ...extra,
});
const spei = { channel: 'spei_mxn', recipient: { type: 'bank_account', holder_name: 'Ana', clabe: '032180000118359719', recipient_kind: 'individual' }, source_amount: '5.00' };
const pay = (key: string, body: unknown, headers?: Record<string, string>) => h.request('POST', `${A}/payouts`, { key, body, headers });
const balance = async (b: Biz) => (await h.request('GET', `${A}/balance`, { key: b.sandbox })).body;
async function waitStatus(key: string, id: string, ...statuses: string[]): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await h.request('GET', `${A}/payouts/${id}`, { key });
    if (statuses.includes(r.body.status)) return r.body;
    if (Date.now() > deadline) throw new Error(`payout ${id} stayed ${r.body.status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}
const eventTypes = async (id: string) =>
  (await h.db.selectFrom('events').select('type').where('object_id', '=', id).orderBy('created_at').orderBy('id').execute()).map((e) => e.type);

describe('channels and per_payout_max', () => {
  it('a channel outside the list is 403 policy_exceeded param channel; nothing held; a listed channel passes', async () => {
    const b = await biz();
    const key = await keyWith(b, { channels: ['service_user_usdc'] });
    const r = await pay(key, spei);
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'policy_exceeded', param: 'channel' });
    expect(await balance(b)).toMatchObject({ available: '1000.00', held: '0.00' });
    expect((await pay(key, usdc('5.00'))).status).toBe(201);
  });

  it('a source amount above per_payout_max is refused naming the amount field (fees not counted)', async () => {
    const b = await biz();
    const key = await keyWith(b, { per_payout_max: '10' });
    const over = await pay(key, usdc('10.01'));
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ code: 'policy_exceeded', param: 'source_amount' });
    const byDest = await pay(key, { ...spei, source_amount: undefined, destination_amount: '1000.00' }); // ≈ 58.65 USDC
    expect(byDest.status).toBe(403);
    expect(byDest.body.error.param).toBe('destination_amount');
    const ok = await pay(key, { ...spei, source_amount: '10.00' }); // fees on top of 10.00 do not count
    expect(ok.status, ok.text).toBe(201);
    expect(Number(ok.body.fees.total) > 0).toBe(true);
  });

  it('withdrawals and disbursement launches are checked too', async () => {
    const b = await biz('1000', 0);
    const key = await keyWith(b, { channels: ['service_user_usdc'], per_payout_max: '3' });
    const dest = await h.request('POST', `${A}/recipients`, {
      key: b.sandbox,
      body: { type: 'bank_account', country: 'MX', currency: 'MXN', name: 'Me', bank_account: { holder_name: 'Me SA', clabe: '032180000118359719', recipient_kind: 'business' } },
    });
    const w = await h.request('POST', `${A}/withdrawals`, { key, body: { currency: 'MXN', payout_destination_id: dest.body.id, source_amount: '2.00' } });
    expect(w.status).toBe(403);
    expect(w.body.error).toMatchObject({ code: 'policy_exceeded', param: 'currency' });

    const d = await h.request('POST', `${A}/disbursements`, {
      key,
      body: {
        name: 'Policy',
        items: [
          { channel: 'service_user_usdc', source_amount: '2.00', recipient: { type: 'service_user', handle: '@policya' } },
          { channel: 'service_user_usdc', source_amount: '4.00', recipient: { type: 'service_user', handle: '@policyb' } },
        ],
      },
    });
    expect(d.status, d.text).toBe(201);
    const items = (await h.request('GET', `${A}/disbursements/${d.body.id}/items`, { key })).body.data;
    const big = items.find((i: any) => i.source_amount === '4.00');
    const l = await h.request('POST', `${A}/disbursements/${d.body.id}/launch`, { key });
    expect(l.status, l.text).toBe(403);
    expect(l.body.error).toMatchObject({ code: 'policy_exceeded', param: `items.${big.id}.source_amount` });
    expect(await balance(b)).toMatchObject({ available: '1000.00', held: '0.00' });
    // The owner key has no policy: its launch goes through.
    expect((await h.request('POST', `${A}/disbursements/${d.body.id}/launch`, { key: b.sandbox })).status).toBe(200);
  });
});

describe('Surface B batches', () => {
  it('a batch is checked entry by entry and counted as a whole; refused: nothing held', async () => {
    const b = await biz('100');
    const key = await keyWith(b, { daily_budget: '5', approval_threshold: '4' });
    const batch = (amounts: string[]) =>
      h.request('POST', '/sandbox/claim/v1/disbursements/batch', {
        key,
        body: { disbursements: amounts.map((a, i) => ({ recipientPhone: '+525512345678', amountUsd: a, reference: `p${i}` })), batchReference: 'policy' },
      });
    const over = await batch(['3.00', '3.00']);
    expect(over.status, over.text).toBe(403);
    expect(over.body.error).toBe('policy_exceeded');
    const needsApproval = await batch(['4.50']);
    expect(needsApproval.status).toBe(403);
    expect(await balance(b)).toMatchObject({ available: '100.00', held: '0.00' });
    const ok = await batch(['2.00', '3.00']);
    expect(ok.status, ok.text).toBeLessThan(300);
  });
});

describe('daily_budget', () => {
  it('50 simultaneous payouts against a budget for 20 accept exactly 20', async () => {
    const b = await biz();
    const key = await keyWith(b, { daily_budget: '20' });
    const rs = await Promise.all(Array.from({ length: 50 }, () => pay(key, usdc('1.00'))));
    const accepted = rs.filter((r) => r.status === 201);
    const refused = rs.filter((r) => r.status !== 201);
    expect(accepted).toHaveLength(20);
    expect(refused).toHaveLength(30);
    for (const r of refused) expect(r.body.error).toMatchObject({ code: 'policy_exceeded', param: 'source_amount' });
    const used = await h.db.selectFrom('key_policy_usage').select(['used', 'day']).execute();
    expect(used.find((u) => u.used === 20_000_000n)?.day).toBe(new Date().toISOString().slice(0, 10));
    const n = await h.db.selectFrom('payouts').select('id').where('business_id', '=', b.id).execute();
    expect(n).toHaveLength(20);
    // The budget is per key: the owner key is not limited by it.
    expect((await pay(b.sandbox, usdc('1.00'))).status).toBe(201);
  }, 120_000);

  it('a request that alone passes the budget is refused and counts nothing', async () => {
    const b = await biz();
    const key = await keyWith(b, { daily_budget: '5' });
    const r = await pay(key, usdc('6.00'));
    expect(r.status).toBe(403);
    expect((await pay(key, usdc('5.00'))).status).toBe(201);
    expect((await pay(key, usdc('0.01'))).status).toBe(403);
  });
});

describe('approval_threshold', () => {
  it('above the threshold: 201 pending with funds held; another key approves; then delivered', async () => {
    const b = await biz();
    const key = await keyWith(b, { approval_threshold: '5' });
    const small = await pay(key, usdc('5.00'));
    expect(small.body.status).toBe('submitted');
    const r = await pay(key, usdc('10.00'));
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ status: 'pending', attempts: 0 });
    await waitStatus(key, small.body.id, 'succeeded');
    expect(await balance(b)).toMatchObject({ available: '985.00', held: '10.00' });
    expect(await eventTypes(r.body.id)).toEqual([]);
    await new Promise((res) => setTimeout(res, 300));
    expect((await h.request('GET', `${A}/payouts/${r.body.id}`, { key })).body.status).toBe('pending');

    const self = await h.request('POST', `${A}/payouts/${r.body.id}/approve`, { key });
    expect(self.status).toBe(403);
    expect(self.body.error.code).toBe('self_approval_forbidden');
    const limited = await keyWith(b, { per_payout_max: '100' });
    const noRights = await h.request('POST', `${A}/payouts/${r.body.id}/approve`, { key: limited });
    expect(noRights.status).toBe(403);
    expect(noRights.body.error.code).toBe('permission_denied');

    const ok = await h.request('POST', `${A}/payouts/${r.body.id}/approve`, { key: b.sandbox });
    expect(ok.status, ok.text).toBe(200);
    expect(['submitted', 'delivering', 'succeeded']).toContain(ok.body.status);
    await waitStatus(key, r.body.id, 'succeeded');
    expect(await eventTypes(r.body.id)).toEqual(['payout.submitted', 'payout.succeeded']);
    const again = await h.request('POST', `${A}/payouts/${r.body.id}/approve`, { key: b.sandbox });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state');
    const approval = await h.db.selectFrom('payout_approvals').selectAll().where('payout_id', '=', r.body.id).executeTakeFirstOrThrow();
    expect(approval).toMatchObject({ status: 'approved', requested_by_key_id: expect.any(String), decided_by_key_id: expect.any(String) });
  });

  it('a reject cancels the payout and releases the hold', async () => {
    const b = await biz('100');
    const key = await keyWith(b, { approval_threshold: '1' });
    const r = await pay(key, usdc('40.00'));
    expect(r.body.status).toBe('pending');
    expect(await balance(b)).toMatchObject({ available: '60.00', held: '40.00' });
    const rej = await h.request('POST', `${A}/payouts/${r.body.id}/reject`, { key: b.sandbox, body: { reason: 'Not this week' } });
    expect(rej.status, rej.text).toBe(200);
    expect(rej.body.status).toBe('canceled');
    expect(await balance(b)).toMatchObject({ available: '100.00', held: '0.00' });
    expect(await eventTypes(r.body.id)).toEqual(['payout.canceled']);
    const approval = await h.db.selectFrom('payout_approvals').select(['status', 'reason']).where('payout_id', '=', r.body.id).executeTakeFirstOrThrow();
    expect(approval).toEqual({ status: 'rejected', reason: 'Not this week' });
  });

  it('without a decision before the timeout the payout is canceled and the hold released', async () => {
    const b = await biz('100');
    const key = await keyWith(b, { approval_threshold: '1' });
    const before = h.core.config.PAYOUT_APPROVAL_TIMEOUT;
    h.core.config.PAYOUT_APPROVAL_TIMEOUT = 'PT1S';
    let id: string;
    try {
      id = (await pay(key, usdc('30.00'))).body.id;
    } finally {
      h.core.config.PAYOUT_APPROVAL_TIMEOUT = before;
    }
    await waitStatus(key, id, 'canceled');
    expect(await balance(b)).toMatchObject({ available: '100.00', held: '0.00' });
    const late = await h.request('POST', `${A}/payouts/${id}/approve`, { key: b.sandbox });
    expect(late.status).toBe(409);
    expect((await h.db.selectFrom('payout_approvals').select('status').where('payout_id', '=', id).executeTakeFirstOrThrow()).status).toBe('expired');
  });

  it("security: another business's payout is 404; a key of the other environment is 401", async () => {
    const b = await biz();
    const key = await keyWith(b, { approval_threshold: '1' });
    const r = await pay(key, usdc('2.00'));
    const other = await biz();
    expect((await h.request('POST', `${A}/payouts/${r.body.id}/approve`, { key: other.sandbox })).status).toBe(404);
    expect((await h.request('POST', `${A}/payouts/${r.body.id}/reject`, { key: other.sandbox, body: {} })).status).toBe(404);
    expect((await h.request('POST', `${A}/payouts/${r.body.id}/approve`, { key: b.live })).status).toBe(401);
    expect((await h.request('GET', `${A}/payouts/${r.body.id}`, { key: b.sandbox })).body.status).toBe('pending');
  });
});
