/**
 * The Stripe card-processor module (src/card-processors/stripe/) over the official `stripe` client,
 * against the test card processor (tools/test-card-processor/), which forwards every call to
 * stripe-mock (docs/getting-paid.md "Test card processor"). Needs the stripe-mock binary: without it
 * the suite fails, naming `npx tsx tools/stripe-mock-bin.ts install`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { z } from 'zod';
import { CardEventRefusedError, CardProcessorError, type CardCheckoutInput, type CardProcessor, type CardProcessorEvent } from '../../src/card-processors/processor';
import { CARD_PROCESSOR_MODULES, connectCardProcessor } from '../../src/card-processors/registry';
import { STRIPE_CARD_PROCESSOR_MODULE, stripeError } from '../../src/card-processors/stripe/module';
import { STRIPE_SETTINGS } from '../../src/card-processors/stripe/settings';
import { startTestCardProcessor, type TestCardEvent, TEST_BANK_ACCOUNTS, TEST_CARDS, testCardFee, type TestCardProcessor } from '../../tools/test-card-processor/processor';
import { waitFor } from '../helpers/wait-for';

let tp: TestCardProcessor;
let stripe: CardProcessor;
/** Every delivery the app would have received: raw body and headers. */
const received: Array<{ headers: Record<string, string>; body: string }> = [];

beforeAll(async () => {
  tp = await startTestCardProcessor({ stepMs: 30, lateMs: 300, retry: { attempts: 2, delayMs: 20 } });
  tp.setWebhookTarget(async (headers, body) => {
    received.push({ headers, body });
    return 200;
  });
  const settings = z.object(STRIPE_SETTINGS).parse({ ...tp.env, CARD_STRIPE_MAX_NETWORK_RETRIES: '0' });
  stripe = STRIPE_CARD_PROCESSOR_MODULE.connect(settings, { timeoutMs: 10_000 })!;
});
afterAll(async () => {
  await tp?.close();
});

let seq = 0;
const input = (over: Partial<CardCheckoutInput> = {}): CardCheckoutInput => {
  const reference = `cpay_test${++seq}`;
  return {
    reference,
    metadata: { business_id: 'biz_1', environment: 'live', purpose: 'topup' },
    amount: 12_345n,
    currency: 'USD',
    description: 'Balance top-up',
    successUrl: 'https://app.example/checkout/done?session={CHECKOUT_SESSION_ID}',
    cancelUrl: 'https://app.example/checkout/cancelled',
    expiresAt: new Date(Date.now() + 3_600_000),
    idempotencyKey: `${reference}:1`,
    ...over,
  };
};
/** The app's side: every delivered event about `objectId`, verified by the module, in order received. */
const verified = (objectId: string): CardProcessorEvent[] =>
  received.map((d) => stripe.verifyEvent(d.body, d.headers, new Date())).filter((e) => (e.payload as { data: { object: { id: string } } }).data.object.id === objectId);

