/**
 * Live claim-link notifications through real provider protocols (docs/notifications.md): e-mail
 * over SMTP to a real SMTP server on loopback (DKIM checked with the independent `mailauth`
 * verifier), SMS through the official `twilio` client to the Twilio-shaped double, WhatsApp
 * template messages to the Cloud-API-shaped double; signed status callbacks to our /hooks routes
 * (a byte changed: 403, nothing changes; a replay: refused; never backwards; unknown message:
 * acknowledged and counted); the SMS fallback; STOP; exactly once across a failure between the
 * provider call and the recording, for each provider; and no unmasked destination in the logs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/context';
import { post } from '../../src/core/ledger';
import { metricsRegistry } from '../../src/core/metrics/registry';
import { closeLiveProviders, createNotifiedPayouts, sendPayoutNotification } from '../../src/core/notifications';
import { openClaimWindow } from '../../src/core/payouts';
import { drainWorkflowStarts } from '../../src/core/workflow-starts';
import { MAGIC, type NotifyDoubles, startNotifyDoubles, twilioSignature, hubSignature } from '../../tools/notify-doubles';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * The ACH rail configured (the live route a claim link needs to be accepted); never connected
 * here: these payouts are not claimed (test/e2e/live-claim-link.test.ts claims one over SFTP).
 */
const ACH_CONFIGURED = {
  RAIL_ACH_SFTP_HOST: '127.0.0.1',
  RAIL_ACH_SFTP_PORT: '9',
  RAIL_ACH_SFTP_USER: 'payouts',
  RAIL_ACH_SFTP_KEY_PATH: '/nonexistent/ach-key',
  RAIL_ACH_SFTP_HOST_KEY: `SHA256:${'A'.repeat(43)}`,
  RAIL_ACH_ODFI_ROUTING: '021000021',
  RAIL_ACH_COMPANY_ID: '1234567890',
};

let h: Harness;
let doubles: NotifyDoubles;
let hooks: Server;
let hooksUrl: string;
let dir: string;
let caller: Caller;
const logLines: string[] = [];

async function waitFor<T>(fn: () => Promise<T | undefined | false | null>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'notify-'));
  // Our /hooks routes on a real loopback port, so the doubles can call back (the app is set below).
  const target: { app?: Harness['app'] } = {};
  hooks = createServer(getRequestListener((req) => (target.app as Harness['app']).fetch(req)));
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  hooksUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
  doubles = await startNotifyDoubles({ dir, hooksBaseUrl: hooksUrl, delayMs: 2500, providerTimeout: 'PT1S', callbackDelayMs: 30 });
  h = await createHarness({ worker: false, env: { ...doubles.env, ...ACH_CONFIGURED, NOTIFY_WHATSAPP_LOOKUP_GRACE: 'PT30S' } });
  target.app = h.app;
  // Capture every log line the notification code writes (test: no unmasked destination).
  (h.core as { log: unknown }).log = pino({ level: 'debug' }, new Writable({ write(chunk, _enc, cb) { logLines.push(String(chunk)); cb(); } }));
  const b = await h.business();
  await h.db.updateTable('businesses').set({ name: 'Acme Ltd' }).where('id', '=', b.id).execute();
  const key = await h.db.selectFrom('api_keys').select('id').where('business_id', '=', b.id).where('environment', '=', 'live').executeTakeFirstOrThrow();
  caller = { businessId: b.id, environment: 'live', keyId: key.id, role: 'owner', policy: null };
  await h.db.transaction().execute((tx) => post(tx, { businessId: b.id, environment: 'live', key: 'test:fund', from: 'external', to: 'available', amount: 1_000_000_000n }));
}, 120_000);

