/**
 * Live card payments (docs/getting-paid.md "Card payments"; docs/surface-b.md "Card top-ups") over
 * the in-process app and a hand-written card processor (test/helpers/card-processor.ts): Surface B
 * live top-ups, the signed hook `/hooks/card/:processor`, polling, payment links and requests paid
 * by card, and the public page's card form in headless Chromium.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CardProcessorError } from '../../src/card-processors/processor';
import { pollCardPayments } from '../../src/core/cards/card-payments';
import { setCardProcessorForTests } from '../../src/core/cards/processor';
import type { Core } from '../../src/core/context';
import { divDecimal, parseDecimal, USDC } from '../../src/domain/money';
import { launchBrowser, serveHarness } from '../helpers/browser';
import { testCardProcessor, type TestCardProcessor } from '../helpers/card-processor';
import { createHarness, type Harness } from '../helpers/harness';
import { waitFor } from '../helpers/wait-for';

let h: Harness;
let proc: TestCardProcessor;
beforeAll(async () => {
  // A short poll-after, so the poller's test stays within the live rate's maximum age.
  h = await createHarness({ env: { CARD_POLL_AFTER: 'PT30S' } });
});
afterAll(async () => {
  setCardProcessorForTests(h.config, undefined);
  await h?.close();
});
beforeEach(() => {
  proc = testCardProcessor();
  setCardProcessorForTests(h.config, proc);
});

const B = '/claim/v1';
type Biz = { id: string; sandbox: string; live: string };

const topup = (b: Biz, body: Record<string, unknown> = {}) =>
  h.request('POST', `${B}/funding/card`, { key: b.live, body: { amountUsd: '50.00', successUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/back', ...body } });

const paymentOf = async (id: string) => h.db.selectFrom('card_payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const topupRow = async (id: string) => h.db.selectFrom('card_topups').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const liveBalance = async (b: Biz) =>
  h.db.selectFrom('balances').select(['available', 'reserve']).where('business_id', '=', b.id).where('environment', '=', 'live').executeTakeFirst();
const liveDeposits = async (b: Biz) => h.db.selectFrom('deposits').selectAll().where('business_id', '=', b.id).where('environment', '=', 'live').execute();
const postings = async (b: Biz) =>
  h.db.selectFrom('ledger_postings').select(['key', 'debit_account', 'credit_account', 'amount']).where('business_id', '=', b.id).where('environment', '=', 'live').orderBy('key').execute();

const hook = (d: { body: string; headers: Record<string, string> }, processor = 'testcards') =>
  h.request('POST', `/hooks/card/${processor}`, { rawBody: d.body, headers: d.headers });

/** What stays available of a live card credit of `net` micro-USDC: the default 10 % reserve (CARD_RESERVE_PERCENT) rounded down is held. */
const spendable = (net: bigint | string) => BigInt(net) - (BigInt(net) * 10n) / 100n;

/** The core at `now() + ms`, for the poller's "no change for CARD_POLL_AFTER". */
const later = (ms: number): Core => ({ ...h.core, now: () => new Date(Date.now() + ms) });

