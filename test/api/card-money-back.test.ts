/**
 * Card money going back (issue #53; docs/getting-paid.md "Refunds", "Disputes", "Rolling reserve"):
 * refunds of card top-ups debit first (402 when not covered), the processor's answer (a hand-written
 * CardProcessor, the seam's interface) settles or reverses them; the reserve is held and released;
 * a dispute takes available, then the reserve, then records a shortfall that blocks new payouts
 * until recovered; a won dispute gives the money back; replays change nothing twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardProcessorError, type CardDisputeState, type CardProcessor, type CardRefundInput, type CardRefundResult } from '../../src/card-processors/processor';
import type { Caller, Core } from '../../src/core/context';
import { applyDisputeEvent, disputeMicroUsdc, recoverDisputeShortfalls } from '../../src/core/cards/disputes';
import { applyRefundEvent, refundCardTopup, refundDebit, retryPendingRefunds } from '../../src/core/cards/refunds';
import { holdCardReserve, releaseDueReserves, reserveShare, takeFromReserves } from '../../src/core/cards/reserve';
import { creditDeposit, receiveDeposit } from '../../src/core/funding/deposits';
import { post as postLedger } from '../../src/core/ledger';
import { newId } from '../../src/domain/ids';
import { formatAmount } from '../../src/domain/money';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
const B = '/sandbox/claim/v1';
type Biz = { id: string; sandbox: string; live: string };

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h?.close());

const callerOf = (b: Biz, environment: 'sandbox' | 'live' = 'sandbox'): Caller => ({ businessId: b.id, environment, keyId: 'test', role: 'owner', policy: null });

async function balances(b: Biz, environment: 'sandbox' | 'live' = 'sandbox') {
  const r = await h.db.selectFrom('balances').select(['available', 'held', 'reserve']).where('business_id', '=', b.id).where('environment', '=', environment).executeTakeFirst();
  return { available: BigInt(r?.available ?? 0n), held: BigInt(r?.held ?? 0n), reserve: BigInt(r?.reserve ?? 0n) };
}

/** A completed card top-up of `cents` with its credited card deposit (the top-up row written as its owner would). */
async function creditedTopup(b: Biz, cents: bigint, environment: 'sandbox' | 'live' = 'sandbox'): Promise<{ topupId: string; depositId: string; credited: bigint }> {
  const topupId = newId('ctu');
  const now = new Date();
  await h.db
    .insertInto('card_topups')
    .values({ id: topupId, business_id: b.id, environment, amount: cents, status: 'pending', token: topupId, success_url: 'https://x.test/ok', cancel_url: 'https://x.test/no', deposit_id: null, created_at: now, updated_at: now })
    .execute();
  const dep = await receiveDeposit(h.core, callerOf(b, environment), { source: 'card', amount: formatAmount(cents, 'USD'), currency: 'USD', externalId: topupId });
  await creditDeposit(h.core, dep.deposit.id);
  await h.db.updateTable('card_topups').set({ status: 'completed', deposit_id: dep.deposit.id }).where('id', '=', topupId).execute();
  const row = await h.db.selectFrom('deposits').select('net_amount').where('id', '=', dep.deposit.id).executeTakeFirstOrThrow();
  return { topupId, depositId: dep.deposit.id, credited: BigInt(row.net_amount) };
}

/** Moves `amount` out of available as if paid out (a test posting). */
const drain = (b: Biz, amount: bigint, environment: 'sandbox' | 'live' = 'sandbox') =>
  h.db.transaction().execute((tx) => postLedger(tx, { businessId: b.id, environment, key: `test:drain:${newId('req')}`, from: 'available', to: 'sent', amount }));
const fund = (b: Biz, amount: bigint, environment: 'sandbox' | 'live' = 'sandbox') =>
  h.db.transaction().execute((tx) => postLedger(tx, { businessId: b.id, environment, key: `test:fund:${newId('req')}`, from: 'external', to: 'available', amount }));

