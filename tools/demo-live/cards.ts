/**
 * The card part of `npm run demo:live` (docs/getting-paid.md "Card payments", "Refunds",
 * "Disputes", "Rolling reserve"): the service's live card processor is the test card processor
 * (tools/test-card-processor: the official `stripe` client's requests checked by stripe-mock), its
 * signed events sent to the service's `/hooks/card/stripe`. A live Surface B card top-up paid in
 * headless Chromium on the processor's checkout page (a declined card first), a payment request
 * paid by card from its payment page, a refund, a dispute lost and one won, with the balance after
 * each. Every API call and event lands in `cards/` beside `webhook-signing-secret.txt`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startTestCardProcessor, TEST_CARDS, type TestCardProcessor } from '../test-card-processor/processor';
import { launchBrowser } from '../../test/helpers/browser';
import type { DemoContext } from './partner';

/** The demo's card processor, started before the service (its settings go into the service's environment). */
export interface DemoCards {
  processor: TestCardProcessor;
  env: Record<string, string>;
  dir: string;
  stop(): Promise<void>;
}

/** Starts the test card processor logging into `<dir>/cards`. */
export async function startDemoCards(dir: string): Promise<DemoCards> {
  const logDir = join(dir, 'cards');
  const processor = await startTestCardProcessor({ logDir, stepMs: 200 });
  return { processor, env: { ...processor.env, CARD_POLL_AFTER: 'PT5S' }, dir: logDir, stop: () => processor.close() };
}

