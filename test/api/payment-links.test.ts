import { isValidIBAN } from 'ibantools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidClabe } from '../../src/domain/recipients';
import { launchBrowser, serveHarness } from '../helpers/browser';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ worker: false });
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';
type Biz = { id: string; sandbox: string; live: string };
const createLink = (b: Biz, body: unknown) => h.request('POST', `${A}/payment-links`, { key: b.sandbox, body });

describe('payment links (happy)', () => {
  it('POST 201 with url and methods; bank_transfer becomes ready once the business has an active virtual account', async () => {
    const b = await h.business();
    const r = await createLink(b, { name: 'Consulting', methods: ['bank_transfer', 'card', 'crypto', 'card'] });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      object: 'payment_link',
      name: 'Consulting',
      published: true,
      methods: [
        { type: 'bank_transfer', ready: false },
        { type: 'card', ready: false },
        { type: 'crypto', ready: false },
      ],
    });
    expect(r.body.id).toMatch(/^plink_/);
    expect(r.body.url).toMatch(new RegExp(`^${h.config.publicUrl}/pay/[\\w-]{20,}$`));
    expect((await h.request('POST', `${A}/virtual-accounts`, { key: b.sandbox, body: { currency: 'EUR' } })).status).toBe(201);
    const got = await h.request('GET', `${A}/payment-links/${r.body.id}`, { key: b.sandbox });
    expect(got.status).toBe(200);
    expect(got.body.methods[0]).toEqual({ type: 'bank_transfer', ready: true });
  });

  it('GET lists newest first with cursor; PATCH changes methods and publication', async () => {
    const b = await h.business();
    const l1 = (await createLink(b, { name: 'One', methods: ['bank_transfer'] })).body;
    const l2 = (await createLink(b, { name: 'Two', methods: ['card'], published: false })).body;
    const p1 = await h.request('GET', `${A}/payment-links?limit=1`, { key: b.sandbox });
    expect(p1.body.data.map((l: any) => l.id)).toEqual([l2.id]);
    const p2 = await h.request('GET', `${A}/payment-links?limit=1&cursor=${p1.body.next_cursor}`, { key: b.sandbox });
    expect(p2.body.data.map((l: any) => l.id)).toEqual([l1.id]);
    expect(p2.body.next_cursor).toBeNull();
    const patched = await h.request('PATCH', `${A}/payment-links/${l2.id}`, { key: b.sandbox, body: { methods: ['crypto', 'bank_transfer'], published: true } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ published: true, methods: [{ type: 'crypto' }, { type: 'bank_transfer' }], name: 'Two' });
    const renamed = await h.request('PATCH', `${A}/payment-links/${l2.id}`, { key: b.sandbox, body: { name: 'Two bis' } });
    expect(renamed.body).toMatchObject({ name: 'Two bis', published: true });
  });
});