function processor(refund: (i: CardRefundInput) => Promise<CardRefundResult>): CardProcessor & { calls: CardRefundInput[] } {
  const calls: CardRefundInput[] = [];
  const unused = () => {
    throw new Error('not used');
  };
  return {
    id: 'test',
    calls,
    createCheckout: unused,
    retrieveCheckout: unused,
    expireCheckout: unused,
    verifyEvent: unused,
    refund: (i) => {
      calls.push(i);
      return refund(i);
    },
  };
}

/** A live top-up with its paid card payment (the card_payments row written as its owner would). */
async function liveTopup(b: Biz, cents: bigint) {
  const t = await creditedTopup(b, cents, 'live');
  const now = new Date();
  const cpayId = newId('cpay');
  await h.db
    .insertInto('card_payments')
    .values({
      id: cpayId, business_id: b.id, environment: 'live', purpose: 'topup', card_topup_id: t.topupId, payment_link_id: null, payment_request_id: null, processor: 'test',
      amount: cents, currency: 'USD', status: 'paid', session_id: null, session_url: null, session_expires_at: null, payment_intent_id: `pi_${t.topupId}`, charge_id: null, fee: null,
      deposit_id: t.depositId, refunded: 0n, success_url: 'https://x.test/ok', cancel_url: 'https://x.test/no', paid_at: now, created_at: now, updated_at: now,
    })
    .execute();
  // A live top-up reads its status and deposit from its card payment (src/core/claim-flow/card-topups.ts).
  await h.db.updateTable('card_topups').set({ card_payment_id: cpayId, status: 'pending', deposit_id: null }).where('id', '=', t.topupId).execute();
  return t;
}