afterAll(async () => {
  if (h) closeLiveProviders(h.core);
  await h?.close();
  await doubles?.stop();
  await new Promise((r) => hooks?.close(r));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * A live claim-link payout notifying `destination`, accepted in live (the live providers and a live
 * rail to claim to are configured: docs/notifications.md "When claim_link is live"); its workflow
 * is stopped and its claim window opened here (the notification step runs under test control).
 */
async function livePayout(channel: 'email' | 'sms' | 'whatsapp', destination: string, reference?: string): Promise<string> {
  const recipient = channel === 'email' ? { type: 'email' as const, address: destination } : { type: 'phone' as const, number: destination };
  const [p] = await createNotifiedPayouts(h.core, caller, [
    { payout: { channel: 'claim_link', recipient, destinationAmount: '25', ...(reference ? { reference } : {}) }, notification: { channel, destination, language: 'es' } },
  ]);
  const id = p!.payout.id;
  await drainWorkflowStarts(h.core);
  await h.core.temporal.workflow.getHandle(id).terminate('test: the notification step runs under test control');
  expect((await h.db.selectFrom('payouts').select('environment').where('id', '=', id).executeTakeFirstOrThrow()).environment).toBe('live');
  expect((await notificationOf(id)).environment).toBe('live');
  await openClaimWindow(h.core, id);
  return id;
}

const notificationOf = (payoutId: string) => h.db.selectFrom('notifications').selectAll().where('payout_id', '=', payoutId).executeTakeFirstOrThrow();
const messagesOf = (payoutId: string) => h.db.selectFrom('notification_messages').selectAll().where('payout_id', '=', payoutId).orderBy('created_at').execute();
const eventsOf = async (payoutId: string) => (await h.db.selectFrom('events').select('type').where('object_id', '=', payoutId).orderBy('id').execute()).map((e) => e.type);
const claimUrlOf = async (payoutId: string) => `${h.config.publicUrl}/c/${(await h.db.selectFrom('payouts').select('claim_token').where('id', '=', payoutId).executeTakeFirstOrThrow()).claim_token}`;

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const m = (await metricsRegistry.getSingleMetric(name)?.get())?.values ?? [];
  return m.filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x)).reduce((a, v) => a + v.value, 0);
}

/** Posts a Twilio status callback signed as Twilio signs (optionally tampered after signing). */
async function twilioCallback(url: string, params: Record<string, string>, tamper?: (body: string) => string): Promise<Response> {
  const sig = twilioSignature(doubles.twilio.authToken, url, params);
  const body = new URLSearchParams(params).toString();
  return fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': sig }, body: tamper ? tamper(body) : body });
}