describe('the Stripe module against the test card processor', () => {
  it('connects only with both the secret key and the webhook secret, and is the registry\'s card processor', () => {
    expect(CARD_PROCESSOR_MODULES.map((m) => m.id)).toContain('stripe');
    const parse = (env: Record<string, string>) => z.object(STRIPE_SETTINGS).parse(env);
    expect(STRIPE_CARD_PROCESSOR_MODULE.connect(parse({ CARD_STRIPE_SECRET_KEY: tp.env.CARD_STRIPE_SECRET_KEY }), { timeoutMs: 1000 })).toBeNull();
    expect(STRIPE_CARD_PROCESSOR_MODULE.connect(parse({ CARD_STRIPE_WEBHOOK_SECRET: tp.env.CARD_STRIPE_WEBHOOK_SECRET }), { timeoutMs: 1000 })).toBeNull();
    expect(connectCardProcessor(parse(tp.env), { timeoutMs: 1000 })?.id).toBe('stripe');
  });

  it('creates a session with our reference, metadata and amount; a retried create with the same key is the same session', async () => {
    const i = input();
    const first = await stripe.createCheckout(i);
    expect(first).toMatchObject({ status: 'open', paymentStatus: 'unpaid', reference: i.reference, amount: 12_345n, currency: 'USD', paymentIntentId: null, fee: null });
    expect(first.url).toBe(`${tp.url}/checkout/${first.sessionId}`);
    expect(first.expiresAt?.getTime()).toBe(Math.floor(i.expiresAt.getTime() / 1000) * 1000);
    const again = await stripe.createCheckout(i);
    expect(again.sessionId).toBe(first.sessionId);
    const mine = tp.sessions().filter((s) => s.clientReferenceId === i.reference);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ metadata: i.metadata, paymentIntentMetadata: i.metadata, description: 'Balance top-up', successUrl: i.successUrl, cancelUrl: i.cancelUrl });
    // A new attempt (another key) is another session.
    const other = await stripe.createCheckout({ ...i, idempotencyKey: `${i.reference}:2` });
    expect(other.sessionId).not.toBe(first.sessionId);
  });

  it('a parameter stripe-mock refuses is a non-retryable CardProcessorError; an unreachable API is retryable', async () => {
    const refused = await stripe.createCheckout(input({ expiresAt: new Date(Number.NaN) })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CardProcessorError);
    expect(refused).toMatchObject({ retryable: false, code: 'invalid_request' });
    expect((refused as Error).message).toMatch(/expires_at.*not numeric/);
    const nowhere = STRIPE_CARD_PROCESSOR_MODULE.connect(z.object(STRIPE_SETTINGS).parse({ ...tp.env, CARD_STRIPE_API_URL: 'http://127.0.0.1:9', CARD_STRIPE_MAX_NETWORK_RETRIES: '0' }), { timeoutMs: 2000 })!;
    const down = await nowhere.retrieveCheckout('cs_test_x').catch((e: unknown) => e);
    expect(down).toMatchObject({ name: 'CardProcessorError', retryable: true });
  });

  it('maps Stripe\'s errors: network, 409, 429 and 5xx retryable; refusals not, with Stripe\'s code', async () => {
    const E = Stripe.errors;
    const cases: Array<[Error, boolean, string | null]> = [
      [new E.StripeConnectionError({ message: 'socket hang up' }), true, 'connection'],
      [new E.StripeRateLimitError({ message: 'slow down', statusCode: 429, code: 'rate_limit' }), true, 'rate_limit'],
      [new E.StripeAPIError({ message: 'oops', statusCode: 500 }), true, 'api'],
      [new E.StripeInvalidRequestError({ message: 'busy', statusCode: 409, code: 'lock_timeout' }), true, 'lock_timeout'],
      [new E.StripeInvalidRequestError({ message: 'No such payment_intent', statusCode: 404, code: 'resource_missing' }), false, 'resource_missing'],
      [new E.StripeCardError({ message: 'declined', statusCode: 402, code: 'card_declined' }), false, 'card_declined'],
      [new E.StripeIdempotencyError({ message: 'other parameters', statusCode: 400 }), false, 'idempotency'],
      [new E.StripeAuthenticationError({ message: 'bad key', statusCode: 401 }), false, 'authentication'],
    ];
    for (const [err, retryable, code] of cases) expect(stripeError(err, 'x'), err.message).toMatchObject({ name: 'CardProcessorError', retryable, code });
    await expect(stripe.createCheckout(input({ amount: 0n }))).rejects.toMatchObject({ retryable: false, code: 'amount_out_of_range' });
    await expect(stripe.refund({ paymentIntentId: 'pi_x', amount: 2n ** 60n, reference: 'cref_big' })).rejects.toMatchObject({ retryable: false, code: 'amount_out_of_range' });
  });

  it('a paid session read back has the payment intent, the charge and Stripe\'s fee; the signed event verifies and is checkout_completed', async () => {
    const s = await stripe.createCheckout(input({ amount: 10_000n }));
    const paid = await tp.pay(s.sessionId, TEST_CARDS.succeeds);
    expect(paid).toMatchObject({ outcome: 'succeeded', redirect: `https://app.example/checkout/done?session=${s.sessionId}` });
    const now = await stripe.retrieveCheckout(s.sessionId);
    expect(now).toMatchObject({ status: 'complete', paymentStatus: 'paid', paymentIntentId: paid.paymentIntentId, amount: 10_000n });
    expect(now.chargeId).toMatch(/^ch_/);
    expect(now.fee).toBe(320n); // 2.9 % of 100.00 + 0.30
    expect(testCardFee(10_000n)).toBe(320n);
    await tp.idle();
    const events = verified(s.sessionId);
    expect(events.map((e) => [e.type, e.kind])).toEqual([['checkout.session.completed', 'checkout_completed']]);
    expect(events[0]!.checkout).toMatchObject({ sessionId: s.sessionId, status: 'complete', paymentStatus: 'paid', reference: now.reference, paymentIntentId: paid.paymentIntentId, amount: 10_000n, currency: 'USD' });
    expect(events[0]!.livemode).toBe(false);
  });

  it('a declined card changes nothing: the session stays open and no event is sent', async () => {
    const s = await stripe.createCheckout(input());
    expect(await tp.pay(s.sessionId, TEST_CARDS.declined)).toMatchObject({ outcome: 'declined', code: 'card_declined', declineCode: 'generic_decline' });
    expect(await tp.pay(s.sessionId, TEST_CARDS.insufficientFunds)).toMatchObject({ outcome: 'declined', declineCode: 'insufficient_funds' });
    expect(await stripe.retrieveCheckout(s.sessionId)).toMatchObject({ status: 'open', paymentStatus: 'unpaid', paymentIntentId: null });
    expect(tp.events().filter((e) => e.objectId === s.sessionId)).toEqual([]);
  });

  it('a bank debit is completed unpaid, then async_payment_succeeded (or _failed)', async () => {
    const ok = await stripe.createCheckout(input());
    const bad = await stripe.createCheckout(input());
    expect((await tp.pay(ok.sessionId, { bankAccount: TEST_BANK_ACCOUNTS.succeeds })).outcome).toBe('processing');
    expect((await stripe.retrieveCheckout(ok.sessionId)).paymentStatus).toBe('unpaid');
    await tp.pay(bad.sessionId, { bankAccount: TEST_BANK_ACCOUNTS.fails });
    await tp.idle();
    expect(verified(ok.sessionId).map((e) => [e.kind, e.checkout?.paymentStatus])).toEqual([
      ['checkout_completed', 'unpaid'],
      ['checkout_async_succeeded', 'paid'],
    ]);
    expect(verified(bad.sessionId).map((e) => e.kind)).toEqual(['checkout_completed', 'checkout_async_failed']);
    expect((await stripe.retrieveCheckout(ok.sessionId)).fee).toBe(testCardFee(12_345n));
  });

  it('expires an open session (event checkout_expired); expiring a paid one answers its state', async () => {
    const s = await stripe.createCheckout(input());
    const expired = await stripe.expireCheckout(s.sessionId);
    expect(expired).toMatchObject({ sessionId: s.sessionId, status: 'expired', url: null });
    await tp.idle();
    expect(verified(s.sessionId).map((e) => e.kind)).toEqual(['checkout_expired']);
    const paid = await stripe.createCheckout(input());
    await tp.pay(paid.sessionId, TEST_CARDS.succeeds);
    expect(await stripe.expireCheckout(paid.sessionId)).toMatchObject({ status: 'complete', paymentStatus: 'paid' });
  });

  it('refunds once per reference; the refund events carry our reference; too large a refund is refused, not retryable', async () => {
    const s = await stripe.createCheckout(input({ amount: 5000n }));
    const { paymentIntentId } = await tp.pay(s.sessionId, TEST_CARDS.succeeds);
    const r = await stripe.refund({ paymentIntentId: paymentIntentId!, amount: 2000n, reference: 'cref_one' });
    expect(r).toMatchObject({ status: 'succeeded', failureReason: null });
    expect(await stripe.refund({ paymentIntentId: paymentIntentId!, amount: 2000n, reference: 'cref_one' })).toEqual(r);
    const tooMuch = await stripe.refund({ paymentIntentId: paymentIntentId!, amount: 3001n, reference: 'cref_two' }).catch((e: unknown) => e);
    expect(tooMuch).toMatchObject({ name: 'CardProcessorError', retryable: false, code: 'amount_too_large' });
    await tp.idle();
    const refundEvents = received.map((d) => stripe.verifyEvent(d.body, d.headers, new Date())).filter((e) => e.refund?.refundId === r.refundId);
    expect(refundEvents.map((e) => e.type).sort()).toEqual(['charge.refunded', 'refund.created']);
    for (const e of refundEvents) expect(e).toMatchObject({ kind: 'refund_updated', refund: { reference: 'cref_one', amount: 2000n, paymentIntentId, status: 'succeeded' } });
  });

  it('a refund of the 4000000000005126 card starts succeeded and turns failed (refund.failed)', async () => {
    const s = await stripe.createCheckout(input());
    const { paymentIntentId } = await tp.pay(s.sessionId, TEST_CARDS.refundFails);
    const r = await stripe.refund({ paymentIntentId: paymentIntentId!, amount: 100n, reference: 'cref_fails' });
    await tp.idle();
    expect(r.status).toBe('succeeded');
    const events = received.map((d) => stripe.verifyEvent(d.body, d.headers, new Date())).filter((e) => e.refund?.refundId === r.refundId);
    expect(events.map((e) => [e.type, e.refund?.status])).toEqual([
      ['refund.created', 'succeeded'],
      ['charge.refunded', 'succeeded'],
      ['refund.updated', 'failed'],
      ['refund.failed', 'failed'],
    ]);
    expect(events[3]!.refund).toMatchObject({ failureReason: 'expired_or_canceled_card', reference: 'cref_fails', amount: 100n });
  });

  it('dispute events carry the withdrawn amount with the dispute fee, and the reinstatement of a won dispute', async () => {
    const s = await stripe.createCheckout(input({ amount: 7000n }));
    const { paymentIntentId } = await tp.pay(s.sessionId, TEST_CARDS.succeeds);
    const { disputeId } = await tp.dispute(paymentIntentId!, { outcome: 'won' });
    await tp.idle();
    const events = verified(disputeId);
    expect(events.map((e) => e.kind)).toEqual(['dispute_created', 'dispute_funds_withdrawn', 'dispute_updated', 'dispute_funds_reinstated', 'dispute_closed']);
    expect(events[0]!.dispute).toMatchObject({ id: disputeId, paymentIntentId, status: 'needs_response', reason: 'fraudulent', amount: 7000n, currency: 'USD', withdrawn: null, reinstated: null });
    expect(events[1]!.dispute!.withdrawn).toEqual({ amount: 7000n, fee: 1500n });
    expect(events[4]!.dispute).toMatchObject({ status: 'won', withdrawn: { amount: 7000n, fee: 1500n }, reinstated: { amount: 7000n, fee: 0n } });
    const lost = await stripe.createCheckout(input({ amount: 900n }));
    const paid = await tp.pay(lost.sessionId, TEST_CARDS.succeeds);
    const d2 = await tp.dispute(paid.paymentIntentId!, { outcome: 'lost', reason: 'product_not_received' });
    await tp.idle();
    const last = verified(d2.disputeId).at(-1)!;
    expect(last).toMatchObject({ kind: 'dispute_closed', dispute: { status: 'lost', reason: 'product_not_received', withdrawn: { amount: 900n, fee: 1500n }, reinstated: null } });
  });

  it('verifyEvent refuses a tampered body, a 10-minute-old signature and a body that is not JSON; another event type is other', async () => {
    const s = await stripe.createCheckout(input());
    await tp.pay(s.sessionId, TEST_CARDS.succeeds);
    await tp.idle();
    const d = received.find((x) => x.body.includes(s.sessionId))!;
    const refusal = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e;
      }
      return null;
    };
    const tampered = refusal(() => stripe.verifyEvent(d.body.replace('"amount_total":12345', '"amount_total":99999'), d.headers, new Date()));
    expect(tampered).toBeInstanceOf(CardEventRefusedError);
    expect(tampered).toMatchObject({ code: 'signature_invalid' });
    expect(refusal(() => stripe.verifyEvent(d.body, {}, new Date()))).toMatchObject({ code: 'signature_invalid' });
    const old = Math.floor(Date.now() / 1000) - 600;
    expect(refusal(() => stripe.verifyEvent(d.body, { 'stripe-signature': tp.sign(d.body, old) }, new Date()))).toMatchObject({ code: 'signature_expired' });
    // `now` decides the age: the same delivery verified 10 minutes later is expired.
    expect(refusal(() => stripe.verifyEvent(d.body, d.headers, new Date(Date.now() + 600_000)))).toMatchObject({ code: 'signature_expired' });
    expect(refusal(() => stripe.verifyEvent('{not json', { 'stripe-signature': tp.sign('{not json') }, new Date()))).toMatchObject({ code: 'payload_invalid' });
    const other = JSON.stringify({ id: 'evt_other', object: 'event', type: 'payment_intent.created', created: 1_800_000_000, livemode: false, data: { object: { id: 'pi_x', object: 'payment_intent' } } });
    expect(stripe.verifyEvent(other, { 'stripe-signature': tp.sign(other) }, new Date())).toMatchObject({ id: 'evt_other', kind: 'other', checkout: null, refund: null, dispute: null });
  });

  it('delivery modes: TWICE sends each event twice, SILENT none (the state is still there to ask), a failed delivery is retried', async () => {
    const twice = await stripe.createCheckout(input({ description: 'Top-up TWICE' }));
    await tp.pay(twice.sessionId, TEST_CARDS.succeeds);
    const silent = await stripe.createCheckout(input({ description: 'Top-up SILENT' }));
    await tp.pay(silent.sessionId, TEST_CARDS.succeeds);
    await tp.idle();
    const twiceIds = verified(twice.sessionId).map((e) => e.id);
    expect(twiceIds).toHaveLength(2);
    expect(new Set(twiceIds).size).toBe(1);
    expect(verified(silent.sessionId)).toEqual([]);
    expect((await stripe.retrieveCheckout(silent.sessionId)).paymentStatus).toBe('paid');

    let calls = 0;
    tp.setWebhookTarget(async (headers, body) => {
      calls++;
      if (calls === 1) return 503;
      received.push({ headers, body });
      return 200;
    });
    try {
      const retried = await stripe.createCheckout(input());
      await tp.pay(retried.sessionId, TEST_CARDS.succeeds);
      await waitFor(() => verified(retried.sessionId).length === 1, 'the retried delivery');
      expect(tp.events().find((e) => e.objectId === retried.sessionId)).toMatchObject({ attempts: [503, 200], delivered: true });
    } finally {
      tp.setWebhookTarget(async (headers, body) => {
        received.push({ headers, body });
        return 200;
      });
    }
  });

  it('delivery modes: SHUFFLE sends a payment\'s events newest first, LATE after lateMs', async () => {
    const shuffled = await stripe.createCheckout(input({ description: 'Top-up SHUFFLE' }));
    await tp.pay(shuffled.sessionId, { bankAccount: TEST_BANK_ACCOUNTS.succeeds });
    await tp.idle();
    expect(verified(shuffled.sessionId).map((e) => e.type)).toEqual(['checkout.session.async_payment_succeeded', 'checkout.session.completed']);
    const late = await stripe.createCheckout(input({ description: 'Top-up LATE' }));
    const started = Date.now();
    await tp.pay(late.sessionId, TEST_CARDS.succeeds);
    expect(verified(late.sessionId)).toEqual([]);
    await waitFor(() => verified(late.sessionId).length === 1, 'the late event');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });
});