describe('refunds of card top-ups', () => {
  it('the debit rule: the credited share rounded up, the last refund takes exactly the rest', () => {
    const o = { topupAmount: 5000n, credited: 48_250_000n, refundedAmount: 0n, debited: 0n };
    expect(refundDebit({ ...o, amount: 3333n })).toBe(32_163_450n);
    expect(refundDebit({ ...o, amount: 1n })).toBe(9650n);
    expect(refundDebit({ ...o, amount: 1667n, refundedAmount: 3333n, debited: 32_163_450n })).toBe(48_250_000n - 32_163_450n);
    // Dispute amounts: USD 1:1 (cents x 10^4), another currency at its deposit's rate (currency per USDC), rounded up.
    expect(disputeMicroUsdc(6500n, 'usd', null)).toBe(65_000_000n);
    expect(disputeMicroUsdc(1750n, 'mxn', '17.5')).toBe(1_000_000n);
    expect(disputeMicroUsdc(1n, 'mxn', '17.5')).toBe(572n);
  });

  it('sandbox: a partial then the full rest succeed at once, debit the balance first and add up to the credit; then 409', async () => {
    const b = await h.business();
    const t = await creditedTopup(b, 5000n);
    const before = await balances(b);
    const r1 = await h.request('POST', `${B}/funding/card/${t.topupId}/refunds`, { key: b.sandbox, body: { amountUsd: '20.00' } });
    expect(r1.status).toBe(201);
    expect(r1.body).toMatchObject({ id: expect.stringMatching(/^cref_/), topupId: t.topupId, amountUsd: '20.00', status: 'succeeded' });
    const d1 = refundDebit({ amount: 2000n, topupAmount: 5000n, credited: t.credited, refundedAmount: 0n, debited: 0n });
    expect((await balances(b)).available).toBe(before.available - d1);
    const r2 = await h.request('POST', `${B}/funding/card/${t.topupId}/refunds`, { key: b.sandbox, body: {} });
    expect([r2.status, r2.body.amountUsd]).toEqual([201, '30.00']);
    expect((await balances(b)).available).toBe(before.available - t.credited);
    const r3 = await h.request('POST', `${B}/funding/card/${t.topupId}/refunds`, { key: b.sandbox });
    expect([r3.status, r3.body.error]).toEqual([409, 'invalid_state']);
    const list = await h.request('GET', `${B}/funding/card/${t.topupId}/refunds`, { key: b.sandbox });
    expect(list.body.data.map((x: { amountUsd: string }) => x.amountUsd)).toEqual(['30.00', '20.00']);
    const events = await h.db.selectFrom('events').select(['type', 'data']).where('business_id', '=', b.id).where('type', '=', 'deposit.refunded').execute();
    expect(events.map((e) => (e.data as { refund: { id: string } }).refund.id).sort()).toEqual([r1.body.id, r2.body.id].sort());
    const a = await h.request('GET', '/sandbox/v1/events?type=deposit.refunded', { key: b.sandbox });
    expect(a.status).toBe(200);
    expect(a.body.data[0].data.object).toMatchObject({ object: 'deposit', id: t.depositId, refund: { id: expect.stringMatching(/^cref_/), status: 'succeeded', currency: 'USD' } });
  });

  it('402 insufficient_balance when available does not cover the debit: nothing written', async () => {
    const b = await h.business();
    const t = await creditedTopup(b, 5000n);
    await drain(b, t.credited - 1n);
    const before = await balances(b);
    const r = await h.request('POST', `${B}/funding/card/${t.topupId}/refunds`, { key: b.sandbox, body: {} });
    expect([r.status, r.body.error]).toEqual([402, 'insufficient_balance']);
    expect(await balances(b)).toEqual(before);
    expect(await h.db.selectFrom('card_refunds').select('id').where('card_topup_id', '=', t.topupId).execute()).toEqual([]);
  });

  it("404 for another business's or an unknown top-up; 400 amount_out_of_range above what is left", async () => {
    const b = await h.business();
    const other = await h.business();
    const t = await creditedTopup(b, 5000n);
    const r = await h.request('POST', `${B}/funding/card/${t.topupId}/refunds`, { key: other.sandbox, body: {} });
    expect([r.status, r.body.error]).toEqual([404, 'not_found']);
    expect((await h.request('GET', `${B}/funding/card/${t.topupId}/refunds`, { key: other.sandbox })).status).toBe(404);
    expect((await h.request('POST', `${B}/funding/card/ctu_nope/refunds`, { key: b.sandbox, body: {} })).status).toBe(404);
    const big = await h.request('POST', `${B}/funding/card/${t.topupId}/refunds`, { key: b.sandbox, body: { amountUsd: '50.01' } });
    expect([big.status, big.body.error, big.body.details.param]).toEqual([400, 'amount_out_of_range', 'amountUsd']);
  });

  it('live: a refund the processor fails gives the money back; a retryable error stays pending and the sweep retries with the same key', async () => {
    const b = await h.business({ verified: true });
    const t = await liveTopup(b, 4000n);
    const before = await balances(b, 'live');
    const failing = processor(async () => ({ refundId: 're_1', status: 'failed', failureReason: 'expired_or_canceled_card' }));
    const failed = await refundCardTopup(h.core, callerOf(b, 'live'), t.topupId, {}, { processor: failing });
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'expired_or_canceled_card' });
    expect(failing.calls).toEqual([{ paymentIntentId: `pi_${t.topupId}`, amount: 4000n, reference: failed.id }]);
    expect(await balances(b, 'live')).toEqual(before);

    let fail = true;
    const flaky = processor(async () => {
      if (fail) throw new CardProcessorError('timeout', true);
      return { refundId: 're_2', status: 'succeeded', failureReason: null };
    });
    const pending = await refundCardTopup(h.core, callerOf(b, 'live'), t.topupId, { amountUsd: '10.00' }, { processor: flaky });
    expect(pending.status).toBe('pending');
    expect((await balances(b, 'live')).available).toBe(before.available - refundDebit({ amount: 1000n, topupAmount: 4000n, credited: t.credited, refundedAmount: 0n, debited: 0n }));
    fail = false;
    const later: Core = { ...h.core, now: () => new Date(Date.now() + 120_000) };
    expect(await retryPendingRefunds(later, { processor: flaky })).toBeGreaterThanOrEqual(1);
    expect(flaky.calls.map((c) => c.reference)).toEqual([pending.id, pending.id]);
    const row = await h.db.selectFrom('card_refunds').select(['status', 'processor_refund_id']).where('id', '=', pending.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'succeeded', processor_refund_id: 're_2' });
    // A replayed event changes nothing; a later failure gives the money back once.
    expect(await applyRefundEvent(h.core, { refundId: 're_2', status: 'succeeded', failureReason: null, reference: pending.id })).toBe('stale');
    const mid = await balances(b, 'live');
    expect(await applyRefundEvent(h.core, { refundId: 're_2', status: 'failed', failureReason: 'lost', reference: pending.id })).toBe('failed');
    expect(await applyRefundEvent(h.core, { refundId: 're_2', status: 'failed', failureReason: 'lost', reference: pending.id })).toBe('stale');
    expect((await balances(b, 'live')).available).toBe(mid.available + BigInt((await h.db.selectFrom('card_refunds').select('debit').where('id', '=', pending.id).executeTakeFirstOrThrow()).debit));
  });
});

