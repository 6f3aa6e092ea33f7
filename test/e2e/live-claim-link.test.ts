/**
 * A live claim-link payout end to end (docs/notifications.md "When claim_link is live"): accepted
 * in live through Surface C, its recipient told by e-mail through the SMTP double, the link opened
 * in headless Chromium, claimed to a US bank account on the claim page, and paid out on the live
 * ACH rail in a NACHA file over SFTP to the test bank (settled by silence), with the ledger and
 * events of a live direct payout. Also: when claim_link is and is not available in live, with the
 * error naming what is missing, on Surfaces A, B and C and in the channel listing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../src/core/ledger';
import { closeLiveProviders } from '../../src/core/notifications';
import { startRailPollers } from '../../src/core/rails/lifecycle';
import { refreshRailHealth } from '../../src/core/rails/rail-adapters';
import { parseNachaFile } from '../../src/rails/nacha';
import { startNotifyDoubles, type NotifyDoubles } from '../../tools/notify-doubles';
import { startTestBank, type TestBank } from '../../tools/test-bank/bank';
import { skipWithoutTestSftpServer } from '../../tools/test-bank/sshd';
import { launchBrowser } from '../helpers/browser';
import { createHarness, type Harness } from '../helpers/harness';

/** Skipped (with the reason) on a machine without OpenSSH, unless REQUIRE_SSHD=1 (CI): tools/test-bank/sshd.ts. */
const SKIP = skipWithoutTestSftpServer('test/e2e/live-claim-link.test.ts');

let h: Harness;
let bare: Harness;
let smtpOnly: Harness;
let bank: TestBank;
let doubles: NotifyDoubles;
let server: Server;
let origin: string;
let dir: string;
let biz: { id: string; sandbox: string; live: string };

const onlyAch = (env: Record<string, string>) => Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('RAIL_ACH_')));

async function waitFor<T>(fn: () => Promise<T | undefined | false | null>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function fundLive(hh: Harness, businessId: string): Promise<void> {
  await hh.db.transaction().execute((tx) => post(tx, { businessId, environment: 'live', key: 'test:fund-live', from: 'external', to: 'available', amount: 1_000_000_000n }));
}

beforeAll(async () => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), 'live-claim-'));
  // One loopback server for the app: the claim links (PUBLIC_URL) and the providers' callbacks.
  const target: { app?: Harness['app'] } = {};
  server = createServer(getRequestListener((req) => (target.app ? target.app.fetch(req) : new Response('starting', { status: 503 }))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  bank = await startTestBank({ dir: join(dir, 'bank'), pollMs: 100 });
  doubles = await startNotifyDoubles({ dir: join(dir, 'notify'), hooksBaseUrl: origin, callbackDelayMs: 30 });
  const ach = { ...onlyAch(bank.env), RAIL_ACH_BATCH_WINDOW: 'PT1S', RAIL_ACH_POLL_INTERVAL: 'PT0.3S', RAIL_ACH_SETTLE_AFTER: 'PT3S', RAIL_ACH_RETURN_WINDOW: 'PT5S' };
  h = await createHarness({ env: { ...doubles.env, ...ach, PUBLIC_URL: origin } });
  target.app = h.app;
  await refreshRailHealth(h.core);
  await startRailPollers(h.core);
  biz = await h.business();
  await h.db.updateTable('businesses').set({ name: 'Acme Ltd' }).where('id', '=', biz.id).execute();
  await fundLive(h, biz.id);
  // No provider and no rail; and SMTP with the ACH rail but no SMS or WhatsApp provider.
  bare = await createHarness({ worker: false });
  const smtp = Object.fromEntries(Object.entries(doubles.env).filter(([k]) => k.startsWith('NOTIFY_')));
  smtpOnly = await createHarness({ worker: false, env: { ...smtp, ...onlyAch(bank.env) } });
}, 180_000);

