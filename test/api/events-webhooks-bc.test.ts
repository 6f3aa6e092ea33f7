import { createHmac, randomBytes } from 'node:crypto';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitLegacyEvent } from '../helpers/legacy-events';
import { surfaceBEnvelope } from '../../src/wire/surface-b-envelope';
import { newId } from '../../src/domain/ids';
import { createHarness, type Harness } from '../helpers/harness';
import { type ReceivedDelivery, waitFor, webhookReceiver as receiver } from '../helpers/webhook-receiver';
import { keyringFor, openSecret, webhookSecretAad } from '../../src/core/secrets';

/**
 * docs/webhooks.md, docs/surface-b.md, docs/surface-c.md: the events API of Surfaces B and C (the
 * envelopes their endpoints are sent, under their names), and Surface B's bulk resend and secret
 * rotation with two signatures during the overlap. Deliveries go through the real delivery
 * workflow (Temporal test server) to a local receiver. Surface B signatures are checked with an
 * HMAC computed here with node:crypto (independent of src/core/webhook-signature.ts), Surface C's
 * with the stripe package's verifier. Surface B retries after 5 minutes, so a failed first attempt
 * is not retried within a test: only a re-send delivers it.
 */

let h: Harness;
const stripe = new Stripe('sk_test_x');
const B = '/sandbox/claim/v1';
const C = '/sandbox/guide/v1';

beforeAll(async () => {
  h = await createHarness({ env: { WEBHOOK_RETRY_INITIAL: 'PT1H' } });
});
afterAll(async () => h?.close());


type Env = 'sandbox' | 'live';

async function emitRaw(businessId: string, type: string, data: Record<string, unknown>, environment: Env = 'sandbox'): Promise<string> {
  // Event ids are time-ordered per millisecond only: one millisecond apart, the emission order is the id order.
  await new Promise((r) => setTimeout(r, 2));
  const id = await h.db.transaction().execute((tx) =>
    emitLegacyEvent(tx, {
      businessId,
      environment,
      type,
      objectType: type.split('.')[0],
      objectId: String(data.id),
      data,
      dedupeKey: `test:${String(data.id)}:${randomBytes(4).toString('hex')}`,
    }),
  );
  if (!id) throw new Error('not emitted');
  return id;
}

/** A core payout snapshot (the core's wire shape, as the outbox stores it). */
function payout(status: string, o: { channel?: string; failure?: string | null; method?: string | null } = {}) {
  return {
    id: newId('po'),
    object: 'payout',
    status,
    channel: o.channel ?? 'claim_link',
    source_amount: '12.50',
    reference: 'ref-1',
    recipient: { type: 'phone', number: '+525512345678' },
    claim: { method: o.method ?? null },
    delivered_at: null,
    failure: o.failure ? { code: o.failure, message: 'x' } : null,
  };
}

const deposit = (status: string) => ({ id: newId('dep'), object: 'deposit', status, source: 'virtual_account', amount: '10.00', currency: 'USD', credited_amount: '9.5', reference: 'dep-ref' });

/** Surface B's signature as a receiver computes it: sha256=<hex HMAC-SHA256 of the raw body>. */
const hmacB = (secret: string, raw: string) => `sha256=${createHmac('sha256', secret).update(raw, 'utf8').digest('hex')}`;

/** A receiver following docs/webhooks.md: accept when either Surface B signature header verifies with the secret it holds. */
const acceptsB = (r: ReceivedDelivery, secret: string) =>
  [r.headers['x-service-signature'], r.headers['x-service-signature-previous']].some((v) => v === hmacB(secret, r.raw));

async function registerB(key: string, url: string, secret: string, events = ['*']) {
  const r = await h.request('POST', `${B}/webhooks`, { key, body: { url, events, secret } });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string };
}

