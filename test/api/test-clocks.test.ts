import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySurfaceB } from '../../src/core/webhook-signature';
import { createHarness, type Harness } from '../helpers/harness';
import { webhookReceiver as receiver } from '../helpers/webhook-receiver';

/**
 * Sandbox test clocks (docs/test-clocks.md): advancing a business's clock ends the durable waits
 * of its objects through the workflows' own waits, with the real expiry's state, postings and
 * events; a smaller advance does not; live has no clock (404); another business is untouched.
 * Webhook retries wait on the same clock (first delay one hour here, so only an advance brings the
 * second attempt within the test).
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ env: { WEBHOOK_RETRY_INITIAL: 'PT1H' } });
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';
type Biz = { id: string; sandbox: string; live: string };

async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const payout = async (b: Biz, id: string) => (await h.request('GET', `${A}/payouts/${id}`, { key: b.sandbox })).body;
const waitPayout = (b: Biz, id: string, status: string) =>
  waitFor(async () => {
    const p = await payout(b, id);
    return p.status === status ? p : undefined;
  }, `payout ${id} ${status}`);
const advance = (b: Biz, by: string, key = b.sandbox, base = A) => h.request('POST', `${base}/sandbox/clock/advance`, { key, body: { by } });

const eventTypesOf = async (id: string) =>
  (await h.db.selectFrom('events').select('type').where('object_id', '=', id).orderBy('created_at').orderBy('id').execute()).map((e) => e.type);
const postingKeysOf = async (id: string) =>
  (await h.db.selectFrom('ledger_postings').select('key').where('key', 'like', `payout:${id}:%`).orderBy('id').execute()).map((p) => p.key);

async function fundedBusiness(): Promise<Biz> {
  const b = await h.business();
  expect((await h.request('POST', `${A}/sandbox/fund`, { key: b.sandbox, body: { amount: '100' } })).status).toBe(200);
  return b;
}
/**
 * Resolves once workflow `workflowId` has started its n-th timer, i.e. waits on its deadline. An
 * advance reaches the objects waiting when it is made (docs/test-clocks.md): one that lands before
 * the wait began (a loaded machine) is already in the clock the deadline is computed from.
 */
const waitingOnTimer = (workflowId: string, n = 1) =>
  waitFor(async () => {
    // The start is made a moment after the POST answers (src/core/workflow-starts.ts handOffWorkflowStart).
    const history = await h.core.temporal.workflow.getHandle(workflowId).fetchHistory().catch(() => undefined);
    return (history?.events ?? []).filter((e) => e.timerStartedEventAttributes).length >= n;
  }, `${workflowId} waiting on timer ${n}`);