describe('the test card processor\'s own clock', () => {
  it('expires an open session at its expires_at (checkout.session.expired), signed at that clock, verified at the same clock', async () => {
    let now = new Date('2031-03-01T12:00:00Z');
    const deliveries: Array<{ headers: Record<string, string>; body: string }> = [];
    const clocked = await startTestCardProcessor({ stripeMockUrl: tp.stripeMockUrl, clock: () => now, webhook: async (headers, body) => (deliveries.push({ headers, body }), 200) });
    try {
      const p = STRIPE_CARD_PROCESSOR_MODULE.connect(z.object(STRIPE_SETTINGS).parse(clocked.env), { timeoutMs: 10_000 })!;
      const s = await p.createCheckout(input({ expiresAt: new Date(now.getTime() + 3_600_000) }));
      expect(s.expiresAt).toEqual(new Date('2031-03-01T13:00:00Z'));
      now = new Date('2031-03-01T13:00:01Z');
      expect(await p.retrieveCheckout(s.sessionId)).toMatchObject({ status: 'expired', url: null });
      await clocked.idle();
      const events = deliveries.map((d) => p.verifyEvent(d.body, d.headers, now));
      expect(events.map((e) => [e.kind, e.checkout?.sessionId, e.createdAt])).toEqual([['checkout_expired', s.sessionId, new Date('2031-03-01T13:00:01Z')]]);
      // Ten minutes later by that clock the same delivery is expired.
      expect(() => p.verifyEvent(deliveries[0]!.body, deliveries[0]!.headers, new Date('2031-03-01T13:10:02Z'))).toThrow(CardEventRefusedError);
      // A create more than 24 h ahead is refused as Stripe refuses it.
      await expect(p.createCheckout(input({ expiresAt: new Date(now.getTime() + 25 * 3_600_000) }))).rejects.toMatchObject({ retryable: false });
      expect(clocked.events().map((e: TestCardEvent) => e.type)).toEqual(['checkout.session.expired']);
    } finally {
      await clocked.close();
    }
  });
});