describe('Surface B live card top-up', () => {
  it('creates one session (also for a retried POST with the same idempotencyKey); credits only after the completion event, once when it comes twice', async () => {
    const b = await h.business();
    const r = await topup(b, { idempotencyKey: 'topup-1' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ amountUsd: '50.00', status: 'pending', successUrl: 'https://shop.example/ok', depositId: null });
    const again = await topup(b, { idempotencyKey: 'topup-1' });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(r.body.id);
    expect(proc.created).toBe(1);
    const [session] = [...proc.sessions.values()];
    expect(r.body.checkoutUrl).toBe(session.url);
    expect(session.input).toMatchObject({ amount: 5000n, currency: 'USD', successUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/back' });
    const cpayId = (await topupRow(r.body.id)).card_payment_id as string;
    expect(cpayId).toMatch(/^cpay_/);
    expect(session.input.idempotencyKey).toBe(`${cpayId}:1`);
    expect(session.input.reference).toBe(cpayId);
    expect((await paymentOf(cpayId)).status).toBe('open');

    // Paid at the processor, no event yet: nothing credited.
    proc.pay(session.sessionId, { fee: 175n });
    expect(await liveDeposits(b)).toEqual([]);

    const ev = proc.delivery('checkout_completed', session.sessionId, { eventId: 'evt_done_1' });
    const first = await hook(ev);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ received: true, duplicate: false, outcome: 'credited' });
    const dep = await waitFor(async () => (await liveDeposits(b)).find((d) => d.status === 'credited'), 'the card deposit credited');
    expect(dep).toMatchObject({ source: 'card', external_id: cpayId, amount: 5000n, currency: 'USD' });
    // The processor's fee (1.75 USD) at the deposit's rate, rounded up, is the processing fee.
    expect(BigInt(dep.fee_processing)).toBe(divDecimal(175n, parseDecimal(dep.rate), USDC, 'USD', 'ceil'));
    const bal = await liveBalance(b);
    expect(BigInt(bal?.available ?? 0)).toBe(spendable(dep.net_amount));
    expect(BigInt(bal?.reserve ?? 0)).toBe(BigInt(dep.net_amount) - spendable(dep.net_amount));
    expect(await postings(b)).toEqual([
      { key: `deposit:${dep.id}:card_fee`, debit_account: 'external', credit_account: 'card_fees', amount: BigInt(dep.fee_processing) },
      { key: `deposit:${dep.id}:credit`, debit_account: 'external', credit_account: 'available', amount: BigInt(dep.net_amount) },
      { key: `deposit:${dep.id}:reserve`, debit_account: 'available', credit_account: 'reserve', amount: BigInt(dep.net_amount) - spendable(dep.net_amount) },
    ]);
    expect(await paymentOf(cpayId)).toMatchObject({ status: 'paid', fee: 175n, deposit_id: dep.id, payment_intent_id: `pi_${session.sessionId}` });

    // The same event again: 200, applies nothing.
    const dup = await hook(ev);
    expect(dup.status).toBe(200);
    expect(dup.body).toMatchObject({ received: true, duplicate: true });
    // Another delivery of a completion (a new event id) after paid: stale, nothing changes.
    const late = await hook(proc.delivery('checkout_completed', session.sessionId));
    expect(late.body).toMatchObject({ outcome: 'stale' });
    expect(await liveDeposits(b)).toHaveLength(1);
    expect(BigInt((await liveBalance(b))?.available ?? 0)).toBe(spendable(dep.net_amount));

    const got = await h.request('GET', `${B}/funding/card/${r.body.id}`, { key: b.live });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: r.body.id, status: 'completed', depositId: dep.id, checkoutUrl: session.url });
    expect(got.body.feeUsd).toMatch(/^1\.7[0-9]*$/);
    const events = await h.db.selectFrom('events').select('type').where('object_id', '=', dep.id).execute();
    expect(events.map((e) => e.type).sort()).toEqual(['deposit.credited', 'deposit.received']);
  });

  it('a refused signature answers 400 and changes nothing', async () => {
    const b = await h.business();
    const r = await topup(b);
    const [session] = [...proc.sessions.values()];
    proc.pay(session.sessionId);
    const bad = await hook(proc.delivery('checkout_completed', session.sessionId, { secret: 'not-the-secret' }));
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: { code: 'signature_invalid', message: expect.any(String) } });
    const stale = await hook(proc.delivery('checkout_completed', session.sessionId, { at: new Date(Date.now() - 600_000) }));
    expect(stale.status).toBe(400);
    expect(stale.body.error.code).toBe('signature_expired');
    expect(await h.db.selectFrom('card_processor_events').select('id').where('type', '=', 'checkout.session.completed').where('card_payment_id', '=', (await topupRow(r.body.id)).card_payment_id).execute()).toEqual([]);
    expect((await paymentOf((await topupRow(r.body.id)).card_payment_id as string)).status).toBe('open');
    expect(await liveDeposits(b)).toEqual([]);
    expect((await hook(proc.delivery('checkout_completed', session.sessionId), 'othercards')).status).toBe(404);
  });

  it('an asynchronous payment: processing after completion, credited on async success; an async failure fails the top-up', async () => {
    const b = await h.business();
    const ok = await topup(b, { amountUsd: '20.00' });
    const okSession = [...proc.sessions.values()][0];
    proc.pay(okSession.sessionId, { async: true });
    expect((await hook(proc.delivery('checkout_completed', okSession.sessionId))).body.outcome).toBe('processing');
    const okPay = (await topupRow(ok.body.id)).card_payment_id as string;
    expect((await paymentOf(okPay)).status).toBe('processing');
    expect((await h.request('GET', `${B}/funding/card/${ok.body.id}`, { key: b.live })).body.status).toBe('pending');
    expect(await liveDeposits(b)).toEqual([]);
    proc.settle(okSession.sessionId, true, 88n);
    expect((await hook(proc.delivery('checkout_async_succeeded', okSession.sessionId))).body.outcome).toBe('credited');
    await waitFor(async () => (await liveDeposits(b)).find((d) => d.status === 'credited' && d.external_id === okPay), 'async card deposit credited');

    const ko = await topup(b, { amountUsd: '30.00' });
    const koSession = [...proc.sessions.values()].find((s) => s.sessionId !== okSession.sessionId);
    if (!koSession) throw new Error('no second session');
    proc.pay(koSession.sessionId, { async: true });
    await hook(proc.delivery('checkout_completed', koSession.sessionId));
    proc.settle(koSession.sessionId, false);
    expect((await hook(proc.delivery('checkout_async_failed', koSession.sessionId))).body.outcome).toBe('failed');
    expect((await h.request('GET', `${B}/funding/card/${ko.body.id}`, { key: b.live })).body).toMatchObject({ status: 'failed', depositId: null, feeUsd: null });
    // A late success event after the failure changes nothing.
    expect((await hook(proc.delivery('checkout_async_succeeded', koSession.sessionId))).body.outcome).toBe('stale');
    expect(await liveDeposits(b)).toHaveLength(1);
  });

  it('polling credits a paid session whose event never came; an open session past its expiry becomes expired', async () => {
    const b = await h.business();
    const paid = await topup(b, { amountUsd: '10.00' });
    const s1 = [...proc.sessions.values()][0];
    proc.pay(s1.sessionId, { fee: 59n });
    // Not yet stale: the poller leaves it.
    await pollCardPayments(h.core);
    expect((await paymentOf((await topupRow(paid.body.id)).card_payment_id as string)).status).toBe('open');
    await pollCardPayments(later(31_000));
    const cpay = (await topupRow(paid.body.id)).card_payment_id as string;
    expect((await paymentOf(cpay)).status).toBe('paid');
    await waitFor(async () => (await liveDeposits(b)).find((d) => d.status === 'credited' && d.external_id === cpay), 'polled card deposit credited');

    const lapsed = await topup(b, { amountUsd: '12.00' });
    const s2 = [...proc.sessions.values()].find((s) => s.sessionId !== s1.sessionId);
    if (!s2) throw new Error('no second session');
    await pollCardPayments(later(25 * 3600_000));
    expect(proc.sessions.get(s2.sessionId)?.status).toBe('expired');
    expect((await h.request('GET', `${B}/funding/card/${lapsed.body.id}`, { key: b.live })).body.status).toBe('expired');
    // A completion event for the expired session changes nothing.
    expect((await hook(proc.delivery('checkout_completed', s2.sessionId))).body.outcome).toBe('stale');
    expect(await liveDeposits(b)).toHaveLength(1);
  });

  it('cancel expires the session; a processor refusing the create answers 502 processor_unavailable', async () => {
    const b = await h.business();
    const r = await topup(b);
    const [session] = [...proc.sessions.values()];
    const c = await h.request('POST', `${B}/funding/card/${r.body.id}/cancel`, { key: b.live });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ id: r.body.id, status: 'cancelled' });
    expect(proc.sessions.get(session.sessionId)?.status).toBe('expired');
    expect((await h.request('GET', `${B}/funding/card/${r.body.id}`, { key: (await h.business()).live })).status).toBe(404);

    proc.failNextCreate = new CardProcessorError('amount too small', false, 'amount_too_small');
    const failed = await topup(b, { amountUsd: '5.00' });
    expect(failed.status).toBe(502);
    expect(failed.body.error).toBe('processor_unavailable');
    const row = await h.db.selectFrom('card_payments').select('status').where('business_id', '=', b.id).where('amount', '=', 500n).executeTakeFirstOrThrow();
    expect(row.status).toBe('failed');
  });

  it('sandbox top-ups keep the built-in page and its balance; only the card fee posting is added', async () => {
    const b = await h.business();
    const r = await h.request('POST', '/sandbox/claim/v1/funding/card', { key: b.sandbox, body: { amountUsd: '100.00', successUrl: 'https://x.example/ok', cancelUrl: 'https://x.example/no' } });
    expect(r.status).toBe(201);
    expect(r.body.checkoutUrl).toBe(`${h.config.publicUrl}/checkout/${(await topupRow(r.body.id)).token}`);
    expect(proc.created).toBe(0);
    const pay = new FormData();
    pay.set('action', 'pay');
    expect((await h.request('POST', new URL(r.body.checkoutUrl).pathname, { form: pay })).status).toBe(303);
    const dep = await waitFor(
      async () => h.db.selectFrom('deposits').selectAll().where('business_id', '=', b.id).where('environment', '=', 'sandbox').where('status', '=', 'credited').executeTakeFirst(),
      'sandbox card deposit credited',
    );
    // 100.00 less 2.9 % + 0.30 (CARD_DEPOSIT_FEE): 96.80 available, as before.
    expect(dep.net_amount).toBe(96_800_000n);
    expect(dep.fee_processing).toBe(3_200_000n);
    const keys = await h.db.selectFrom('ledger_postings').select(['key', 'credit_account', 'amount']).where('business_id', '=', b.id).orderBy('key').execute();
    expect(keys).toEqual([
      { key: `deposit:${dep.id}:card_fee`, credit_account: 'card_fees', amount: 3_200_000n },
      { key: `deposit:${dep.id}:credit`, credit_account: 'available', amount: 96_800_000n },
    ]);
    expect((await h.request('GET', `/sandbox/claim/v1/funding/card/${r.body.id}`, { key: b.sandbox })).body).toMatchObject({ status: 'completed', feeUsd: '3.20' });
  });
});