async function claimLink(b: Biz): Promise<string> {
  const r = await h.request('POST', `${A}/payouts`, {
    key: b.sandbox,
    body: { channel: 'claim_link', recipient: { type: 'phone', number: '+525512345678' }, source_amount: '50' },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  await waitPayout(b, r.body.id, 'awaiting_claim');
  await waitingOnTimer(r.body.id);
  return r.body.id;
}

describe('sandbox test clock', () => {
  it('advancing 31 days expires a waiting claim link with the real expiry: failed/claim_expired, hold released, its events and postings', async () => {
    const b = await fundedBusiness();
    const other = await fundedBusiness();
    const id = await claimLink(b);
    const untouched = await claimLink(other);
    expect((await h.request('GET', `${A}/balance`, { key: b.sandbox })).body).toMatchObject({ available: '49.25', held: '50.75' });

    // 10 days is not enough: the payout keeps waiting.
    const small = await advance(b, 'P10D');
    expect(small.status, JSON.stringify(small.body)).toBe(200);
    expect(small.body).toMatchObject({ object: 'test_clock_advance', by_ms: 864_000_000, workflows_signaled: 1 });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await payout(b, id)).status).toBe('awaiting_claim');

    const big = await advance(b, 'P21D');
    expect(big.status).toBe(200);
    expect(big.body.clock.advanced_ms).toBe(31 * 86_400_000);
    const failed = await waitPayout(b, id, 'failed');
    expect(failed.failure.code).toBe('claim_expired');
    expect((await h.request('GET', `${A}/balance`, { key: b.sandbox })).body).toMatchObject({ available: '100.00', held: '0.00' });
    const events = await h.db.selectFrom('events').select('type').where('object_id', '=', id).orderBy('created_at').orderBy('id').execute();
    expect(events.map((e) => e.type)).toEqual(['payout.submitted', 'payout.awaiting_claim', 'payout.failed']);
    const postings = await h.db.selectFrom('ledger_postings').select('key').where('key', 'like', `payout:${id}:%`).orderBy('id').execute();
    expect(postings.map((p) => p.key)).toEqual([`payout:${id}:hold`, `payout:${id}:release`]);

    // Another business's clock did not move.
    expect((await payout(other, untouched)).status).toBe('awaiting_claim');
    const clock = await h.request('GET', `${A}/sandbox/clock`, { key: other.sandbox });
    expect(clock.body).toMatchObject({ object: 'test_clock', advanced_ms: 0 });
  });

  it('an advance that reaches a claim link before its wait began still counts: created, advanced 31 days at once, expired', async () => {
    const b = await fundedBusiness();
    // No worker: the workflow is started (the API starts it) but has not run its first task, so
    // the advance's Signal is there before the claim wait begins.
    await h.stopWorker();
    let id: string;
    try {
      const r = await h.request('POST', `${A}/payouts`, {
        key: b.sandbox,
        body: { channel: 'claim_link', recipient: { type: 'email', address: 'early@example.com' }, source_amount: '10' },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      id = r.body.id;
      await waitFor(async () => (await h.db.selectFrom('workflow_starts').select('started_at').where('workflow_id', '=', id).executeTakeFirst())?.started_at, 'workflow started');
      expect((await advance(b, 'P31D')).body.workflows_signaled).toBe(1);
    } finally {
      await h.startWorker();
    }
    const failed = await waitPayout(b, id, 'failed');
    expect(failed.failure.code).toBe('claim_expired');
    expect(await postingKeysOf(id)).toEqual([`payout:${id}:hold`, `payout:${id}:release`]);
  });

  it('advancing past a payment request expiry expires it as its real expiry does: status expired, expired_at set, event payment_request.expired', async () => {
    const b = await h.business();
    await h.request('POST', `${A}/virtual-accounts`, { key: b.sandbox, body: { currency: 'USD' } });
    const link = (await h.request('POST', `${A}/payment-links`, { key: b.sandbox, body: { name: 'Invoices', methods: ['bank_transfer'] } })).body;
    const req = await h.request('POST', `${A}/payment-requests`, {
      key: b.sandbox,
      body: { payment_link_id: link.id, amount: '250.00', currency: 'USD', reference: 'INV-9', expires_at: new Date(Date.now() + 5 * 86_400_000).toISOString() },
    });
    expect(req.status, JSON.stringify(req.body)).toBe(201);
    // Let its workflow start and begin waiting.
    await waitingOnTimer(req.body.id);
    expect((await advance(b, 'P6D')).body.workflows_signaled).toBe(1);
    const expired = await waitFor(async () => {
      const r = (await h.request('GET', `${A}/payment-requests/${req.body.id}`, { key: b.sandbox })).body;
      return r.status === 'expired' ? r : undefined;
    }, 'payment request expired');
    expect(expired.status).toBe('expired');
    const row = await h.db.selectFrom('payment_requests').select(['status', 'expired_at']).where('id', '=', req.body.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('expired');
    expect(row.expired_at).toBeInstanceOf(Date);
    const events = await h.db.selectFrom('events').select(['type', 'data']).where('object_id', '=', req.body.id).execute();
    expect(events.map((e) => e.type)).toEqual(['payment_request.expired']);
    expect(events[0].data).toMatchObject({ id: req.body.id, object: 'payment_request', status: 'expired', reference: 'INV-9' });
  });

  it('advancing 31 days expires a Surface B disbursement: expired with claim_expired, funds returned, disbursement.expired signed to its endpoint', async () => {
    const b = await h.business();
    const B = '/sandbox/claim/v1';
    expect((await h.request('POST', `${B}/sandbox/fund`, { key: b.sandbox, body: { amountUsd: '100.00' } })).status).toBe(200);
    const rx = await receiver();
    const secret = 'test-clock-secret-for-b-0123';
    expect((await h.request('POST', `${B}/webhooks`, { key: b.sandbox, body: { url: rx.url, events: ['disbursement.*'], secret } })).status).toBe(201);
    const d = await h.request('POST', `${B}/disbursements`, { key: b.sandbox, body: { recipientPhone: '+525512345678', amountUsd: '40.00' } });
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    await waitFor(async () => (await h.request('GET', `${B}/disbursements/${d.body.id}`, { key: b.sandbox })).body.claimUrl, 'claim url');
    await waitingOnTimer(d.body.id);
    const held = (await h.request('GET', `${A}/balance`, { key: b.sandbox })).body;
    expect(held.held).not.toBe('0.00');

    expect((await advance(b, 'P31D')).status).toBe(200);
    const expired = await waitFor(async () => {
      const r = (await h.request('GET', `${B}/disbursements/${d.body.id}`, { key: b.sandbox })).body;
      return r.status === 'expired' ? r : undefined;
    }, 'disbursement expired');
    expect(expired.failureCode).toBe('claim_expired');
    expect((await h.request('GET', `${A}/balance`, { key: b.sandbox })).body).toMatchObject({ available: '100.00', held: '0.00' });
    expect(await postingKeysOf(d.body.id)).toEqual([`payout:${d.body.id}:hold`, `payout:${d.body.id}:release`]);
    const sent = await waitFor(async () => rx.received.find((r) => JSON.parse(r.raw).type === 'disbursement.expired'), 'disbursement.expired delivered');
    expect(JSON.parse(sent.raw)).toMatchObject({ type: 'disbursement.expired', data: { id: d.body.id, status: 'expired' } });
    expect(verifySurfaceB(secret, sent.raw, sent.headers['x-service-signature'] as string)).toBe(true);
    await rx.close();
  });

  it('advancing past the approval timeout cancels a pending payout as the real timeout does: canceled, hold released, payout.canceled', async () => {
    const b = await fundedBusiness();
    const k = await h.request('POST', `${A}/api-keys`, { key: b.sandbox, body: { name: 'Ops', policy: { approval_threshold: '1' } } });
    expect(k.status).toBe(201);
    const r = await h.request('POST', `${A}/payouts`, {
      key: k.body.key,
      body: { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: '10.00' },
    });
    expect([r.status, r.body.status]).toEqual([201, 'pending']);
    expect((await h.request('GET', `${A}/balance`, { key: b.sandbox })).body).toMatchObject({ available: '90.00', held: '10.00' });
    // The default PAYOUT_APPROVAL_TIMEOUT is P7D: six days leave it pending, one more cancels it.
    await waitingOnTimer(r.body.id);
    expect((await advance(b, 'P6D')).body.workflows_signaled).toBe(1);
    await new Promise((res) => setTimeout(res, 1000));
    expect((await payout(b, r.body.id)).status).toBe('pending');
    expect((await advance(b, 'P1D')).status).toBe(200);
    const canceled = await waitPayout(b, r.body.id, 'canceled');
    expect(canceled.attempts).toBe(0);
    expect((await h.request('GET', `${A}/balance`, { key: b.sandbox })).body).toMatchObject({ available: '100.00', held: '0.00' });
    expect(await eventTypesOf(r.body.id)).toEqual(['payout.canceled']);
    expect(await postingKeysOf(r.body.id)).toEqual([`payout:${r.body.id}:hold`, `payout:${r.body.id}:release`]);
  });

  it('a webhook retry waits on the business clock: an advance past the next attempt makes it at once; past the window, the delivery is given up', async () => {
    const b = await h.business();
    const rx = await receiver();
    rx.state.up = false;
    const ep = await h.request('POST', `${A}/webhooks`, { key: b.sandbox, body: { url: rx.url, events: ['payout.submitted'] } });
    expect(ep.status).toBe(201);
    expect((await h.request('POST', `${A}/sandbox/fund`, { key: b.sandbox, body: { amount: '100' } })).status).toBe(200);
    const pay = () =>
      h.request('POST', `${A}/payouts`, {
        key: b.sandbox,
        body: { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: '1.00' },
      });
    const first = await pay();
    await waitFor(() => Promise.resolve(rx.received.length === 1), 'first attempt');
    const deliveries = () => h.request('GET', `${A}/webhooks/${ep.body.id}/deliveries`, { key: b.sandbox });
    const pendingDelivery = () => waitFor(async () => (await deliveries()).body.data.find((x: any) => x.status === 'pending')?.id as string | undefined, 'a pending delivery');
    // Advance only once the delivery waits for its next attempt: an advance that lands while
    // attempt 1 is still running counts before the delay is computed.
    const d1 = await pendingDelivery();

    // The next attempt is due an hour later: half an hour is not enough, another half is.
    await waitingOnTimer(d1, 1);
    expect((await advance(b, 'PT30M')).body.workflows_signaled).toBe(1);
    await waitingOnTimer(d1, 2); // the wait restarted on the moved clock
    expect(rx.received).toHaveLength(1);
    rx.state.up = true;
    expect((await advance(b, 'PT31M')).status).toBe(200);
    await waitFor(() => Promise.resolve(rx.received.length === 2), 'second attempt');
    expect(rx.received[1].raw).toBe(rx.received[0].raw);
    const done = await waitFor(async () => {
      const d = (await deliveries()).body.data.find((x: any) => x.status === 'succeeded');
      return d;
    }, 'delivery succeeded');
    expect(done.attempts.map((a: any) => [a.number, a.http_status])).toEqual([[1, 503], [2, 200]]);
    expect(JSON.parse(rx.received[1].raw).data.object.id).toBe(first.body.id);

    // Down again: a two-day advance makes one more attempt, and the 24-hour window is spent.
    rx.state.up = false;
    const second = await pay();
    await waitFor(() => Promise.resolve(rx.received.length === 3), 'first attempt of the second event');
    await waitingOnTimer(await pendingDelivery(), 1);
    expect((await advance(b, 'P2D')).body.workflows_signaled).toBe(1);
    const failed = await waitFor(async () => (await deliveries()).body.data.find((x: any) => x.status === 'failed'), 'delivery given up');
    expect(failed.event_id).toBeDefined();
    expect(failed.attempts.map((a: any) => [a.number, a.http_status])).toEqual([[1, 503], [2, 503]]);
    expect(JSON.parse(rx.received[3].raw).data.object.id).toBe(second.body.id);
    await rx.close();
  });

  it('is 404 on the live base, and refuses a bad duration with param by', async () => {
    const b = await h.business();
    const live = await advance(b, 'P31D', b.live, '/v1');
    expect([live.status, live.body.error.code]).toEqual([404, 'not_found']);
    expect((await h.request('GET', '/v1/sandbox/clock', { key: b.live })).status).toBe(404);
    for (const by of ['31 days', 'P401D', 'PT0S']) {
      const r = await advance(b, by);
      expect([r.status, r.body.error.code, r.body.error.param]).toEqual([400, 'validation_error', 'by']);
    }
  });
});