afterAll(async () => {
  for (const x of [h, bare, smtpOnly]) {
    if (x) closeLiveProviders(x.core);
    await x?.close();
  }
  await doubles?.stop();
  await bank?.stop();
  await new Promise((r) => server?.close(r));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(SKIP)('when claim_link is live', () => {
  it('without a live rail to claim to or a provider it stays channel_unavailable, naming what is missing, on every surface', async () => {
    const b = await bare.business();
    await fundLive(bare, b.id);
    const listed = await bare.request('GET', '/v1/channels', { key: b.live });
    expect(listed.body.data.find((c: any) => c.id === 'claim_link').status).toBe('paused');
    expect((await bare.request('GET', '/sandbox/v1/channels', { key: b.sandbox })).body.data.find((c: any) => c.id === 'claim_link').status).toBe('live');
    const a = await bare.request('POST', '/v1/payouts', { key: b.live, body: { channel: 'claim_link', recipient: { type: 'email', address: 'ana@example.com' }, source_amount: '10' } });
    expect(a.status).toBe(400);
    expect(a.body.error).toMatchObject({ code: 'channel_unavailable', param: 'channel' });
    expect(a.body.error.message).toMatch(/no live rail is configured to pay a claim out in USD \(ach_usd: set RAIL_ACH_SFTP_HOST/);
    expect(await bare.db.selectFrom('payouts').select('id').where('business_id', '=', b.id).execute()).toHaveLength(0);
  });

  it('with the ACH rail and SMTP only: live for e-mail recipients; a phone recipient is refused naming the SMS and WhatsApp settings (Surfaces A, B, C)', async () => {
    const b = await smtpOnly.business();
    await fundLive(smtpOnly, b.id);
    const listed = await smtpOnly.request('GET', '/v1/channels', { key: b.live });
    expect(listed.body.data.find((c: any) => c.id === 'claim_link').status).toBe('live');

    const phone = await smtpOnly.request('POST', '/v1/payouts', { key: b.live, body: { channel: 'claim_link', recipient: { type: 'phone', number: '+12025550123' }, source_amount: '10' } });
    expect(phone.status).toBe(400);
    expect(phone.body.error).toMatchObject({ code: 'channel_unavailable', param: 'recipient.number' });
    expect(phone.body.error.message).toMatch(/no live SMS or WhatsApp provider is configured \(set TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM for Twilio, or WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_ACCESS_TOKEN for WhatsApp\)/);

    const surfaceB = await smtpOnly.request('POST', '/claim/v1/disbursements', { key: b.live, body: { recipientPhone: '+12025550123', amountUsd: '10.00' }, headers: { 'Idempotency-Key': 'b-phone' } });
    expect(surfaceB.status).toBe(400);
    expect(surfaceB.body).toMatchObject({ error: 'channel_unavailable', details: { param: 'recipientPhone' } });
    expect(surfaceB.body.message).toMatch(/TWILIO_ACCOUNT_SID/);

    const surfaceC = await smtpOnly.request('POST', '/guide/v1/payouts', { key: b.live, body: { amount: '10.00', currency: 'USD', delivery_channel: 'sms', destination: '+12025550123' }, headers: { 'Idempotency-Key': 'c-phone' } });
    expect(surfaceC.status).toBe(400);
    expect(surfaceC.body.error, JSON.stringify(surfaceC.body)).toMatchObject({ code: 'channel_unavailable', param: 'destination' });

    // An e-mail recipient is reachable, but not by the SMS the request asks for.
    const bySms = await smtpOnly.request('POST', '/guide/v1/payouts', { key: b.live, body: { email: 'ana@example.com', amount: '10.00', currency: 'USD', delivery_channel: 'sms', destination: '+12025550123' }, headers: { 'Idempotency-Key': 'c-email-sms' } });
    expect(bySms.status).toBe(400);
    expect(bySms.body.error).toMatchObject({ code: 'channel_unavailable', param: 'delivery_channel' });
    expect(bySms.body.error.message).toMatch(/no live SMS \(Twilio\) provider is configured/);
    expect(await smtpOnly.db.selectFrom('payouts').select('id').where('business_id', '=', b.id).execute()).toHaveLength(0);

    const email = await smtpOnly.request('POST', '/v1/payouts', { key: b.live, body: { channel: 'claim_link', recipient: { type: 'email', address: 'ana@example.com' }, source_amount: '10' } });
    expect(email.status, JSON.stringify(email.body)).toBe(201);
    expect(email.body).toMatchObject({ channel: 'claim_link', status: 'submitted' });
  });
});

describe.skipIf(SKIP)('a live claim-link payout by e-mail, claimed to a US bank account', () => {
  it('is accepted live, e-mailed through SMTP, claimed in Chromium with ACH details and paid in a NACHA file to the test bank', async () => {
    const created = await h.request('POST', '/guide/v1/payouts', {
      key: biz.live,
      body: { email: 'jordan@example.com', amount: '25.00', currency: 'USD', delivery_channel: 'email', destination: 'jordan@example.com', message: 'Thanks for the design work' },
      headers: { 'Idempotency-Key': 'live-claim-1' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.id;
    expect(await h.db.selectFrom('payouts').select(['environment', 'channel']).where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ environment: 'live', channel: 'claim_link' });

    // The e-mail, as the SMTP server received it, carries the claim link.
    const mail = await waitFor(async () => doubles.smtp.received.find((m) => m.to.includes('jordan@example.com')), 'the claim e-mail');
    const text = mail.raw.toString().replace(/=\r?\n/g, '');
    const link = new RegExp(`${origin.replace(/[.]/g, '\\.')}/c/[A-Za-z0-9_-]+`).exec(text)?.[0];
    expect(link).toBeDefined();
    await waitFor(async () => (await h.db.selectFrom('payouts').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status === 'awaiting_claim', 'awaiting_claim');

    const { browser, close } = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(link!);
      expect(await page.$eval('.amount', (e) => e.textContent)).toBe('25.00 USD');
      await Promise.all([page.waitForNavigation(), page.click('#start')]);
      // Only live routes: the ACH rail (configured and working), nothing sandbox-only.
      const routes = await page.$$eval('form.route input[name=route]', (xs) => xs.map((x) => (x as unknown as { value: string }).value));
      expect(routes).toEqual(['ach_usd']);
      expect(await page.$$('button[value=mobile_money], button[value=wallet]')).toHaveLength(0);

      // A bad routing number is refused on the page and stores nothing.
      await page.type('#ach_usd-holder_name', 'Jordan Lee');
      await page.type('#ach_usd-account_number', '123456789');
      await page.type('#ach_usd-routing_number', '021000022');
      await page.select('#ach_usd-account_type', 'checking');
      await Promise.all([page.waitForNavigation(), page.click('#route-ach_usd button')]);
      expect(await page.$eval('#error', (e) => e.textContent)).toMatch(/routing_number/);
      expect(await h.db.selectFrom('payout_claim_destinations').select('payout_id').where('payout_id', '=', id).execute()).toHaveLength(0);

      await page.$eval('#ach_usd-routing_number', (e) => ((e as unknown as { value: string }).value = ''));
      await page.type('#ach_usd-routing_number', '021000021');
      await Promise.all([page.waitForNavigation(), page.click('#route-ach_usd button')]);
      expect(await page.$eval('body', (e) => e.textContent)).toMatch(/This payment was claimed by Bank transfer/);
      await page.close();
    } finally {
      await close();
    }

    // Paid out on the ACH rail exactly as a live direct ach_usd payout: its instruction, a NACHA file, settlement by silence.
    const done = await waitFor(async () => {
      const r = await h.request('GET', `/v1/payouts/${id}`, { key: biz.live });
      return ['succeeded', 'failed'].includes(r.body.status) ? r.body : null;
    }, 'the payout to settle', 150_000);
    expect(done).toMatchObject({ status: 'succeeded', channel: 'claim_link', claim: { method: 'bank_transfer' } });
    const instruction = await h.db.selectFrom('rail_instructions').selectAll().where('payout_id', '=', id).executeTakeFirstOrThrow();
    expect(instruction).toMatchObject({ rail: 'ach', currency: 'USD', creditor_name: 'Jordan Lee', amount_minor: 2500n });
    expect(done.provider_reference).toBe(instruction.trace_number);
    const file = await h.db.selectFrom('rail_files').selectAll().where('id', '=', instruction.rail_file_id!).executeTakeFirstOrThrow();
    const sent = readFileSync(join(bank.filesDir, 'ach', 'inbox', 'answered', file.name), 'utf8');
    const entry = parseNachaFile(sent).batches.flatMap((x) => x.entries).find((e) => e.traceNumber === instruction.trace_number)!;
    expect(entry).toMatchObject({ transactionCode: '22', accountNumber: '123456789', routingNumber: '021000021', amountMinor: '2500', name: 'JORDAN LEE' });

    // The ledger and events of a live payout: hold at accept, settle at success; the claim-link lifecycle events.
    const postings = (await h.db.selectFrom('ledger_postings').select('key').where('key', 'like', `payout:${id}:%`).orderBy('id').execute()).map((r) => r.key.split(':')[2]);
    expect(postings).toEqual(['hold', 'settle']);
    const events = (await h.db.selectFrom('events').select('type').where('object_id', '=', id).orderBy('id').execute()).map((r) => r.type);
    expect(events).toEqual(expect.arrayContaining(['payout.submitted', 'payout.awaiting_claim', 'payout.notification_sent', 'payout.claimed', 'payout.succeeded']));
    expect(events.indexOf('payout.claimed')).toBeLessThan(events.indexOf('payout.succeeded'));
  }, 300_000);
});