describe('payment links (errors)', () => {
  it('400 validation_error naming the param; nothing created or changed', async () => {
    const b = await h.business();
    const cases: [unknown, string][] = [
      [{ methods: ['card'] }, 'name'],
      [{ name: ' ', methods: ['card'] }, 'name'],
      [{ name: 'x', methods: [] }, 'methods'],
      [{ name: 'x', methods: ['cash'] }, 'methods.0'],
      [{ name: 'x', methods: ['card'], published: 'yes' }, 'published'],
    ];
    for (const [body, param] of cases) {
      const r = await createLink(b, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', param });
    }
    expect((await h.request('GET', `${A}/payment-links`, { key: b.sandbox })).body.data).toEqual([]);
    const l = (await createLink(b, { name: 'L', methods: ['card'] })).body;
    const bad = await h.request('PATCH', `${A}/payment-links/${l.id}`, { key: b.sandbox, body: { methods: ['wire'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('methods.0');
    const empty = await h.request('PATCH', `${A}/payment-links/${l.id}`, { key: b.sandbox, body: {} });
    expect(empty.status).toBe(400);
    expect((await h.request('GET', `${A}/payment-links/${l.id}`, { key: b.sandbox })).body.methods).toEqual([{ type: 'card', ready: false }]);
    expect((await h.request('GET', `${A}/payment-links/plink_nope`, { key: b.sandbox })).status).toBe(404);
  });
});

describe('payment links (security)', () => {
  it("another business's link is 404 for GET and PATCH, and never listed", async () => {
    const a = await h.business();
    const other = await h.business();
    const l = (await createLink(a, { name: 'Mine', methods: ['bank_transfer'] })).body;
    expect((await h.request('GET', `${A}/payment-links/${l.id}`, { key: other.sandbox })).status).toBe(404);
    const p = await h.request('PATCH', `${A}/payment-links/${l.id}`, { key: other.sandbox, body: { published: false } });
    expect(p.status).toBe(404);
    expect((await h.request('GET', `${A}/payment-links/${l.id}`, { key: a.sandbox })).body.published).toBe(true);
    expect((await h.request('GET', `${A}/payment-links`, { key: other.sandbox })).body.data).toEqual([]);
  });

  it('401 without a key and with a key of the other environment', async () => {
    const b = await h.business();
    expect((await h.request('GET', `${A}/payment-links`)).status).toBe(401);
    expect((await h.request('POST', `${A}/payment-links`, { key: b.live, body: { name: 'x', methods: ['card'] } })).status).toBe(401);
    expect((await h.request('GET', '/v1/payment-links', { key: b.sandbox })).status).toBe(401);
  });
});

describe('the public payment page, in headless Chromium', () => {
  it('shows the business, the link name and whole account details under a strict CSP; unpublished is a 404', async () => {
    const b = await h.business();
    await h.db.updateTable('businesses').set({ name: 'Acme <Coop>' }).where('id', '=', b.id).execute();
    const eur = (await h.request('POST', `${A}/virtual-accounts`, { key: b.sandbox, body: { currency: 'EUR' } })).body;
    const mxn = (await h.request('POST', `${A}/virtual-accounts`, { key: b.sandbox, body: { currency: 'MXN' } })).body;
    const whole = Object.fromEntries(
      (await h.db.selectFrom('virtual_accounts').select(['id', 'details']).where('business_id', '=', b.id).execute()).map((r) => [r.id, r.details]),
    );
    const link = (await createLink(b, { name: 'Invoices 2026', methods: ['bank_transfer', 'card'] })).body;
    const req = await h.request('POST', `${A}/payment-requests`, {
      key: b.sandbox,
      body: { payment_link_id: link.id, amount: '250.00', currency: 'EUR', reference: 'INV-0042', expires_at: new Date(Date.now() + 3600_000).toISOString() },
    });
    expect(req.status).toBe(201);

    const server = await serveHarness(h);
    const { browser, close } = await launchBrowser();
    try {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
      });
      const linkPath = new URL(link.url).pathname;
      const res = await page.goto(`${server.origin}${linkPath}`, { waitUntil: 'load' });
      expect(res?.status()).toBe(200);
      const csp = res?.headers()['content-security-policy'] ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'none'");
      expect(csp).toMatch(/style-src 'nonce-[^']+'/);
      expect(await page.$eval('#business', (e) => e.textContent)).toBe('Acme <Coop>');
      expect(await page.$eval('#link-name', (e) => e.textContent)).toBe('Invoices 2026');
      const ibanShown = await page.$eval(`.account[data-currency="EUR"] [data-field="iban"]`, (e) => e.textContent ?? '');
      expect(ibanShown.replace(/ /g, '')).toBe(whole[eur.id].iban);
      expect(isValidIBAN(ibanShown.replace(/ /g, ''))).toBe(true);
      const clabe = await page.$eval(`.account[data-currency="MXN"] [data-field="clabe"]`, (e) => e.textContent ?? '');
      expect(clabe).toBe(whole[mxn.id].clabe);
      expect(isValidClabe(clabe)).toBe(true);
      const text = await page.$eval('body', (e) => (e as unknown as { innerText: string }).innerText);
      expect(text).toContain('Quote the reference on your invoice');
      expect(text).not.toMatch(/card/i); // not ready: not offered
      // The nonce'd style applied (CSP allowed it): the body font is set by the page's stylesheet.
      expect(await page.$eval('body', (e) => (globalThis as any).getComputedStyle(e).maxWidth)).not.toBe('none');

      const reqRes = await page.goto(`${server.origin}${new URL(req.body.url).pathname}`, { waitUntil: 'load' });
      expect(reqRes?.status()).toBe(200);
      expect(await page.$eval('#amount', (e) => e.textContent)).toBe('250.00 EUR');
      expect(await page.$eval('#reference', (e) => e.textContent)).toBe('INV-0042');
      expect(await page.$$eval('.account', (els) => els.map((e) => e.getAttribute('data-currency')))).toEqual(['EUR']);
      expect(violations).toEqual([]);

      expect((await h.request('PATCH', `${A}/payment-links/${link.id}`, { key: b.sandbox, body: { published: false } })).status).toBe(200);
      const gone = await page.goto(`${server.origin}${linkPath}`, { waitUntil: 'load' });
      expect(gone?.status()).toBe(404);
      expect(await page.$eval('body', (e) => (e as unknown as { innerText: string }).innerText)).toContain('not found');
      expect(await page.$eval('body', (e) => (e as unknown as { innerText: string }).innerText)).not.toContain(whole[eur.id].iban.slice(-4));
      const goneReq = await page.goto(`${server.origin}${new URL(req.body.url).pathname}`, { waitUntil: 'load' });
      expect(goneReq?.status()).toBe(404);
      const unknown = await page.goto(`${server.origin}/pay/nope`, { waitUntil: 'load' });
      expect(unknown?.status()).toBe(404);
    } finally {
      await close();
      await server.close();
    }
  }, 60_000);
});
