import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * Sandbox test clocks (docs/test-clocks.md): advancing a business's clock ends the durable waits
 * of its objects through the workflows' own waits, with the real expiry's state, postings and
 * events; a smaller advance does not; live has no clock (404); another business is untouched.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
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

async function fundedBusiness(): Promise<Biz> {
  const b = await h.business();
  expect((await h.request('POST', `${A}/sandbox/fund`, { key: b.sandbox, body: { amount: '100' } })).status).toBe(200);
  return b;
}
async function claimLink(b: Biz): Promise<string> {
  const r = await h.request('POST', `${A}/payouts`, {
    key: b.sandbox,
    body: { channel: 'claim_link', recipient: { type: 'phone', number: '+525512345678' }, source_amount: '50' },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  await waitPayout(b, r.body.id, 'awaiting_claim');
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

  it('advancing past a payment request expiry expires it as its real expiry does (status expired, expired_at set; no event, as the real expiry has none)', async () => {
    const b = await h.business();
    await h.request('POST', `${A}/virtual-accounts`, { key: b.sandbox, body: { currency: 'USD' } });
    const link = (await h.request('POST', `${A}/payment-links`, { key: b.sandbox, body: { name: 'Invoices', methods: ['bank_transfer'] } })).body;
    const req = await h.request('POST', `${A}/payment-requests`, {
      key: b.sandbox,
      body: { payment_link_id: link.id, amount: '250.00', currency: 'USD', reference: 'INV-9', expires_at: new Date(Date.now() + 5 * 86_400_000).toISOString() },
    });
    expect(req.status, JSON.stringify(req.body)).toBe(201);
    // Let its workflow start and begin waiting.
    await waitFor(async () => (await h.db.selectFrom('workflow_starts').select('started_at').where('workflow_id', '=', req.body.id).executeTakeFirst())?.started_at, 'request workflow started');
    await waitFor(async () => (await advance(b, 'P6D')).body.workflows_signaled === 1, 'the advance to reach the request');
    const expired = await waitFor(async () => {
      const r = (await h.request('GET', `${A}/payment-requests/${req.body.id}`, { key: b.sandbox })).body;
      return r.status === 'expired' ? r : undefined;
    }, 'payment request expired');
    expect(expired.status).toBe('expired');
    const row = await h.db.selectFrom('payment_requests').select(['status', 'expired_at']).where('id', '=', req.body.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('expired');
    expect(row.expired_at).toBeInstanceOf(Date);
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