describe('rolling reserve', () => {
  it('holds the percent of the credit (rounded down) once, and the sweep releases it when due', async () => {
    const b = await h.business();
    const t = await creditedTopup(b, 10_000n);
    const input = { businessId: b.id, environment: 'sandbox' as const, depositId: t.depositId, cardPaymentId: null, credited: t.credited, creditedAt: new Date() };
    const settings = { percent: '10', periodMs: 86_400_000 };
    const before = await balances(b);
    const held = await h.db.transaction().execute((tx) => holdCardReserve(tx, input, settings));
    expect(held).toBe(reserveShare(t.credited, '10'));
    expect(await h.db.transaction().execute((tx) => holdCardReserve(tx, input, settings))).toBe(held);
    expect(await balances(b)).toEqual({ ...before, available: before.available - held, reserve: held });
    expect(await releaseDueReserves(h.core)).toBe(0);
    const later: Core = { ...h.core, now: () => new Date(Date.now() + 86_400_000 + 1000) };
    expect(await releaseDueReserves(later)).toBeGreaterThanOrEqual(1);
    expect(await balances(b)).toEqual(before);
    expect(await releaseDueReserves(later)).toBe(0);
  });

  it('a reserve a dispute took part of releases only what remains; the percent rounds down', async () => {
    expect(reserveShare(48_250_001n, '10')).toBe(4_825_000n);
    expect(reserveShare(48_250_000n, '2.5')).toBe(1_206_250n);
    const b = await h.business();
    const t = await creditedTopup(b, 10_000n);
    const settings = { percent: '10', periodMs: 1000 };
    const held = await h.db.transaction().execute((tx) =>
      holdCardReserve(tx, { businessId: b.id, environment: 'sandbox', depositId: t.depositId, cardPaymentId: null, credited: t.credited, creditedAt: new Date() }, settings),
    );
    const taken = await h.db.transaction().execute((tx) => takeFromReserves(tx, b.id, 'sandbox', 'dp_partial', 1_000_000n, new Date()));
    expect(taken).toBe(1_000_000n);
    const before = await balances(b);
    expect(before.reserve).toBe(held - taken);
    await releaseDueReserves({ ...h.core, now: () => new Date(Date.now() + 60_000) });
    expect(await balances(b)).toEqual({ available: before.available + held - taken, held: 0n, reserve: 0n });
  });
});