describe('live claim window', () => {
  it('a live payout with the sandbox magic reference sandbox:claim_expired still gets 30 days', async () => {
    const id = await livePayout('email', 'window@example.com', 'sandbox:claim_expired');
    const p = await h.db.selectFrom('payouts').select(['claim_expires_at', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(p.status).toBe('awaiting_claim');
    const days = (p.claim_expires_at!.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.99);
    expect(days).toBeLessThanOrEqual(30);
  });
});

describe('e-mail over SMTP', () => {
  it('delivers a DKIM-signed message with our Message-ID and per-message return path to the SMTP server', async () => {
    const before = doubles.smtp.received.length;
    const id = await livePayout('email', MAGIC.emailDelivered);
    expect(await sendPayoutNotification(h.core, id)).toMatchObject({ result: 'sent' });
    const [msg] = await messagesOf(id);
    expect(msg).toMatchObject({ channel: 'email', provider: 'smtp', status: 'sent', attempts: 1, in_flight: false });
    expect(doubles.smtp.received).toHaveLength(before + 1);
    const mail = doubles.smtp.received.at(-1)!;
    expect(mail.from).toBe(`bounce+${msg!.id}@bounces.payouts.example.com`);
    expect(mail.to).toEqual([MAGIC.emailDelivered]);
    expect(mail.raw).toContain(`Message-ID: <${msg!.id}@bounces.payouts.example.com>`);
    expect(mail.raw).toContain(await claimUrlOf(id));
    expect(msg!.provider_message_id).toBe(`<${msg!.id}@bounces.payouts.example.com>`);
    // Independent verification: mailauth's DKIM verifier with the published key as DNS answer.
    const { dkimVerify } = (await import('mailauth/lib/dkim/verify.js')) as any;
    const resolver = async (name: string, type: string) => {
      if (type === 'TXT' && name === `${doubles.dkim.selector}._domainkey.${doubles.dkim.domain}`) return [[doubles.dkim.txt]];
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    };
    const verified = await dkimVerify(Buffer.from(mail.raw), { resolver });
    expect(verified.results[0].status.result).toBe('pass');
    expect(verified.results[0].signingDomain).toBe(doubles.dkim.domain);
    expect(verified.results[0].selector).toBe(doubles.dkim.selector);
    // One byte changed in the body: the same verifier fails it.
    const tampered = await dkimVerify(Buffer.from(mail.raw.replace('Acme Ltd', 'Acme Ltc')), { resolver });
    expect(tampered.results[0].status.result).not.toBe('pass');
    expect(tampered.results[0].status.comment).toMatch(/body hash/);
    expect((await notificationOf(id)).status).toBe('sent');
  });

  it('a 5xx answer fails the notification with the server reply kept (not retried)', async () => {
    const id = await livePayout('email', MAGIC.emailBounce);
    expect(await sendPayoutNotification(h.core, id)).toMatchObject({ result: 'failed' });
    const n = await notificationOf(id);
    expect(n.status).toBe('failed');
    expect(n.failure_code).toBe('smtp_550');
    expect(n.error).toContain('does not exist');
    expect(await eventsOf(id)).toContain('payout.notification_failed');
  });

  it('a failure between the SMTP call and the recording sends no second message; a timeout with the message kept is not sent again', async () => {
    const id = await livePayout('email', 'crash@example.com');
    const before = doubles.smtp.received.length;
    await expect(sendPayoutNotification(h.core, id, { afterProviderCall: () => { throw new Error('worker lost'); } })).rejects.toThrow('worker lost');
    expect((await messagesOf(id))[0]).toMatchObject({ status: 'sending', in_flight: true, attempts: 1 });
    expect(await sendPayoutNotification(h.core, id)).toMatchObject({ result: 'sent', deduplicated: true });
    expect(doubles.smtp.received.length).toBe(before + 1);
    expect((await notificationOf(id)).status).toBe('sent');

    const t = await livePayout('email', MAGIC.emailTimeout);
    await expect(sendPayoutNotification(h.core, t)).rejects.toThrow();
    expect(await sendPayoutNotification(h.core, t)).toMatchObject({ result: 'sent', deduplicated: true });
    await new Promise((r) => setTimeout(r, 2000));
    expect(doubles.smtp.received.filter((m) => m.to[0] === MAGIC.emailTimeout)).toHaveLength(1);
  });
});

describe('SMS through Twilio', () => {
  it('reaches the Twilio double through the official client; a signed status callback moves it to delivered and emits the event; the claim page shows nothing of it', async () => {
    const id = await livePayout('sms', MAGIC.smsDelivered);
    expect(await sendPayoutNotification(h.core, id)).toMatchObject({ result: 'sent' });
    const claimUrl = await claimUrlOf(id);
    const sent = doubles.twilio.messages.filter((m) => m.body.includes(claimUrl));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.to).toBe(MAGIC.smsDelivered);
    const [msg] = await messagesOf(id);
    expect(sent[0]!.statusCallback).toBe(`${hooksUrl}/hooks/twilio/status?ref=${msg!.id}`);
    expect(msg!.provider_message_id).toBe(sent[0]!.sid);
    await waitFor(async () => (await notificationOf(id)).status === 'delivered', 'delivered');
    expect(await eventsOf(id)).toEqual(['payout.submitted', 'payout.awaiting_claim', 'payout.notification_sent', 'payout.notification_delivered']);
    expect(doubles.twilio.callbacks.filter((c) => c.params.MessageSid === sent[0]!.sid).every((c) => c.status === 200)).toBe(true);
    // Surface C shows it; the claim page does not.
    const page = await h.request('GET', new URL(claimUrl).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('25.00');
    expect(page.text).not.toMatch(/delivered|notification/i);
  });

  it('a callback with one byte changed is refused (403) and changes nothing; a replay is refused; a late "sent" never moves it back; an unknown message is acknowledged and counted', async () => {
    const id = await livePayout('sms', '+525512347001');
    await sendPayoutNotification(h.core, id);
    const [msg] = await messagesOf(id);
    await waitFor(async () => (await notificationOf(id)).status === 'delivered', 'delivered');
    const url = `${hooksUrl}/hooks/twilio/status?ref=${msg!.id}`;
    const params = { AccountSid: doubles.twilio.accountSid, ApiVersion: '2010-04-01', From: doubles.twilio.from, MessageSid: msg!.provider_message_id!, MessageStatus: 'undelivered', SmsSid: msg!.provider_message_id!, SmsStatus: 'undelivered', To: '+525512347001', ErrorCode: '30003' };
    const badBefore = await metric('notification_callbacks_total', { provider: 'twilio', outcome: 'bad_signature' });
    const tampered = await twilioCallback(url, params, (b) => b.replace('ErrorCode=30003', 'ErrorCode=30004'));
    expect(tampered.status).toBe(403);
    expect(await metric('notification_callbacks_total', { provider: 'twilio', outcome: 'bad_signature' })).toBe(badBefore + 1);
    expect((await notificationOf(id)).status).toBe('delivered');
    // Signed, but for a different URL (the reference changed): refused too.
    const sig = twilioSignature(doubles.twilio.authToken, url, params);
    const moved = await fetch(`${url}x`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': sig }, body: new URLSearchParams(params).toString() });
    expect(moved.status).toBe(403);

    // A late "sent" after delivered: acknowledged, never backwards.
    const late = await twilioCallback(url, { ...params, MessageStatus: 'sent', SmsStatus: 'sent', ErrorCode: '' });
    expect(late.status).toBe(200);
    expect(await late.json()).toMatchObject({ outcome: 'stale' });
    expect((await notificationOf(id)).status).toBe('delivered');
    // Replay of a callback already applied.
    const delivered = doubles.twilio.callbacks.find((c) => c.params.MessageSid === msg!.provider_message_id && c.params.MessageStatus === 'delivered')!;
    const replay = await twilioCallback(delivered.url, delivered.params);
    expect(await replay.json()).toMatchObject({ replay: true });
    expect((await eventsOf(id)).filter((t) => t === 'payout.notification_delivered')).toHaveLength(1);

    const unknownBefore = await metric('notification_callbacks_total', { provider: 'twilio', outcome: 'unknown_message' });
    const unknown = await twilioCallback(`${hooksUrl}/hooks/twilio/status?ref=nmsg_unknown`, { ...params, MessageSid: 'SM00000000000000000000000000000000', MessageStatus: 'delivered', SmsStatus: 'delivered', ErrorCode: '' });
    expect(unknown.status).toBe(200);
    expect(await metric('notification_callbacks_total', { provider: 'twilio', outcome: 'unknown_message' })).toBe(unknownBefore + 1);
  });

  it('undelivered 30003 fails the notification with the code; 21610 (unsubscribed) is refused at once', async () => {
    const id = await livePayout('sms', MAGIC.smsUndelivered);
    await sendPayoutNotification(h.core, id);
    await waitFor(async () => (await notificationOf(id)).status === 'failed', 'failed');
    expect(await notificationOf(id)).toMatchObject({ failure_code: '30003' });
    expect(await eventsOf(id)).toContain('payout.notification_failed');

    const u = await livePayout('sms', MAGIC.smsUnsubscribed);
    expect(await sendPayoutNotification(h.core, u)).toMatchObject({ result: 'failed' });
    expect(await notificationOf(u)).toMatchObject({ status: 'failed', failure_code: '21610' });
  });

  it('a failure between the Twilio call and the recording sends no second SMS (found by lookup); so does a timeout with the message sent', async () => {
    const id = await livePayout('sms', '+525512347002');
    const found = await metric('notification_sends_total', { provider: 'twilio', outcome: 'found' });
    doubles.twilio.faults.dropCallbacks = true; // no callback records it: only the lookup can
    try {
      await expect(sendPayoutNotification(h.core, id, { afterProviderCall: () => { throw new Error('worker lost'); } })).rejects.toThrow('worker lost');
      expect((await messagesOf(id))[0]).toMatchObject({ status: 'sending', in_flight: true, attempts: 1 });
      expect(await sendPayoutNotification(h.core, id)).toMatchObject({ result: 'sent', deduplicated: true });
    } finally {
      doubles.twilio.faults.dropCallbacks = false;
    }
    expect(await metric('notification_sends_total', { provider: 'twilio', outcome: 'found' })).toBe(found + 1);
    const claimUrl = await claimUrlOf(id);
    const sent = doubles.twilio.messages.filter((m) => m.body.includes(claimUrl));
    expect(sent).toHaveLength(1);
    expect((await messagesOf(id))[0]).toMatchObject({ status: 'sent', provider_message_id: sent[0]!.sid, attempts: 1 });

    const t = await livePayout('sms', MAGIC.smsTimeout);
    await expect(sendPayoutNotification(h.core, t)).rejects.toThrow();
    // Found by the lookup, or already recorded by the status callback naming our reference.
    expect(['sent', 'already_sent']).toContain((await sendPayoutNotification(h.core, t)).result);
    const tUrl = await claimUrlOf(t);
    await new Promise((r) => setTimeout(r, 2000));
    expect(doubles.twilio.messages.filter((m) => m.body.includes(tUrl))).toHaveLength(1);
    expect(['sent', 'delivered']).toContain((await notificationOf(t)).status);
  });

  it('STOP records an opt-out: no further SMS to that number, and the payout shows why', async () => {
    const number = '+525512347003';
    const answer = await doubles.twilio.inbound(`${hooksUrl}/hooks/twilio/inbound`, number, 'STOP');
    expect(answer).toBe(200);
    expect(await h.db.selectFrom('notification_opt_outs').selectAll().where('destination', '=', number).execute()).toHaveLength(1);
    const before = doubles.twilio.messages.length;
    const id = await livePayout('sms', number);
    expect(await sendPayoutNotification(h.core, id)).toMatchObject({ result: 'failed' });
    expect(doubles.twilio.messages.length).toBe(before);
    const n = await notificationOf(id);
    expect(n).toMatchObject({ status: 'failed', failure_code: 'opted_out' });
    expect(n.error).toContain('STOP');
    expect(await eventsOf(id)).toContain('payout.notification_failed');
    // A forged inbound STOP (bad signature) records nothing.
    const forged = await fetch(`${hooksUrl}/hooks/twilio/inbound`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': 'AAAA' }, body: 'From=%2B525512347004&Body=STOP&OptOutType=STOP' });
    expect(forged.status).toBe(403);
    expect(await h.db.selectFrom('notification_opt_outs').selectAll().where('destination', '=', '+525512347004').execute()).toHaveLength(0);
  });
});

describe('WhatsApp through the Cloud API', () => {
  it('answers the GET verification handshake only with our verify token', async () => {
    expect(await doubles.whatsapp.verify()).toMatchObject({ status: 200 });
    const ok = await doubles.whatsapp.verify();
    expect(ok.body).toMatch(/^[0-9a-f]{12}$/);
    expect((await doubles.whatsapp.verify('wrong')).status).toBe(403);
  });

  it('reaches the double as a template message (name, language, amount, sender, claim link); a signed webhook moves it to delivered; one byte changed is refused', async () => {
    const id = await livePayout('whatsapp', MAGIC.whatsappDelivered);
    const [msgBefore] = await messagesOf(id);
    expect(msgBefore).toBeUndefined();
    expect(await sendPayoutNotification(h.core, id)).toMatchObject({ result: 'sent' });
    const [msg] = await messagesOf(id);
    const wa = doubles.whatsapp.messages.find((m) => m.bizOpaqueCallbackData === msg!.id)!;
    expect(wa.to).toBe(MAGIC.whatsappDelivered.slice(1));
    expect(wa.template.name).toBe('claim_link_payout');
    expect(wa.template.language.code).toBe('es');
    expect(wa.template.components[0]!.parameters.map((p) => p.text)).toEqual(['25,00 USD', 'Acme Ltd', await claimUrlOf(id)]);
    expect(msg!.provider_message_id).toBe(wa.wamid);
    await waitFor(async () => (await notificationOf(id)).status === 'delivered', 'delivered');
    expect(await eventsOf(id)).toContain('payout.notification_delivered');

    const raw = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: '1', changes: [{ field: 'messages', value: { statuses: [{ id: wa.wamid, status: 'failed', timestamp: '1', recipient_id: wa.to, errors: [{ code: 131026, title: 'Message undeliverable' }] }] } }] }] });
    const sig = hubSignature(doubles.whatsapp.appSecret, raw);
    const changed = raw.replace('"failed"', '"failed "');
    const bad = await fetch(`${hooksUrl}/hooks/whatsapp`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': sig }, body: changed });
    expect(bad.status).toBe(403);
    expect((await notificationOf(id)).status).toBe('delivered');
    // Correctly signed, but failed after delivered: never backwards.
    const late = await fetch(`${hooksUrl}/hooks/whatsapp`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': sig }, body: raw });
    expect(await late.json()).toMatchObject({ outcomes: ['stale'] });
    expect((await notificationOf(id)).status).toBe('delivered');
    const replay = await fetch(`${hooksUrl}/hooks/whatsapp`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': sig }, body: raw });
    expect(await replay.json()).toMatchObject({ replay: true });
  });

  it('131026 (not a WhatsApp user) falls back to exactly one SMS, which is delivered', async () => {
    const id = await livePayout('whatsapp', MAGIC.whatsappNotAUser);
    expect(await sendPayoutNotification(h.core, id)).toMatchObject({ result: 'sent' });
    const claimUrl = await claimUrlOf(id);
    await waitFor(async () => (await messagesOf(id)).length === 2, 'the SMS fallback recorded');
    // The relay's fallback sweep (src/core/relay-tasks.ts) sends it; run one sweep here.
    const { sendPendingFallbacks } = await import('../../src/core/notifications');
    await sendPendingFallbacks(h.core);
    await sendPendingFallbacks(h.core);
    await waitFor(async () => (await notificationOf(id)).status === 'delivered', 'delivered by SMS');
    const msgs = await messagesOf(id);
    expect(msgs.map((m) => [m.channel, m.purpose, m.status, m.failure_code])).toEqual([
      ['whatsapp', 'primary', 'failed', '131026'],
      ['sms', 'fallback', 'delivered', null],
    ]);
    expect(doubles.twilio.messages.filter((m) => m.body.includes(claimUrl))).toHaveLength(1);
    expect(await eventsOf(id)).toEqual(['payout.submitted', 'payout.awaiting_claim', 'payout.notification_sent', 'payout.notification_delivered']);
    expect(await notificationOf(id)).toMatchObject({ status: 'delivered', channel: 'whatsapp', failure_code: null, error: expect.stringContaining('Delivered by SMS') });
  });

  it('two fallback sweeps at once (two processes) send the pending SMS once: the first claims it, the other retries later', async () => {
    const id = await livePayout('whatsapp', MAGIC.whatsappNotAUser);
    expect(await sendPayoutNotification(h.core, id)).toMatchObject({ result: 'sent' });
    const claimUrl = await claimUrlOf(id);
    await waitFor(async () => (await messagesOf(id)).length === 2, 'the SMS fallback recorded');
    const { sendPendingFallbacks } = await import('../../src/core/notifications');
    await Promise.all([sendPendingFallbacks(h.core), sendPendingFallbacks(h.core)]);
    await waitFor(async () => (await notificationOf(id)).status === 'delivered', 'delivered by SMS');
    await sendPendingFallbacks(h.core);
    expect(doubles.twilio.messages.filter((m) => m.body.includes(claimUrl))).toHaveLength(1);
    expect((await messagesOf(id)).map((m) => [m.channel, m.status, m.attempts])).toEqual([
      ['whatsapp', 'failed', 1],
      ['sms', 'delivered', 1],
    ]);
  });

  it('a paused template (132015, refused at once) sends one SMS instead in the same step', async () => {
    const id = await livePayout('whatsapp', MAGIC.whatsappTemplatePaused);
    expect(await sendPayoutNotification(h.core, id)).toMatchObject({ result: 'sent' });
    const msgs = await messagesOf(id);
    expect(msgs.map((m) => [m.channel, m.status])).toEqual([['whatsapp', 'failed'], ['sms', 'sent']]);
    const claimUrl = await claimUrlOf(id);
    expect(doubles.twilio.messages.filter((m) => m.body.includes(claimUrl))).toHaveLength(1);
    expect(await sendPayoutNotification(h.core, id)).toMatchObject({ result: 'already_sent' });
  });

  it('a failure between the Cloud API call and the recording sends no second message: the status webhook naming our reference records it', async () => {
    const id = await livePayout('whatsapp', '+525598767001');
    await expect(sendPayoutNotification(h.core, id, { afterProviderCall: () => { throw new Error('worker lost'); } })).rejects.toThrow('worker lost');
    const [msg] = await messagesOf(id);
    // Until a webhook names our reference the retry waits (no lookup API), it does not send.
    await waitFor(async () => (await messagesOf(id))[0]!.status !== 'sending', 'the status webhook recorded the message');
    expect(await sendPayoutNotification(h.core, id)).toMatchObject({ result: 'already_sent' });
    expect(doubles.whatsapp.messages.filter((m) => m.bizOpaqueCallbackData === msg!.id)).toHaveLength(1);

    const t = await livePayout('whatsapp', MAGIC.whatsappTimeout);
    await expect(sendPayoutNotification(h.core, t)).rejects.toThrow();
    const [tm] = await messagesOf(t);
    await waitFor(async () => (await messagesOf(t))[0]!.status !== 'sending', 'the webhook of the timed-out message');
    expect(await sendPayoutNotification(h.core, t)).toMatchObject({ result: 'already_sent' });
    await new Promise((r) => setTimeout(r, 2000));
    expect(doubles.whatsapp.messages.filter((m) => m.bizOpaqueCallbackData === tm!.id)).toHaveLength(1);
  });

  it('a retry within the grace window with no webhook waits instead of sending', async () => {
    const id = await livePayout('whatsapp', '+525598767002');
    const webhookUrl = doubles.whatsapp.webhookUrl;
    doubles.whatsapp.webhookUrl = null; // the webhook never comes
    try {
      await expect(sendPayoutNotification(h.core, id, { afterProviderCall: () => { throw new Error('worker lost'); } })).rejects.toThrow('worker lost');
      await expect(sendPayoutNotification(h.core, id)).rejects.toThrow(/outcome unknown/);
      const [msg] = await messagesOf(id);
      expect(doubles.whatsapp.messages.filter((m) => m.bizOpaqueCallbackData === msg!.id)).toHaveLength(1);
    } finally {
      doubles.whatsapp.webhookUrl = webhookUrl;
    }
  });
});

describe('through the payout workflow', () => {
  it('the notification step of a running live payout reaches each provider; the relay sends the WhatsApp fallback SMS', async () => {
    const make = async (channel: 'email' | 'sms' | 'whatsapp', destination: string) => {
      const recipient = channel === 'email' ? { type: 'email' as const, address: destination } : { type: 'phone' as const, number: destination };
      const [p] = await createNotifiedPayouts(h.core, caller, [{ payout: { channel: 'claim_link', recipient, destinationAmount: '25' }, notification: { channel, destination, language: 'en' } }]);
      expect((await h.db.selectFrom('payouts').select('environment').where('id', '=', p!.payout.id).executeTakeFirstOrThrow()).environment).toBe('live');
      return p!.payout.id;
    };
    const ids = [await make('email', 'flow@example.com'), await make('sms', '+525512348001'), await make('whatsapp', '+525598768001'), await make('whatsapp', '+525598771026')];
    await drainWorkflowStarts(h.core);
    await h.startWorker();
    try {
      for (const id of ids) await waitFor(async () => ['sent', 'delivered'].includes((await notificationOf(id)).status) && (await notificationOf(id)).status, `notification of ${id}`);
      await waitFor(async () => (await notificationOf(ids[3]!)).status === 'delivered' && (await messagesOf(ids[3]!)).length === 2, 'the fallback SMS delivered');
    } finally {
      await h.stopWorker();
      for (const id of ids) await h.core.temporal.workflow.getHandle(id).terminate('test over').catch(() => undefined);
    }
    expect(doubles.smtp.received.filter((m) => m.to[0] === 'flow@example.com')).toHaveLength(1);
    expect(doubles.twilio.messages.filter((m) => m.to === '+525512348001')).toHaveLength(1);
    expect(doubles.whatsapp.messages.filter((m) => m.to === '525598768001')).toHaveLength(1);
    expect(doubles.twilio.messages.filter((m) => m.to === '+525598771026')).toHaveLength(1);
    const payout = await h.db.selectFrom('payouts').select(['status', 'claim_expires_at']).where('id', '=', ids[0]!).executeTakeFirstOrThrow();
    expect(payout.status).toBe('awaiting_claim');
  }, 60_000);
});

describe('logs', () => {
  it('no log line of these tests carries an unmasked destination', async () => {
    await doubles.twilio.idle();
    await doubles.whatsapp.idle();
    expect(logLines.length).toBeGreaterThan(10);
    const numbers = new Set<string>();
    for (const r of await h.db.selectFrom('notification_messages').select('destination').execute()) numbers.add(r.destination);
    for (const r of await h.db.selectFrom('notification_opt_outs').select('destination').execute()) numbers.add(r.destination);
    const leaks = logLines.filter((l) => [...numbers].some((d) => l.includes(d) || l.includes(d.replace(/^\+/, ''))));
    expect(leaks).toEqual([]);
    const metricsText = await metricsRegistry.metrics();
    expect([...numbers].filter((d) => metricsText.includes(d))).toEqual([]);
  });
});
