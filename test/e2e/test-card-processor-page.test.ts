/**
 * The test card processor's checkout page (tools/test-card-processor/, docs/getting-paid.md "Test
 * card processor") in real headless Chromium, for a session made by the Stripe module over the
 * official client: a declined test card (4000000000000002) is shown on the page and leaves the
 * session open; 4242424242424242 pays and lands on the success URL. Needs the stripe-mock binary.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CardProcessor } from '../../src/card-processors/processor';
import { STRIPE_CARD_PROCESSOR_MODULE } from '../../src/card-processors/stripe/module';
import { STRIPE_SETTINGS } from '../../src/card-processors/stripe/settings';
import { startTestCardProcessor, TEST_CARDS, type TestCardProcessor } from '../../tools/test-card-processor/processor';
import { launchBrowser } from '../helpers/browser';

let tp: TestCardProcessor;
let stripe: CardProcessor;
let shop: Server;
let shopUrl = '';
let chromium: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  tp = await startTestCardProcessor();
  tp.setWebhookTarget(async () => 200);
  stripe = STRIPE_CARD_PROCESSOR_MODULE.connect(z.object(STRIPE_SETTINGS).parse(tp.env), { timeoutMs: 10_000 })!;
  // The merchant's pages the payer comes back to.
  shop = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>shop</title><h1>${req.url?.startsWith('/done') ? 'Thank you' : 'Cancelled'}</h1>`);
  });
  await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  chromium = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await chromium?.close();
  await new Promise((r) => shop?.close(r));
  await tp?.close();
});

describe('test card processor checkout page (headless Chromium)', () => {
  it('shows the decline of 4000000000000002 and keeps the session open; 4242424242424242 pays and lands on the success URL', async () => {
    const s = await stripe.createCheckout({
      reference: 'cpay_page1',
      metadata: { purpose: 'topup' },
      amount: 2550n,
      currency: 'USD',
      description: 'Balance top-up',
      successUrl: `${shopUrl}/done?session={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${shopUrl}/cancelled`,
      expiresAt: new Date(Date.now() + 3_600_000),
      idempotencyKey: 'cpay_page1:1',
    });
    const page = await chromium.browser.newPage();
    await page.goto(s.url!);
    expect(await page.$eval('#amount', (e) => e.textContent)).toBe('25.50 USD');
    expect(await page.$eval('#description', (e) => e.textContent)).toBe('Balance top-up');
    expect(await page.$eval('#cancel', (e) => e.getAttribute('href'))).toBe(`${shopUrl}/cancelled`);

    await page.type('#card', '4000 0000 0000 0002');
    await Promise.all([page.waitForNavigation(), page.click('#pay')]);
    expect(await page.$eval('#error', (e) => [e.textContent, e.getAttribute('data-code')])).toEqual(['Your card was declined.', 'card_declined']);
    expect(await stripe.retrieveCheckout(s.sessionId)).toMatchObject({ status: 'open', paymentStatus: 'unpaid' });

    await page.type('#card', TEST_CARDS.succeeds);
    await Promise.all([page.waitForNavigation(), page.click('#pay')]);
    expect(page.url()).toBe(`${shopUrl}/done?session=${s.sessionId}`);
    expect(await page.$eval('h1', (e) => e.textContent)).toBe('Thank you');
    await page.close();
    const paid = await stripe.retrieveCheckout(s.sessionId);
    expect(paid).toMatchObject({ status: 'complete', paymentStatus: 'paid', amount: 2550n, fee: 104n });
    await tp.idle();
    expect(tp.events().map((e) => [e.type, e.objectId, e.delivered])).toEqual([['checkout.session.completed', s.sessionId, true]]);
  });
});