describe('disputes', () => {
  const dispute = (id: string, o: Partial<CardDisputeState> = {}): CardDisputeState => ({
    id, paymentIntentId: null, chargeId: null, status: 'needs_response', reason: 'fraudulent', amount: 5000n, currency: 'usd', withdrawn: null, reinstated: null, ...o,
  });
  const ev = (kind: string, d: CardDisputeState) => ({ id: newId('evt'), kind, createdAt: new Date(), dispute: d });

  async function setup(cents: bigint) {
    const b = await h.business({ verified: true });
    const t = await creditedTopup(b, cents);
    await h.db.transaction().execute((tx) =>
      holdCardReserve(tx, { businessId: b.id, environment: 'sandbox', depositId: t.depositId, cardPaymentId: null, credited: t.credited, creditedAt: new Date() }, { percent: '10', periodMs: 86_400_000 }),
    );
    const payment = { id: `cp_${t.topupId}`, businessId: b.id, environment: 'sandbox' as const, depositId: t.depositId, currency: 'usd' };
    return { b, t, payment };
  }

  it('lost after a payout: takes available, then the reserve, records the shortfall, blocks new payouts (A and B) until recovered; never negative', async () => {
    const { b, t, payment } = await setup(5000n);
    const bal0 = await balances(b);
    await drain(b, bal0.available - 1_000_000n); // paid out all but 1 USDC
    const id = `dp_${t.topupId}`;
    const withdrawn = dispute(id, { withdrawn: { amount: 5000n, fee: 1500n } });
    // funds_withdrawn before created: works; the replay and the late created change nothing.
    expect(await applyDisputeEvent(h.core, ev('dispute_funds_withdrawn', withdrawn), payment)).toBe('withdrawn');
    expect(await applyDisputeEvent(h.core, ev('dispute_funds_withdrawn', withdrawn), payment)).toBe('stale');
    expect(await applyDisputeEvent(h.core, ev('dispute_created', dispute(id)), payment)).toBe('stale');
    const total = 65_000_000n;
    const row = await h.db.selectFrom('card_disputes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect([row.taken_available, row.taken_reserve, row.shortfall]).toEqual([1_000_000n, bal0.reserve, total - 1_000_000n - bal0.reserve]);
    expect(await balances(b)).toEqual({ available: 0n, held: 0n, reserve: 0n });

    await fund(b, 100_000_000n);
    const a = await h.request('POST', '/sandbox/v1/payouts', { key: b.sandbox, body: { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: '1.00' } });
    expect([a.status, a.body.error.code]).toEqual([403, 'payouts_blocked']);
    expect(a.body.error.message).toContain(id);
    const d = await h.request('POST', `${B}/disbursements`, { key: b.sandbox, body: { recipientEmail: 'ana@example.com', amountUsd: '5.00' } });
    expect([d.status, d.body.error]).toEqual([403, 'payouts_blocked']);
    const c = await h.request('POST', '/sandbox/guide/v1/payouts', { key: b.sandbox, body: { email: 'a@example.com', amount: '1', currency: 'USD' } });
    expect(c.status).toBe(403);
    expect(JSON.stringify(c.body)).toContain('payouts_blocked');
    const afterRefused = await balances(b);
    expect(afterRefused).toEqual({ available: 100_000_000n, held: 0n, reserve: 0n });

    expect(await recoverDisputeShortfalls(h.core)).toBeGreaterThanOrEqual(1);
    expect(await recoverDisputeShortfalls(h.core)).toBe(0);
    expect((await balances(b)).available).toBe(100_000_000n - BigInt(row.shortfall));
    const ok = await h.request('POST', '/sandbox/v1/payouts', { key: b.sandbox, body: { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: '1.00' } });
    expect(ok.status).toBe(201);
    expect(await applyDisputeEvent(h.core, ev('dispute_closed', dispute(id, { status: 'lost', withdrawn: { amount: 5000n, fee: 1500n } })), payment)).toBe('closed');
    expect((await h.db.selectFrom('card_disputes').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe('lost');
    const events = await h.db.selectFrom('events').select(['type', 'data']).where('business_id', '=', b.id).where('type', 'like', 'deposit.dispute%').orderBy('created_at').execute();
    expect(events.map((e) => e.type)).toEqual(['deposit.disputed', 'deposit.dispute_closed']);
    expect((events[0]!.data as { dispute: unknown }).dispute).toMatchObject({ id, status: 'needs_response', shortfall: { $bigint: String(row.shortfall) } });
    const bEvents = await h.request('GET', `${B}/events?type=deposit.disputed`, { key: b.sandbox });
    expect(bEvents.status).toBe(200);
    expect(bEvents.body.data[0]).toMatchObject({ type: 'deposit.disputed', data: { id: t.depositId, dispute: { id, status: 'needs_response', currency: 'USD' } } });
  });

  it('won: the reinstatement gives back exactly what was taken and clears the shortfall; replays change nothing', async () => {
    const { b, t, payment } = await setup(5000n);
    const bal0 = await balances(b);
    await drain(b, bal0.available - 2_000_000n);
    const before = await balances(b);
    const id = `dp_${t.topupId}`;
    expect(await applyDisputeEvent(h.core, ev('dispute_created', dispute(id)), payment)).toBe('opened');
    expect(await applyDisputeEvent(h.core, ev('dispute_funds_withdrawn', dispute(id, { withdrawn: { amount: 5000n, fee: 1500n } })), payment)).toBe('withdrawn');
    expect((await balances(b)).available).toBe(0n);
    const won = dispute(id, { status: 'won', withdrawn: { amount: 5000n, fee: 1500n }, reinstated: { amount: 5000n, fee: 1500n } });
    expect(await applyDisputeEvent(h.core, ev('dispute_funds_reinstated', won), payment)).toBe('reinstated');
    expect(await applyDisputeEvent(h.core, ev('dispute_funds_reinstated', won), payment)).toBe('stale');
    // The reserve part comes back to available (docs/getting-paid.md "Disputes").
    expect(await balances(b)).toEqual({ available: before.available + before.reserve, held: 0n, reserve: 0n });
    const row = await h.db.selectFrom('card_disputes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.recovered_at).not.toBeNull();
    expect(await recoverDisputeShortfalls(h.core)).toBe(0);
    const ok = await h.request('POST', '/sandbox/v1/payouts', { key: b.sandbox, body: { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: '1.00' } });
    expect(ok.status).toBe(201);
    // Opened, then withdrawn (shortfall > 0), then closed won: each once.
    const events = await h.db.selectFrom('events').select(['type', 'data']).where('business_id', '=', b.id).where('type', 'like', 'deposit.dispute%').orderBy('created_at').execute();
    expect(events.map((e) => e.type)).toEqual(['deposit.disputed', 'deposit.disputed', 'deposit.dispute_closed']);
    const facts = events.map((e) => (e.data as { dispute: { shortfall: { $bigint: string }; status: string } }).dispute);
    expect(facts[0]!.shortfall.$bigint).toBe('0');
    expect(BigInt(facts[1]!.shortfall.$bigint)).toBeGreaterThan(0n);
    expect([facts[2]!.status, facts[2]!.shortfall.$bigint]).toEqual(['won', '0']);
  });

  it('reinstated before withdrawn (reordered): nothing moves', async () => {
    const { b, t, payment } = await setup(5000n);
    const before = await balances(b);
    const id = `dp_${t.topupId}`;
    expect(await applyDisputeEvent(h.core, ev('dispute_funds_reinstated', dispute(id, { status: 'won', reinstated: { amount: 5000n, fee: 0n } })), payment)).toBe('reinstated');
    expect(await applyDisputeEvent(h.core, ev('dispute_funds_withdrawn', dispute(id, { withdrawn: { amount: 5000n, fee: 1500n } })), payment)).toBe('stale');
    expect(await balances(b)).toEqual(before);
  });
});