describe('Surface B: GET /events and /events/{id}', () => {
  it('lists exactly the envelopes Surface B endpoints receive, under its names, newest first; filters; the exact signed body', async () => {
    const biz = await h.business();
    const rx = await receiver();
    const secret = 'b-events-secret-long-enough';
    await registerB(biz.sandbox, rx.url, secret);
    const created = await emitRaw(biz.id, 'payout.submitted', payout('submitted'));
    await emitRaw(biz.id, 'payout.succeeded', payout('succeeded', { channel: 'spei_mxn' })); // not a Surface B disbursement
    await emitRaw(biz.id, 'payout.awaiting_claim', payout('awaiting_claim')); // Surface A only
    const expired = await emitRaw(biz.id, 'payout.failed', payout('failed', { failure: 'claim_expired' }));
    const failed = await emitRaw(biz.id, 'payout.failed', payout('failed', { failure: 'rail_rejected' }));
    const refunded = await emitRaw(biz.id, 'payout.refunded', payout('refunded'));
    const credited = await emitRaw(biz.id, 'deposit.credited', deposit('credited'));

    const all = await h.request('GET', `${B}/events`, { key: biz.sandbox });
    expect(all.status).toBe(200);
    expect(all.body.nextCursor).toBeNull();
    expect(all.body.data.map((e: any) => [e.id, e.type])).toEqual([
      [credited, 'deposit.credited'],
      [refunded, 'disbursement.failed'],
      [failed, 'disbursement.failed'],
      [expired, 'disbursement.expired'],
      [created, 'disbursement.created'],
    ]);
    expect(all.body.data[4]).toMatchObject({ data: { status: 'pending', recipientPhone: '+525512345678', amountUsd: '12.50', reference: 'ref-1' } });
    expect(Object.keys(all.body.data[4])).toEqual(['id', 'type', 'createdAt', 'data']);

    const page = await h.request('GET', `${B}/events?limit=2`, { key: biz.sandbox });
    expect(page.body.data.map((e: any) => e.id)).toEqual([credited, refunded]);
    const page2 = await h.request('GET', `${B}/events?limit=2&after=${page.body.nextCursor}`, { key: biz.sandbox });
    expect(page2.body.data.map((e: any) => e.id)).toEqual([failed, expired]);

    const ids = async (q: string) => (await h.request('GET', `${B}/events?${q}`, { key: biz.sandbox })).body.data.map((e: any) => e.id);
    expect(await ids('type=disbursement.*')).toEqual([refunded, failed, expired, created]);
    expect(await ids('type=disbursement.failed')).toEqual([refunded, failed]);
    expect(await ids('type=disbursement.expired')).toEqual([expired]);
    expect(await ids('type=deposit.*')).toEqual([credited]);
    expect(await ids('type=disbursement.delivered')).toEqual([]);
    expect(await ids(`createdAfter=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    expect(await ids('createdBefore=2020-01-01T00:00:00Z')).toEqual([]);
    expect(await ids(`createdAfter=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}&type=deposit.credited`)).toEqual([credited]);

    const got = await waitFor(() => rx.received.find((r) => r.body.id === expired), 'delivery of the expired event');
    const one = await h.request('GET', `${B}/events/${expired}`, { key: biz.sandbox });
    expect(one.status).toBe(200);
    expect(one.body.type).toBe('disbursement.expired');
    expect(JSON.stringify(one.body)).toBe(got.raw);
    expect(got.headers['x-service-signature']).toBe(hmacB(secret, JSON.stringify(one.body)));
    expect(got.headers['x-service-signature-previous']).toBeUndefined();
    await rx.close();
  });

  it('the SQL filter agrees with the envelope function for every pattern', async () => {
    const biz = await h.business();
    const snapshots: [string, Record<string, unknown>][] = [
      ['payout.submitted', payout('submitted')],
      ['payout.submitted', payout('submitted', { channel: 'sepa_eur' })],
      ['payout.claim_started', payout('claimed', { method: 'bank_transfer' })],
      ['payout.succeeded', payout('succeeded')],
      ['payout.failed', payout('failed', { failure: 'claim_expired' })],
      ['payout.failed', payout('failed', { failure: 'rail_rejected' })],
      ['payout.failed', payout('failed')],
      ['payout.failed', payout('failed', { channel: 'ach_usd', failure: 'claim_expired' })],
      ['payout.refunded', payout('refunded')],
      ['payout.canceled', payout('canceled')],
      ['payout.canceled', payout('canceled', { channel: 'spei_mxn' })],
      ['payout.notification_sent', payout('awaiting_claim')],
      ['deposit.received', deposit('received')],
      ['deposit.credited', deposit('credited')],
      ['payment_request.paid', { id: newId('preq') }],
    ];
    const emitted: { id: string; type: string | null }[] = [];
    for (const [type, data] of snapshots) {
      const id = await emitRaw(biz.id, type, data);
      emitted.push({ id, type: surfaceBEnvelope({ id, type, createdAt: new Date(), object: null, data })?.type ?? null });
    }
    const patterns = [undefined, '*', 'disbursement.*', 'deposit.*', 'disbursement.created', 'disbursement.claimed', 'disbursement.delivered', 'disbursement.failed', 'disbursement.expired', 'disbursement.cancelled', 'deposit.received', 'deposit.credited'];
    for (const p of patterns) {
      const r = await h.request('GET', `${B}/events?limit=200${p ? `&type=${p}` : ''}`, { key: biz.sandbox });
      const expected = emitted
        .filter((e) => e.type !== null && (p === undefined || p === '*' || (p.endsWith('.*') ? e.type.startsWith(p.slice(0, -1)) : e.type === p)))
        .map((e) => e.id);
      // The same events (the filter agrees); their order is the listing's (newest first by time,
      // then id), and two events emitted in one millisecond have ids in no particular order.
      expect([...r.body.data.map((e: any) => e.id)].sort(), String(p)).toEqual([...expected].sort());
    }
    expect(emitted.filter((e) => e.type !== null)).toHaveLength(10);
  });

  it('errors in Surface B shape naming its params; retention; tenancy and environment', async () => {
    const biz = await h.business();
    const other = await h.business();
    const e = await emitRaw(biz.id, 'deposit.credited', deposit('credited'));
    for (const [q, param] of [['type=payout.*', 'type'], ['createdAfter=yesterday', 'createdAfter'], ['createdBefore=2026-13-45T00:00:00Z', 'createdBefore'], ['after=zz', 'after'], ['limit=0', 'limit']]) {
      const r = await h.request('GET', `${B}/events?${q}`, { key: biz.sandbox });
      expect(r.status, q).toBe(400);
      expect(r.body.error, q).toBe('validation_error');
      expect(r.body.details.param, q).toBe(param);
    }
    const bad = await h.request('GET', `${B}/events?createdAfter=yesterday`, { key: biz.sandbox });
    expect(bad.body.message).toMatch(/^createdAfter must be an ISO 8601 date-time/);
    expect((await h.request('GET', `${B}/events/${e}`, { key: other.sandbox })).status).toBe(404);
    expect((await h.request('GET', `/claim/v1/events/${e}`, { key: biz.live })).status).toBe(404);
    expect((await h.request('GET', `${B}/events/${e}`, { key: biz.live })).status).toBe(401);
    expect((await h.request('GET', `${B}/events`, {})).status).toBe(401);
    expect((await h.request('GET', `${B}/events`, { key: other.sandbox })).body.data).toEqual([]);
    // Surface A's name of the same event is not a Surface B event id filter, and a Surface A-only event is 404 here
    const aOnly = await emitRaw(biz.id, 'payout.awaiting_claim', payout('awaiting_claim'));
    expect((await h.request('GET', `${B}/events/${aOnly}`, { key: biz.sandbox })).status).toBe(404);
    // 30 days of retention
    await h.db.updateTable('events').set({ created_at: new Date(Date.now() - 31 * 86_400_000) }).where('id', '=', e).execute();
    expect((await h.request('GET', `${B}/events/${e}`, { key: biz.sandbox })).status).toBe(404);
    expect((await h.request('GET', `${B}/events`, { key: biz.sandbox })).body.data.map((x: any) => x.id)).not.toContain(e);
  });
});

describe('Surface B: POST /webhooks/{id}/resend', () => {
  it('a receiver down for an hour gets every missed event after one catch-up call, original ids, valid signatures', async () => {
    const biz = await h.business();
    const other = await h.business();
    const rx = await receiver();
    const secret = 'b-resend-secret-long-enough';
    const ep = await registerB(biz.sandbox, rx.url, secret);
    const before = await emitRaw(biz.id, 'deposit.credited', deposit('credited'));
    await waitFor(() => rx.received.some((r) => r.body.id === before && r.answered === 200), 'first delivery');

    rx.state.up = false;
    const missed: string[] = [];
    for (let i = 0; i < 3; i++) missed.push(await emitRaw(biz.id, 'payout.submitted', payout('submitted')));
    await waitFor(() => missed.every((id) => rx.received.some((r) => r.body.id === id && r.answered === 503)), 'failed attempts');
    rx.state.up = true; // the scheduled retries are 5 minutes away

    const path = `${B}/webhooks/${ep.id}/resend`;
    const body = { createdAfter: new Date(Date.now() - 3600_000).toISOString(), idempotencyKey: 'b-catch-up-1' };
    const r = await h.request('POST', path, { key: biz.sandbox, body });
    expect(r.status, r.text).toBe(202);
    expect(r.body).toMatchObject({ endpointId: ep.id, resent: 3, nextCreatedAfter: null });
    expect(r.body.deliveryIds).toHaveLength(3);
    const replay = await h.request('POST', path, { key: biz.sandbox, body });
    expect(replay.status).toBe(202);
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');

    await waitFor(() => missed.every((id) => rx.received.some((x) => x.body.id === id && x.answered === 200)), 'the catch-up');
    for (const id of missed) {
      const got = rx.received.filter((x) => x.body.id === id && x.answered === 200);
      expect(got).toHaveLength(1);
      expect(got[0].body.type).toBe('disbursement.created');
      expect(got[0].headers['x-service-signature']).toBe(hmacB(secret, got[0].raw));
      const ev = await h.request('GET', `${B}/events/${id}`, { key: biz.sandbox });
      expect(JSON.stringify(ev.body)).toBe(got[0].raw);
    }
    expect(rx.received.filter((x) => x.body.id === before)).toHaveLength(1); // acknowledged before: not re-sent

    const list = await waitFor(async () => {
      const l = await h.request('GET', `${B}/webhooks/${ep.id}/deliveries?status=succeeded`, { key: biz.sandbox });
      return l.body.data.length === 4 ? l : null;
    }, 'deliveries succeeded');
    expect(list.body.data.find((d: any) => d.eventId === missed[0]).attempts.map((a: any) => a.httpStatus)).toEqual([503, 200]);

    // errors and tenancy
    const missing = await h.request('POST', path, { key: biz.sandbox, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.details.param).toBe('createdAfter');
    const soon = await h.request('POST', path, { key: biz.sandbox, body: { createdAfter: 'soon' } });
    expect(soon.status).toBe(400);
    expect(soon.body.details.param).toBe('createdAfter');
    expect(soon.body.message).toMatch(/^createdAfter /);
    const badBefore = await h.request('POST', path, { key: biz.sandbox, body: { createdAfter: body.createdAfter, createdBefore: 'later' } });
    expect(badBefore.body.details.param).toBe('createdBefore');
    expect((await h.request('POST', path, { key: other.sandbox, body: { createdAfter: body.createdAfter } })).status).toBe(404);
    expect((await h.request('POST', `/claim/v1/webhooks/${ep.id}/resend`, { key: biz.live, body: { createdAfter: body.createdAfter } })).status).toBe(404);
    expect((await h.request('POST', path, { body: { createdAfter: body.createdAfter } })).status).toBe(401);
    await rx.close();
  });
});

describe('Surface B: POST /webhooks/{id}/rotate-secret', () => {
  it('during the overlap each delivery verifies with either secret; after it only with the new one', async () => {
    const biz = await h.business();
    const rx = await receiver();
    const oldSecret = 'b-rotation-old-secret-1234';
    const newSecret = 'b-rotation-new-secret-5678';
    const ep = await registerB(biz.sandbox, rx.url, oldSecret);
    const path = `${B}/webhooks/${ep.id}/rotate-secret`;
    const body = { secret: newSecret, expirePreviousIn: 'PT24H', idempotencyKey: 'b-rot-1' };
    const r = await h.request('POST', path, { key: biz.sandbox, body });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: ep.id, url: rx.url, events: ['*'] });
    expect(r.body.secret).toBeUndefined();
    expect(Object.keys(r.body).sort()).toEqual(['createdAt', 'events', 'id', 'previousSecretExpiresAt', 'url']);
    const overlapEnd = Date.parse(r.body.previousSecretExpiresAt);
    expect(overlapEnd - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(overlapEnd - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    const replay = await h.request('POST', path, { key: biz.sandbox, body });
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect(replay.body).toEqual(r.body);
    // rotating again to the secret in use changes nothing (a retry without idempotencyKey is safe)
    const same = await h.request('POST', path, { key: biz.sandbox, body: { secret: newSecret } });
    expect(same.status).toBe(200);
    expect(same.body.previousSecretExpiresAt).toBe(r.body.previousSecretExpiresAt);

    const e1 = await emitRaw(biz.id, 'deposit.credited', deposit('credited'));
    const got1 = await waitFor(() => rx.received.find((x) => x.body.id === e1), 'delivery during the overlap');
    expect(got1.headers['x-service-signature']).toBe(hmacB(newSecret, got1.raw));
    expect(got1.headers['x-service-signature-previous']).toBe(hmacB(oldSecret, got1.raw));
    expect(acceptsB(got1, oldSecret)).toBe(true);
    expect(acceptsB(got1, newSecret)).toBe(true);
    expect(acceptsB(got1, 'some-other-secret-entirely')).toBe(false);
    // a receiver that reads only X-Service-Signature (octokit's verify) works unchanged once it holds the new secret
    expect(await octokitVerify(newSecret, got1.raw, got1.headers['x-service-signature'] as string)).toBe(true);
    expect(await octokitVerify(oldSecret, got1.raw, got1.headers['x-service-signature-previous'] as string)).toBe(true);

    // 25 hours later (core time moved, as the worker's delivery activity reads it)
    const realNow = h.core.now;
    h.core.now = () => new Date(Date.now() + 25 * 3600_000);
    try {
      const e2 = await emitRaw(biz.id, 'deposit.credited', deposit('credited'));
      const got2 = await waitFor(() => rx.received.find((x) => x.body.id === e2), 'delivery after the overlap');
      expect(got2.headers['x-service-signature']).toBe(hmacB(newSecret, got2.raw));
      expect(got2.headers['x-service-signature-previous']).toBeUndefined();
      expect(acceptsB(got2, newSecret)).toBe(true);
      expect(acceptsB(got2, oldSecret)).toBe(false);
      expect(await octokitVerify(newSecret, got2.raw, got2.headers['x-service-signature'] as string)).toBe(true);
      const after = await h.request('POST', path, { key: biz.sandbox, body: { secret: newSecret } });
      expect(after.body.previousSecretExpiresAt).toBeNull();
    } finally {
      h.core.now = realNow;
    }
    await rx.close();
  });

  it('400 naming secret or expirePreviousIn; PT0S ends the overlap at once; 404 other tenant and environment; 401 without a key', async () => {
    const biz = await h.business();
    const other = await h.business();
    const ep = await registerB(biz.sandbox, 'https://example.com/rot-b', 'b-rotation-errors-secret');
    const path = `${B}/webhooks/${ep.id}/rotate-secret`;
    for (const [body, param] of [
      [{}, 'secret'],
      [{ secret: 'short' }, 'secret'],
      [{ secret: 'x'.repeat(257) }, 'secret'],
      [{ secret: 'a-good-new-secret-1234', expirePreviousIn: 'P8D' }, 'expirePreviousIn'],
      [{ secret: 'a-good-new-secret-1234', expirePreviousIn: 'tomorrow' }, 'expirePreviousIn'],
    ] as const) {
      const r = await h.request('POST', path, { key: biz.sandbox, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe('validation_error');
      expect(r.body.details.param, JSON.stringify(body)).toBe(param);
    }
    const p8d = await h.request('POST', path, { key: biz.sandbox, body: { secret: 'a-good-new-secret-1234', expirePreviousIn: 'P8D' } });
    expect(p8d.body.message).toMatch(/^expirePreviousIn /);
    // nothing changed by the refused calls: the endpoint still signs with its first secret only
    const row = await h.db.selectFrom('webhook_endpoints').select(['secret', 'previous_secret']).where('id', '=', ep.id).executeTakeFirstOrThrow();
    // stored encrypted (docs/security.md "Secrets at rest"): opened with the configured key
    expect({ secret: openSecret(keyringFor(h.config), row.secret, webhookSecretAad(ep.id)), previous_secret: row.previous_secret }).toEqual({
      secret: 'b-rotation-errors-secret',
      previous_secret: null,
    });
    const now = await h.request('POST', path, { key: biz.sandbox, body: { secret: 'a-good-new-secret-1234', expirePreviousIn: 'PT0S' } });
    expect(now.status).toBe(200);
    expect(Date.parse(now.body.previousSecretExpiresAt)).toBeLessThanOrEqual(Date.now());
    const ok = { secret: 'another-good-secret-9999' };
    expect((await h.request('POST', path, { key: other.sandbox, body: ok })).status).toBe(404);
    expect((await h.request('POST', `/claim/v1/webhooks/${ep.id}/rotate-secret`, { key: biz.live, body: ok })).status).toBe(404);
    expect((await h.request('POST', path, { body: ok })).status).toBe(401);
    // a Surface C endpoint is not a Surface B endpoint
    const c = await h.request('POST', `${C}/webhooks`, { key: biz.sandbox, body: { url: 'https://example.com/c', events: ['*'] } });
    expect((await h.request('POST', `${B}/webhooks/${c.body.id}/rotate-secret`, { key: biz.sandbox, body: ok })).status).toBe(404);
  });
});

describe('Surface C: GET /events and /events/{id}', () => {
  it('lists exactly the envelopes Surface C endpoints receive, under its names; the exact signed body; errors and tenancy', async () => {
    const biz = await h.business();
    const other = await h.business();
    const rx = await receiver();
    const reg = await h.request('POST', `${C}/webhooks`, { key: biz.sandbox, body: { url: rx.url, events: ['*'] } });
    expect(reg.status).toBe(201);
    const created = await emitRaw(biz.id, 'payout.submitted', payout('submitted'));
    const notified = await emitRaw(biz.id, 'payout.notification_sent', payout('awaiting_claim'));
    await emitRaw(biz.id, 'payout.awaiting_claim', payout('awaiting_claim')); // not a Surface C event
    await emitRaw(biz.id, 'deposit.credited', deposit('credited')); // not a Surface C event
    const completed = await emitRaw(biz.id, 'payout.succeeded', payout('succeeded'));
    const refunded = await emitRaw(biz.id, 'payout.refunded', payout('refunded'));

    const all = await h.request('GET', `${C}/events`, { key: biz.sandbox });
    expect(all.status).toBe(200);
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.data.map((e: any) => [e.id, e.type, e.data.object.status])).toEqual([
      [refunded, 'payout.failed', 'failed'],
      [completed, 'payout.completed', 'completed'],
      [notified, 'payout.notification_sent', 'pending'],
      [created, 'payout.created', 'pending'],
    ]);
    const ids = async (q: string) => (await h.request('GET', `${C}/events?${q}`, { key: biz.sandbox })).body.data.map((e: any) => e.id);
    expect(await ids('type=payout.completed')).toEqual([completed]);
    expect(await ids('type=payout.failed')).toEqual([refunded]);
    expect(await ids('type=payout.*&limit=1')).toEqual([refunded]);
    expect(await ids(`created_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    const page = await h.request('GET', `${C}/events?limit=3`, { key: biz.sandbox });
    const page2 = await h.request('GET', `${C}/events?limit=3&cursor=${page.body.next_cursor}`, { key: biz.sandbox });
    expect(page2.body.data.map((e: any) => e.id)).toEqual([created]);

    const got = await waitFor(() => rx.received.find((r) => r.body.id === completed), 'C delivery');
    const one = await h.request('GET', `${C}/events/${completed}`, { key: biz.sandbox });
    expect(one.status).toBe(200);
    expect(JSON.stringify(one.body)).toBe(got.raw);
    expect(() => stripe.webhooks.signature!.verifyHeader(JSON.stringify(one.body), got.headers['service-signature'] as string, reg.body.secret)).not.toThrow();

    for (const [q, param] of [['type=disbursement.*', 'type'], ['type=payout.completed_x', 'type'], ['created_before=never', 'created_before'], ['cursor=zz', 'cursor']]) {
      const r = await h.request('GET', `${C}/events?${q}`, { key: biz.sandbox });
      expect(r.status, q).toBe(400);
      expect(r.body.error.code, q).toBe('validation_error');
      expect(r.body.error.param, q).toBe(param);
    }
    const aOnly = await h.request('GET', '/sandbox/v1/events?type=payout.awaiting_claim', { key: biz.sandbox });
    expect((await h.request('GET', `${C}/events/${aOnly.body.data[0].id}`, { key: biz.sandbox })).status).toBe(404);
    expect((await h.request('GET', `${C}/events/${completed}`, { key: other.sandbox })).status).toBe(404);
    expect((await h.request('GET', `/guide/v1/events/${completed}`, { key: biz.live })).status).toBe(404);
    expect((await h.request('GET', `${C}/events/${completed}`, { key: biz.live })).status).toBe(401);
    expect((await h.request('GET', `${C}/events`, {})).status).toBe(401);
    expect((await h.request('GET', `${C}/events`, { key: other.sandbox })).body.data).toEqual([]);
    await rx.close();
  });
});