describe('payment links and requests paid by card (live)', () => {
  const A = '/v1';
  const liveLink = async (b: Biz, methods = ['card', 'bank_transfer']) => (await h.request('POST', `${A}/payment-links`, { key: b.live, body: { name: 'Invoices', methods } })).body;

  it('card is ready in live with a processor, not in the sandbox nor without one', async () => {
    const b = await h.business();
    const link = await liveLink(b);
    expect(link.methods).toContainEqual({ type: 'card', ready: true });
    const sbx = (await h.request('POST', `${A.replace('/v1', '/sandbox/v1')}/payment-links`, { key: b.sandbox, body: { name: 'S', methods: ['card'] } })).body;
    expect(sbx.methods).toEqual([{ type: 'card', ready: false }]);
    setCardProcessorForTests(h.config, null);
    expect((await h.request('GET', `${A}/payment-links/${link.id}`, { key: b.live })).body.methods).toContainEqual({ type: 'card', ready: false });
    const page = await h.request('GET', new URL(link.url).pathname);
    expect(page.text).not.toContain('Pay by card');
    expect((await topup(b)).body.error).toBe('channel_unavailable');
    expect((await h.request('POST', '/hooks/card/testcards', { rawBody: '{}' })).status).toBe(404);
    const form = new FormData();
    form.set('amount', '20.00');
    expect((await h.request('POST', `${new URL(link.url).pathname}/card`, { form })).status).toBe(400);
  });

  it('a payment on a link credits the business; a request paid by card becomes paid (payment_request.paid)', async () => {
    const b = await h.business();
    const link = await liveLink(b);
    const path = new URL(link.url).pathname;
    const page = await h.request('GET', path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Pay by card');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https:");

    const bad = new FormData();
    bad.set('amount', '0.10');
    const refused = await h.request('POST', `${path}/card`, { form: bad });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('The smallest card payment is 1.00 USD');
    expect(proc.created).toBe(0);

    const form = new FormData();
    form.set('amount', '20.00');
    const go = await h.request('POST', `${path}/card`, { form });
    expect(go.status).toBe(303);
    const [s1] = [...proc.sessions.values()];
    expect(go.headers.get('location')).toBe(s1.url);
    expect(s1.input).toMatchObject({ amount: 2000n, currency: 'USD', successUrl: `${link.url}?card=paid`, cancelUrl: `${link.url}?card=canceled` });
    proc.pay(s1.sessionId, { fee: 88n });
    await hook(proc.delivery('checkout_completed', s1.sessionId));
    const dep = await waitFor(async () => (await liveDeposits(b)).find((d) => d.status === 'credited'), 'link card deposit credited');
    expect(dep).toMatchObject({ amount: 2000n, payment_request_id: null, match_result: 'not_applicable' });
    expect(BigInt((await liveBalance(b))?.available ?? 0)).toBe(spendable(dep.net_amount));
    expect((await h.db.selectFrom('card_payments').select(['purpose', 'payment_link_id']).where('id', '=', dep.external_id).executeTakeFirstOrThrow())).toEqual({ purpose: 'payment_link', payment_link_id: link.id });

    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    const req = await h.request('POST', `${A}/payment-requests`, { key: b.live, body: { payment_link_id: link.id, amount: '75.00', currency: 'USD', reference: 'INV-9', expires_at: expiresAt } });
    expect(req.status).toBe(201);
    const reqPath = new URL(req.body.url).pathname;
    const reqPage = await h.request('GET', reqPath);
    expect(reqPage.text).toMatch(/id="card-amount">75\.00 USD/);
    const go2 = await h.request('POST', `${reqPath}/card`, { form: new FormData() });
    expect(go2.status).toBe(303);
    const s2 = [...proc.sessions.values()].find((s) => s.sessionId !== s1.sessionId);
    if (!s2) throw new Error('no request session');
    expect(s2.input).toMatchObject({ amount: 7500n, currency: 'USD' });
    // The session ends no later than the request (at least the processor's 30 minutes).
    expect(s2.input.expiresAt.getTime()).toBeLessThanOrEqual(new Date(expiresAt).getTime());
    proc.pay(s2.sessionId);
    await hook(proc.delivery('checkout_completed', s2.sessionId));
    const paid = await waitFor(async () => {
      const r = await h.request('GET', `${A}/payment-requests/${req.body.id}`, { key: b.live });
      return r.body.status === 'paid' ? r.body : null;
    }, 'the request paid by card');
    const reqDep = (await liveDeposits(b)).find((d) => d.amount === 7500n);
    expect(paid.deposit_id).toBe(reqDep?.id);
    expect(reqDep).toMatchObject({ match_result: 'matched', payment_request_id: req.body.id });
    const evs = await h.db.selectFrom('events').select('type').where('object_id', '=', req.body.id).execute();
    expect(evs.map((e) => e.type)).toContain('payment_request.paid');
    // Paid: the page no longer offers card.
    const after = await h.request('GET', reqPath);
    expect(after.text).not.toContain('Pay by card');
    const again = await h.request('POST', `${reqPath}/card`, { form: new FormData() });
    expect(again.status).toBe(409);
    expect(again.text).toContain('This request has been paid');
    expect(proc.created).toBe(2);
  });

  it('the page in headless Chromium: the card form posts under the page CSP and lands on the processor checkout', async () => {
    const b = await h.business();
    const link = await liveLink(b, ['card']);
    const server = await serveHarness(h);
    const { browser, close } = await launchBrowser();
    try {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
      });
      await page.setRequestInterception(true);
      page.on('request', (req) => {
        if (req.url().startsWith('https://checkout.example/')) void req.respond({ status: 200, contentType: 'text/html', body: '<h1 id="checkout">Checkout</h1>' });
        else void req.continue();
      });
      const res = await page.goto(`${server.origin}${new URL(link.url).pathname}`, { waitUntil: 'load' });
      expect(res?.status()).toBe(200);
      expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
      await page.type('#card-amount', '42.50');
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#card-pay')]);
      expect(page.url()).toMatch(/^https:\/\/checkout\.example\/pay\/cs_test_/);
      expect(await page.$eval('#checkout', (e) => e.textContent)).toBe('Checkout');
      expect(violations).toEqual([]);
      const [s] = [...proc.sessions.values()];
      expect(s.input.amount).toBe(4250n);

      // Back from the checkout: the notice shows.
      await page.goto(`${server.origin}${new URL(link.url).pathname}?card=paid`, { waitUntil: 'load' });
      expect(await page.$eval('#card-notice', (e) => e.textContent)).toContain('being confirmed');
    } finally {
      await close();
      await server.close();
    }
  });
});