/** A page for the payer to come back to (the business's own site in real life). */
async function shop(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>shop</title><h1>${req.url?.startsWith('/thanks') ? 'Thank you' : 'Payment cancelled'}</h1>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

/** See the module comment. Throws when a step does not end as described. */
export async function cardsPart(ctx: DemoContext, cards: DemoCards): Promise<void> {
  const { call, live, until, base } = ctx;
  cards.processor.setWebhookTarget(`${base}/hooks/card/stripe`);
  const balance = async (label: string) => {
    const b = await call('GET', '/v1/balance', live);
    console.log(`  balance after ${label}: available ${b.available}, reserve ${b.reserve}, held ${b.held} USDC`);
    return b;
  };
  const completed = (id: string) =>
    until(async () => {
      const t = await call('GET', `/claim/v1/funding/card/${id}`, live);
      if (t.status !== 'completed') return null;
      const d = await call('GET', '/claim/v1/funding/deposits?limit=20', live);
      return d.data.some((x: any) => x.id === t.depositId && x.status === 'credited') ? t : null;
    }, 60_000);
  console.log('\ncard money (live, the test card processor standing in for Stripe; Stripe\'s test cards)');
  const site = await shop();
  const chromium = await launchBrowser();
  try {
    // 1. A Surface B top-up paid in headless Chromium: a declined card, then 4242 4242 4242 4242.
    const topup = await call('POST', '/claim/v1/funding/card', live, { amountUsd: '100.00', successUrl: `${site.url}/thanks`, cancelUrl: `${site.url}/cancelled` });
    console.log(`card top-up ${topup.id}: ${topup.status}, checkout ${topup.checkoutUrl}`);
    const page = await chromium.browser.newPage();
    await page.goto(topup.checkoutUrl);
    await page.type('#card', TEST_CARDS.declined);
    await Promise.all([page.waitForNavigation(), page.click('#pay')]);
    console.log(`  in Chromium, card ${TEST_CARDS.declined}: "${await page.$eval('#error', (e) => e.textContent)}"`);
    await page.type('#card', TEST_CARDS.succeeds);
    await Promise.all([page.waitForNavigation(), page.click('#pay')]);
    console.log(`  in Chromium, card ${TEST_CARDS.succeeds}: back on ${page.url()} ("${await page.$eval('h1', (e) => e.textContent)}")`);
    await page.close();
    const done = await completed(topup.id);
    if (!done) throw new Error(`card top-up ${topup.id} was not credited`);
    console.log(`  ${topup.id}: ${done.status}, deposit ${done.depositId}, processor fee ${done.feeUsd} USDC`);
    await balance('the top-up (10 % of it in the rolling reserve)');

    // 2. A payment request paid by card from its payment page.
    const link = await call('POST', '/v1/payment-links', live, { name: 'Invoices (card)', methods: ['card'] });
    const request = await call('POST', '/v1/payment-requests', live, {
      payment_link_id: link.id,
      amount: '40.00',
      currency: 'USD',
      reference: 'INV-CARD-1',
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const form = await fetch(`${base}${new URL(request.url).pathname}/card`, { method: 'POST', body: new FormData(), redirect: 'manual' });
    const sessionUrl = form.headers.get('location');
    if (form.status !== 303 || !sessionUrl) throw new Error(`the request's card form answered ${form.status}`);
    const paidReq = await cards.processor.pay(new URL(sessionUrl).pathname.split('/').pop()!, { card: TEST_CARDS.succeeds });
    const reqDone = await until(async () => {
      const r = await call('GET', `/v1/payment-requests/${request.id}`, live);
      return r.status === 'paid' ? r : null;
    }, 60_000);
    if (!reqDone) throw new Error(`payment request ${request.id} was not paid`);
    console.log(`payment request ${request.id} (40.00 USD) paid by card (${paidReq.paymentIntentId}): ${reqDone.status}, deposit ${reqDone.deposit_id}`);
    await balance('the payment request');

    // 3. A refund of 20.00 of the top-up: the balance is debited first.
    const refund = await call('POST', `/claim/v1/funding/card/${topup.id}/refunds`, live, { amountUsd: '20.00' });
    const refunded = await until(async () => {
      const r = await call('GET', `/claim/v1/funding/card/${topup.id}/refunds`, live);
      return r.data.find((x: any) => x.id === refund.id && x.status !== 'pending') ?? null;
    }, 60_000);
    console.log(`refund ${refund.id} of 20.00 USD: ${refunded?.status ?? refund.status}, ${refund.debitedUsd} USDC debited`);
    await balance('the refund');

    // 4. Disputes: the top-up's charge lost, then a second top-up's won.
    const topupIntent = cards.processor.sessions().find((s) => s.metadata.card_topup_id === topup.id)?.paymentIntentId;
    if (!topupIntent) throw new Error('no payment intent for the top-up');
    await cards.processor.dispute(topupIntent, { outcome: 'lost', reason: 'fraudulent' });
    await cards.processor.idle();
    await new Promise((r) => setTimeout(r, 1000));
    console.log('dispute of the 100.00 USD top-up lost (100.00 and the 15.00 dispute fee withdrawn):');
    await balance('the lost dispute (taken from available, then the reserve)');
    const second = await call('POST', '/claim/v1/funding/card', live, { amountUsd: '50.00', successUrl: `${site.url}/thanks`, cancelUrl: `${site.url}/cancelled` });
    const paid2 = await cards.processor.pay(new URL(second.checkoutUrl).pathname.split('/').pop()!, { card: TEST_CARDS.succeeds });
    if (!(await completed(second.id))) throw new Error(`card top-up ${second.id} was not credited`);
    await balance(`a second top-up ${second.id} of 50.00`);
    await cards.processor.dispute(paid2.paymentIntentId!, { outcome: 'won' });
    await cards.processor.idle();
    await new Promise((r) => setTimeout(r, 1000));
    console.log('dispute of the 50.00 USD top-up won: 65.00 withdrawn, then all of it given back (the balance is where it was):');
    await balance('the won dispute');
    const events = await call('GET', '/v1/events?limit=50', live);
    const cardEvents = events.data.filter((e: any) => e.type.startsWith('deposit.') || e.type === 'payment_request.paid').map((e: any) => e.type);
    console.log(`events: ${[...new Set(cardEvents)].join(', ')}`);
    console.log(`card processor files (requests, signed events): ${cards.dir} (signing secret: ${join(cards.dir, 'webhook-signing-secret.txt')})`);
  } finally {
    await chromium.close();
    await site.close();
  }
}
