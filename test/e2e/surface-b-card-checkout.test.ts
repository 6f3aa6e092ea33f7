/**
 * Surface B `POST /funding/card` and its sandbox checkout page in real headless Chromium: the payer
 * completes the payment and lands on successUrl, the balance is credited by a card deposit; a
 * cancelled checkout lands on cancelUrl and credits nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, serveHarness } from '../helpers/browser';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
let biz: { id: string; sandbox: string; live: string };
let web: { origin: string; close: () => Promise<void> };
let chromium: Awaited<ReturnType<typeof launchBrowser>>;
const B = '/sandbox/claim/v1';

beforeAll(async () => {
  h = await createHarness();
  biz = await h.business();
  web = await serveHarness(h);
  chromium = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await chromium?.close();
  await web?.close();
  await h?.close();
});

const balance = async () => (await h.request('GET', '/sandbox/v1/balance', { key: biz.sandbox })).body.available as string;

async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('card top-up checkout (headless Chromium)', () => {
  it('pay: lands on successUrl, a card deposit credits the balance', async () => {
    const successUrl = `${web.origin}/health?paid=1`;
    const r = await h.request('POST', `${B}/funding/card`, { key: biz.sandbox, body: { amountUsd: '50.00', successUrl, cancelUrl: `${web.origin}/health?cancelled=1` } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: expect.stringMatching(/^ctu_/), amountUsd: '50.00', status: 'pending', depositId: null });
    const page = await chromium.browser.newPage();
    await page.goto(`${web.origin}${new URL(r.body.checkoutUrl).pathname}`);
    expect(await page.$eval('h1', (e) => e.textContent)).toBe('Top up your balance');
    await Promise.all([page.waitForNavigation(), page.click('#pay')]);
    expect(page.url()).toBe(successUrl);
    await page.close();
    const deposits = await waitFor(async () => {
      const l = await h.request('GET', `${B}/funding/deposits`, { key: biz.sandbox });
      return l.body.data.find((d: { source: string; status: string }) => d.source === 'card' && d.status === 'credited');
    }, 'credited card deposit');
    expect(deposits).toMatchObject({ amount: '50.00', currency: 'USD' });
    expect(Number(await balance())).toBeGreaterThan(0);
  });

  it('cancel: lands on cancelUrl and credits nothing', async () => {
    const before = await balance();
    const cancelUrl = `${web.origin}/health?cancelled=2`;
    const r = await h.request('POST', `${B}/funding/card`, { key: biz.sandbox, body: { amountUsd: '20.00', successUrl: `${web.origin}/health?ok`, cancelUrl } });
    const page = await chromium.browser.newPage();
    await page.goto(`${web.origin}${new URL(r.body.checkoutUrl).pathname}`);
    await Promise.all([page.waitForNavigation(), page.click('#cancel')]);
    expect(page.url()).toBe(cancelUrl);
    await page.close();
    expect(await balance()).toBe(before);
  });

  it('errors and security: bad URLs and amounts refused; live has no card processor; no key is 401', async () => {
    const bad = await h.request('POST', `${B}/funding/card`, { key: biz.sandbox, body: { amountUsd: '5.00', successUrl: 'javascript:alert(1)', cancelUrl: 'https://x.example' } });
    expect([bad.status, bad.body.details.param]).toEqual([400, 'successUrl']);
    const small = await h.request('POST', `${B}/funding/card`, { key: biz.sandbox, body: { amountUsd: '0.50', successUrl: 'https://x.example', cancelUrl: 'https://x.example' } });
    expect([small.status, small.body.error]).toEqual([422, 'amount_below_minimum']);
    const live = await h.request('POST', '/claim/v1/funding/card', { key: biz.live, body: { amountUsd: '5.00', successUrl: 'https://x.example', cancelUrl: 'https://x.example' } });
    expect([live.status, live.body.error]).toEqual([400, 'channel_unavailable']);
    expect((await h.request('POST', `${B}/funding/card`, { body: { amountUsd: '5.00' } })).status).toBe(401);
    expect((await h.request('GET', '/checkout/nope')).status).toBe(404);
  });
});
