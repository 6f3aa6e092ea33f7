/**
 * The claim page's identity fields in real headless Chromium (docs/screening.md "Identity at claim
 * time"): a Surface B claim to a Mexican phone shows the account and identity fields with their
 * labels and autofill hints; an invalid CURP comes back with the message next to the field and the
 * values kept, storing nothing; a valid one is taken.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, serveHarness } from '../helpers/browser';
import { createHarness, type Harness } from '../helpers/harness';
import { waitFor } from '../helpers/wait-for';

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
  expect((await h.request('POST', `${B}/sandbox/fund`, { key: biz.sandbox, body: { amountUsd: '100.00' } })).status).toBe(200);
}, 180_000);
afterAll(async () => {
  await chromium?.close();
  await web?.close();
  await h?.close();
});

describe('claim page identity fields (headless Chromium)', () => {
  it('asks the identity of a Mexican claimant, refuses an invalid CURP next to the field, takes a valid one', async () => {
    const d = await h.request('POST', `${B}/disbursements`, { key: biz.sandbox, body: { recipientPhone: '+525512345678', amountUsd: '20.00' } });
    expect(d.status).toBe(201);
    const claimUrl = await waitFor(async () => (await h.request('GET', `${B}/disbursements/${d.body.id}`, { key: biz.sandbox })).body.claimUrl as string | null, 'claim url');
    const page = await chromium.browser.newPage();
    await page.goto(`${web.origin}${new URL(claimUrl).pathname}`);
    await Promise.all([page.waitForNavigation(), page.click('#start')]);

    // The bank transfer is a form with the account and the identity fields, each labelled.
    const labels = await page.$$eval('#route-spei_mxn label', (ls) => ls.map((l) => [l.getAttribute('for'), l.textContent]));
    expect(labels).toEqual(
      expect.arrayContaining([
        ['spei_mxn-full_name', 'Your full name as on your identity document'],
        ['spei_mxn-date_of_birth', 'Date of birth, YYYY-MM-DD'],
        ['spei_mxn-national_id', 'CURP, 18 characters (check digit validated)'],
      ]),
    );
    expect(await page.$eval('#spei_mxn-full_name', (e) => e.getAttribute('autocomplete'))).toBe('name');
    expect(await page.$eval('#spei_mxn-date_of_birth', (e) => [e.getAttribute('type'), e.getAttribute('autocomplete')])).toEqual(['date', 'bday']);
    expect(await page.$eval('#spei_mxn-identity legend', (e) => e.textContent)).toBe('Your identity');

    await page.type('#spei_mxn-holder_name', 'MARIA LOPEZ GARCIA');
    await page.type('#spei_mxn-clabe', '032180000118359719');
    await page.select('#spei_mxn-recipient_kind', 'individual');
    await page.type('#spei_mxn-full_name', 'María López García');
    await page.$eval('#spei_mxn-date_of_birth', (e) => ((e as unknown as { value: string }).value = '1990-05-10'));
    await page.type('#spei_mxn-national_id', 'LOGM900510MDFPRR08');
    await Promise.all([page.waitForNavigation(), page.click('#route-spei_mxn button')]);
    expect(await page.$eval('#spei_mxn-national_id-error', (e) => e.textContent)).toBe(
      'This CURP is not valid: check it against your document (its check digit does not match).',
    );
    expect(await page.$eval('#spei_mxn-national_id', (e) => e.getAttribute('aria-describedby'))).toBe('spei_mxn-national_id-error');
    expect(await page.$eval('#spei_mxn-full_name', (e) => (e as unknown as { value: string }).value)).toBe('María López García');
    expect(await h.db.selectFrom('claimant_identities').select('payout_id').where('payout_id', '=', d.body.id).execute()).toHaveLength(0);
    expect((await h.request('GET', `${B}/disbursements/${d.body.id}`, { key: biz.sandbox })).body.status).toBe('claimed');

    await page.$eval('#spei_mxn-national_id', (e) => ((e as unknown as { value: string }).value = ''));
    await page.type('#spei_mxn-national_id', 'LOGM900510MDFPRR07');
    await Promise.all([page.waitForNavigation(), page.click('#route-spei_mxn button')]);
    expect(await page.$$('form')).toHaveLength(0);
    await page.close();
    const row = await h.db.selectFrom('claimant_identities').select(['name_match', 'national_id']).where('payout_id', '=', d.body.id).executeTakeFirstOrThrow();
    expect(row.name_match).toBe(true);
    expect(row.national_id).toMatch(/^enc:v1:/);
  }, 120_000);
});
