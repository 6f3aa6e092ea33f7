import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitLegacyEvent } from '../helpers/legacy-events';
import { newId } from '../../src/domain/ids';
import { createHarness, type Harness } from '../helpers/harness';
import { waitFor, webhookReceiver as receiver } from '../helpers/webhook-receiver';

/**
 * docs/webhooks.md: the events API, deliveries with their attempts, retry and the catch-up resend,
 * secret rotation, and DELETE on Surfaces B and C. Deliveries go through the real delivery
 * workflow (Temporal test server) to a local receiver; signatures are checked with the stripe
 * package's verifier. WEBHOOK_RETRY_INITIAL is one hour, so a failed first attempt is not retried
 * within the test: only a re-send delivers it.
 */

let h: Harness;
const stripe = new Stripe('sk_test_x');

beforeAll(async () => {
  h = await createHarness({ env: { WEBHOOK_RETRY_INITIAL: 'PT1H' } });
});
afterAll(async () => h?.close());


async function emit(businessId: string, type: string, environment: 'sandbox' | 'live' = 'sandbox'): Promise<string> {
  const objectId = newId('po');
  const id = await h.db.transaction().execute((tx) =>
    emitLegacyEvent(tx, {
      businessId,
      environment,
      type,
      objectType: type.split('.')[0],
      objectId,
      data: { id: objectId, object: 'payout', status: type.split('.')[1], amount: '12.50', currency: 'USDC', metadata: { b: 1, a: 'x' } },
      dedupeKey: `test:${objectId}:${randomBytes(4).toString('hex')}`,
    }),
  );
  if (!id) throw new Error('not emitted');
  return id;
}

const A = '/sandbox/v1';

async function register(key: string, url: string, events = ['payout.*']) {
  const r = await h.request('POST', `${A}/webhooks`, { key, body: { url, events } });
  expect(r.status).toBe(201);
  return r.body as { id: string; secret: string };
}

describe('GET /events and /events/{id}', () => {
  it('lists newest first, filters by type wildcard and time, and returns the exact signed envelope', async () => {
    const biz = await h.business();
    const rx = await receiver();
    const ep = await register(biz.sandbox, rx.url, ['*']);
    const e1 = await emit(biz.id, 'payout.submitted');
    const e2 = await emit(biz.id, 'payout.succeeded');
    const e3 = await emit(biz.id, 'deposit.credited');
    await emit(biz.id, 'deposit.received'); // Surface A is never sent the core's deposit.received

    const all = await h.request('GET', `${A}/events`, { key: biz.sandbox });
    expect(all.status).toBe(200);
    expect(all.body.data.map((e: any) => e.id)).toEqual([e3, e2, e1]);
    expect(all.body.data[0].type).toBe('deposit.received');
    expect(all.body.next_cursor).toBeNull();

    const page = await h.request('GET', `${A}/events?limit=2`, { key: biz.sandbox });
    expect(page.body.data.map((e: any) => e.id)).toEqual([e3, e2]);
    const page2 = await h.request('GET', `${A}/events?limit=2&cursor=${page.body.next_cursor}`, { key: biz.sandbox });
    expect(page2.body.data.map((e: any) => e.id)).toEqual([e1]);

    const payouts = await h.request('GET', `${A}/events?type=payout.*`, { key: biz.sandbox });
    expect(payouts.body.data.map((e: any) => e.id)).toEqual([e2, e1]);
    const exact = await h.request('GET', `${A}/events?type=payout.submitted`, { key: biz.sandbox });
    expect(exact.body.data.map((e: any) => e.id)).toEqual([e1]);

    const future = await h.request('GET', `${A}/events?created_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { key: biz.sandbox });
    expect(future.body.data).toEqual([]);
    const past = await h.request('GET', `${A}/events?created_before=2020-01-01T00:00:00Z`, { key: biz.sandbox });
    expect(past.body.data).toEqual([]);

    await waitFor(() => rx.received.find((r) => r.body.id === e2), 'delivery of e2');
    const delivered = rx.received.find((r) => r.body.id === e2)!;
    const one = await h.request('GET', `${A}/events/${e2}`, { key: biz.sandbox });
    expect(one.status).toBe(200);
    expect(JSON.stringify(one.body)).toBe(delivered.raw);
    expect(() => stripe.webhooks.signature!.verifyHeader(JSON.stringify(one.body), delivered.headers['service-signature'] as string, ep.secret)).not.toThrow();
    await rx.close();
  });

  it('events past the 30 days of retention are neither listed nor retrievable', async () => {
    const biz = await h.business();
    const old = await emit(biz.id, 'payout.succeeded');
    await h.db.updateTable('events').set({ created_at: new Date(Date.now() - 31 * 86_400_000) }).where('id', '=', old).execute();
    const list = await h.request('GET', `${A}/events`, { key: biz.sandbox });
    expect(list.body.data.map((e: any) => e.id)).not.toContain(old);
    expect((await h.request('GET', `${A}/events/${old}`, { key: biz.sandbox })).status).toBe(404);
  });

  it('errors name their param; other tenant and other environment are 404; no key is 401', async () => {
    const biz = await h.business();
    const other = await h.business();
    const e = await emit(biz.id, 'payout.succeeded');
    for (const [q, param] of [['type=payouts.x', 'type'], ['created_after=yesterday', 'created_after'], ['created_before=2026-13-45T00:00:00Z', 'created_before'], ['cursor=zz', 'cursor']]) {
      const r = await h.request('GET', `${A}/events?${q}`, { key: biz.sandbox });
      expect(r.status, q).toBe(400);
      expect(r.body.error.param, q).toBe(param);
    }
    expect((await h.request('GET', `${A}/events/${e}`, { key: other.sandbox })).status).toBe(404);
    expect((await h.request('GET', `/v1/events/${e}`, { key: biz.live })).status).toBe(404);
    expect((await h.request('GET', `${A}/events/${e}`, { key: biz.live })).status).toBe(401);
    expect((await h.request('GET', `${A}/events`, {})).status).toBe(401);
    const otherList = await h.request('GET', `${A}/events`, { key: other.sandbox });
    expect(otherList.body.data).toEqual([]);
  });
});

describe('deliveries, retry and the catch-up resend', () => {
  it('a receiver down for an hour gets every missed event after one catch-up call, original ids, valid signatures', async () => {
    const biz = await h.business();
    const rx = await receiver();
    const ep = await register(biz.sandbox, rx.url);
    const before = await emit(biz.id, 'payout.submitted');
    await waitFor(() => rx.received.some((r) => r.body.id === before && r.answered === 200), 'first delivery');

    rx.state.up = false; // the outage
    const missed: string[] = [];
    for (let i = 0; i < 5; i++) missed.push(await emit(biz.id, 'payout.succeeded'));
    await waitFor(() => missed.every((id) => rx.received.some((r) => r.body.id === id && r.answered === 503)), 'failed attempts');

    // The receiver answered before the activity recorded the attempt: wait for the rows too.
    const failedList = await waitFor(async () => {
      const l = await h.request('GET', `${A}/webhooks/${ep.id}/deliveries?status=pending`, { key: biz.sandbox });
      return l.status === 200 && l.body.data.length === 5 && l.body.data.every((d: any) => d.attempts.length === 1) ? l : null;
    }, 'the failed attempts recorded');
    expect(failedList.body.data.map((d: any) => d.event_id).sort()).toEqual([...missed].sort());
    const d0 = failedList.body.data[0];
    expect(d0).toMatchObject({ object: 'webhook_delivery', endpoint_id: ep.id, event_type: 'payout.succeeded', status: 'pending', completed_at: null });
    expect(d0.attempts).toHaveLength(1);
    expect(d0.attempts[0]).toMatchObject({ number: 1, http_status: 503, error: 'endpoint answered HTTP 503' });
    expect(typeof d0.attempts[0].duration_ms).toBe('number');
    expect(new Date(d0.attempts[0].attempted_at).toISOString()).toBe(d0.attempts[0].attempted_at);

    rx.state.up = true; // back up; the original retries are an hour away
    const start = new Date(Date.now() - 3600_000).toISOString();
    const body = { created_after: start };
    const r = await h.request('POST', `${A}/webhooks/${ep.id}/resend`, { key: biz.sandbox, body, headers: { 'Idempotency-Key': 'catch-up-1' } });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ object: 'webhook_resend', endpoint_id: ep.id, resent: 5, next_created_after: null });
    const replay = await h.request('POST', `${A}/webhooks/${ep.id}/resend`, { key: biz.sandbox, body, headers: { 'Idempotency-Key': 'catch-up-1' } });
    expect(replay.status).toBe(202);
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');

    await waitFor(() => missed.every((id) => rx.received.some((x) => x.body.id === id && x.answered === 200)), 'the catch-up');
    for (const id of missed) {
      const got = rx.received.filter((x) => x.body.id === id && x.answered === 200);
      expect(got).toHaveLength(1); // the replayed call did not send again
      expect(got[0].headers['service-event-id']).toBe(id);
      expect(() => stripe.webhooks.signature!.verifyHeader(got[0].raw, got[0].headers['service-signature'] as string, ep.secret)).not.toThrow();
    }
    // the event acknowledged before the outage was not re-sent
    expect(rx.received.filter((x) => x.body.id === before)).toHaveLength(1);

    const after = await waitFor(async () => {
      const l = await h.request('GET', `${A}/webhooks/${ep.id}/deliveries?status=succeeded`, { key: biz.sandbox });
      return l.body.data.length === 6 ? l : null;
    }, 'deliveries succeeded');
    const redelivered = after.body.data.find((d: any) => d.event_id === missed[0]);
    expect(redelivered.attempts.map((a: any) => [a.number, a.http_status])).toEqual([[1, 503], [2, 200]]);
    await rx.close();
  });

  it('retry re-sends one delivery (same event id), even a succeeded one; Idempotency-Key replays without sending', async () => {
    const biz = await h.business();
    const rx = await receiver();
    const ep = await register(biz.sandbox, rx.url);
    const e = await emit(biz.id, 'payout.succeeded');
    await waitFor(() => rx.received.length === 1, 'delivery');
    const list = await waitFor(async () => {
      const l = await h.request('GET', `${A}/webhooks/${ep.id}/deliveries`, { key: biz.sandbox });
      return l.body.data[0]?.status === 'succeeded' ? l : null;
    }, 'succeeded');
    const d = list.body.data[0];
    const path = `${A}/webhooks/${ep.id}/deliveries/${d.id}/retry`;
    const r = await h.request('POST', path, { key: biz.sandbox, headers: { 'Idempotency-Key': 'retry-1' } });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ id: d.id, event_id: e, status: 'pending' });
    await waitFor(() => rx.received.length === 2, 'the re-send');
    expect(rx.received[1].body.id).toBe(e);
    expect(rx.received[1].raw).toBe(rx.received[0].raw);
    const again = await h.request('POST', path, { key: biz.sandbox, headers: { 'Idempotency-Key': 'retry-1' } });
    expect(again.status).toBe(202);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');

    // errors and tenancy
    const other = await h.business();
    expect((await h.request('POST', path, { key: other.sandbox })).status).toBe(404);
    expect((await h.request('POST', path.replace('/sandbox/v1', '/v1'), { key: biz.live })).status).toBe(404);
    expect((await h.request('POST', path, {})).status).toBe(401);
    const missing = await h.request('POST', `${A}/webhooks/${ep.id}/deliveries/whd_nope/retry`, { key: biz.sandbox });
    expect(missing.status).toBe(404);
    expect(missing.body.error.param).toBe('delivery_id');
    const badStatus = await h.request('GET', `${A}/webhooks/${ep.id}/deliveries?status=lost`, { key: biz.sandbox });
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.error.param).toBe('status');
    const noRange = await h.request('POST', `${A}/webhooks/${ep.id}/resend`, { key: biz.sandbox, body: { created_after: 'soon' } });
    expect(noRange.status).toBe(400);
    expect(noRange.body.error.param).toBe('created_after');
    expect((await h.request('GET', `${A}/webhooks/${ep.id}/deliveries`, { key: other.sandbox })).status).toBe(404);
    await rx.close();
  });
});

describe('secret rotation', () => {
  it('during the overlap each delivery verifies with either secret; after it only with the new one', async () => {
    const biz = await h.business();
    const rx = await receiver();
    const ep = await register(biz.sandbox, rx.url);
    const r = await h.request('POST', `${A}/webhooks/${ep.id}/rotate-secret`, { key: biz.sandbox, body: { expire_previous_in: 'PT24H' }, headers: { 'Idempotency-Key': 'rot-1' } });
    expect(r.status).toBe(200);
    expect(r.body.secret).toMatch(/^whsec_/);
    expect(r.body.secret).not.toBe(ep.secret);
    expect(Date.parse(r.body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
    const replay = await h.request('POST', `${A}/webhooks/${ep.id}/rotate-secret`, { key: biz.sandbox, body: { expire_previous_in: 'PT24H' }, headers: { 'Idempotency-Key': 'rot-1' } });
    expect(replay.body.secret).toBeUndefined();
    expect(replay.headers.get('Secret-Omitted')).toBe('secret');

    const e1 = await emit(biz.id, 'payout.succeeded');
    const got1 = await waitFor(() => rx.received.find((x) => x.body.id === e1), 'delivery during overlap');
    const h1 = got1.headers['service-signature'] as string;
    expect(h1).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(() => stripe.webhooks.signature!.verifyHeader(got1.raw, h1, r.body.secret)).not.toThrow();
    expect(() => stripe.webhooks.signature!.verifyHeader(got1.raw, h1, ep.secret)).not.toThrow();
    expect(() => stripe.webhooks.signature!.verifyHeader(got1.raw, h1, 'whsec_other')).toThrow();

    // the overlap ends (as 24 hours later)
    await h.db.updateTable('webhook_endpoints').set({ previous_secret_expires_at: new Date(Date.now() - 1000) }).where('id', '=', ep.id).execute();
    const e2 = await emit(biz.id, 'payout.succeeded');
    const got2 = await waitFor(() => rx.received.find((x) => x.body.id === e2), 'delivery after overlap');
    const h2 = got2.headers['service-signature'] as string;
    expect(h2).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(() => stripe.webhooks.signature!.verifyHeader(got2.raw, h2, r.body.secret)).not.toThrow();
    expect(() => stripe.webhooks.signature!.verifyHeader(got2.raw, h2, ep.secret)).toThrow();
    await rx.close();
  });

  it('400 on a bad or too long overlap; 404 for another tenant, another environment; 401 without a key', async () => {
    const biz = await h.business();
    const other = await h.business();
    const ep = await register(biz.sandbox, 'https://example.com/rot');
    const path = `${A}/webhooks/${ep.id}/rotate-secret`;
    for (const v of ['P8D', 'tomorrow', '-PT1H']) {
      const r = await h.request('POST', path, { key: biz.sandbox, body: { expire_previous_in: v } });
      expect(r.status, v).toBe(400);
      expect(r.body.error.param, v).toBe('expire_previous_in');
    }
    expect((await h.request('POST', path, { key: biz.sandbox, body: { expire_previous_in: 'P7D' } })).status).toBe(200);
    expect((await h.request('POST', path, { key: biz.sandbox })).status).toBe(200);
    expect((await h.request('POST', path, { key: other.sandbox, body: {} })).status).toBe(404);
    expect((await h.request('POST', path.replace('/sandbox/v1', '/v1'), { key: biz.live, body: {} })).status).toBe(404);
    expect((await h.request('POST', path, { body: {} })).status).toBe(401);
  });
});

describe('Surface C: deliveries, retry and rotation in its own names', () => {
  it('lists deliveries under Surface C event names, retries one, rotates with two signatures', async () => {
    const biz = await h.business();
    const other = await h.business();
    const rx = await receiver();
    const C = '/sandbox/guide/v1';
    const reg = await h.request('POST', `${C}/webhooks`, { key: biz.sandbox, body: { url: rx.url, events: ['*'] } });
    expect(reg.status).toBe(201);
    const rot = await h.request('POST', `${C}/webhooks/${reg.body.id}/rotate-secret`, { key: biz.sandbox, body: {} });
    expect(rot.status).toBe(200);
    const e = await emit(biz.id, 'payout.succeeded');
    const got = await waitFor(() => rx.received.find((x) => x.body.id === e), 'C delivery');
    expect(got.body.type).toBe('payout.completed');
    for (const secret of [reg.body.secret, rot.body.secret]) {
      expect(() => stripe.webhooks.signature!.verifyHeader(got.raw, got.headers['service-signature'] as string, secret)).not.toThrow();
    }
    const list = await waitFor(async () => {
      const l = await h.request('GET', `${C}/webhooks/${reg.body.id}/deliveries?status=succeeded`, { key: biz.sandbox });
      return l.body.data.length === 1 ? l : null;
    }, 'C delivery succeeded');
    expect(list.body.data[0]).toMatchObject({ event_id: e, event_type: 'payout.completed', status: 'succeeded' });
    const retry = await h.request('POST', `${C}/webhooks/${reg.body.id}/deliveries/${list.body.data[0].id}/retry`, { key: biz.sandbox });
    expect(retry.status).toBe(202);
    await waitFor(() => rx.received.filter((x) => x.body.id === e).length === 2, 'C re-send');
    expect((await h.request('GET', `${C}/webhooks/${reg.body.id}/deliveries`, { key: other.sandbox })).status).toBe(404);
    expect((await h.request('GET', `${A}/webhooks/${reg.body.id}/deliveries`, { key: biz.sandbox })).status).toBe(404); // not a Surface A endpoint
    await rx.close();
  });
});

describe('Surface B: deliveries and retry in camelCase', () => {
  it('lists deliveries with attempts and re-sends one with the same event id and a valid sha256 signature', async () => {
    const biz = await h.business();
    const other = await h.business();
    const rx = await receiver();
    const B = '/sandbox/claim/v1';
    const secret = 'a-long-enough-secret-for-b';
    const reg = await h.request('POST', `${B}/webhooks`, { key: biz.sandbox, body: { url: rx.url, events: ['*'], secret } });
    expect(reg.status).toBe(201);
    const e = await emit(biz.id, 'deposit.credited');
    await waitFor(() => rx.received.length === 1, 'B delivery');
    const list = await waitFor(async () => {
      const l = await h.request('GET', `${B}/webhooks/${reg.body.id}/deliveries`, { key: biz.sandbox });
      return l.body.data[0]?.status === 'succeeded' ? l : null;
    }, 'B delivery succeeded');
    expect(list.body.nextCursor).toBeNull();
    expect(list.body.data[0]).toMatchObject({ eventId: e, eventType: 'deposit.credited', endpointId: reg.body.id });
    expect(list.body.data[0].attempts[0]).toMatchObject({ number: 1, httpStatus: 200, error: null });
    const retry = await h.request('POST', `${B}/webhooks/${reg.body.id}/deliveries/${list.body.data[0].id}/retry`, { key: biz.sandbox, body: { idempotencyKey: 'b-retry-1' } });
    expect(retry.status).toBe(202);
    expect(retry.body.status).toBe('pending');
    await waitFor(() => rx.received.length === 2, 'B re-send');
    expect(rx.received[1].raw).toBe(rx.received[0].raw);
    const { verifySurfaceB } = await import('../../src/core/webhook-signature');
    expect(verifySurfaceB(secret, rx.received[1].raw, rx.received[1].headers['x-service-signature'] as string)).toBe(true);
    expect((await h.request('GET', `${B}/webhooks/${reg.body.id}/deliveries`, { key: other.sandbox })).status).toBe(404);
    expect((await h.request('GET', `${B}/webhooks/${reg.body.id}/deliveries?status=x`, { key: biz.sandbox })).status).toBe(400);
    await rx.close();
  });
});

describe('DELETE /webhooks/{id} on Surfaces B and C', () => {
  it('B: 204, then nothing more is sent with its secret; 404 again, for another tenant and on live', async () => {
    const biz = await h.business();
    const other = await h.business();
    const rx = await receiver();
    const reg = await h.request('POST', '/sandbox/claim/v1/webhooks', { key: biz.sandbox, body: { url: rx.url, events: ['*'], secret: 'a-long-enough-secret-for-b' } });
    expect(reg.status).toBe(201);
    const path = `/sandbox/claim/v1/webhooks/${reg.body.id}`;
    expect((await h.request('DELETE', path, { key: other.sandbox })).status).toBe(404);
    expect((await h.request('DELETE', `/claim/v1/webhooks/${reg.body.id}`, { key: biz.live })).status).toBe(404);
    expect((await h.request('DELETE', path, {})).status).toBe(401);
    const del = await h.request('DELETE', path, { key: biz.sandbox });
    expect(del.status).toBe(204);
    const again = await h.request('DELETE', path, { key: biz.sandbox });
    expect(again.status).toBe(404);
    const e = await emit(biz.id, 'deposit.credited'); // a Surface B event type
    await waitFor(async () => (await h.db.selectFrom('events').select('dispatched_at').where('id', '=', e).executeTakeFirst())?.dispatched_at, 'dispatch');
    expect(rx.received).toHaveLength(0);
    await rx.close();
  });

  it('C: a pending delivery is given up at its next attempt once the endpoint is deleted', async () => {
    const biz = await h.business();
    const other = await h.business();
    const rx = await receiver();
    rx.state.up = false;
    const reg = await h.request('POST', '/sandbox/guide/v1/webhooks', { key: biz.sandbox, body: { url: rx.url, events: ['*'] } });
    expect(reg.status).toBe(201);
    const e = await emit(biz.id, 'payout.succeeded');
    await waitFor(() => rx.received.length === 1, 'failed first attempt');
    const path = `/sandbox/guide/v1/webhooks/${reg.body.id}`;
    expect((await h.request('DELETE', path, { key: other.sandbox })).status).toBe(404);
    expect((await h.request('DELETE', `/guide/v1/webhooks/${reg.body.id}`, { key: biz.live })).status).toBe(404);
    expect((await h.request('DELETE', path, {})).status).toBe(401);
    expect((await h.request('DELETE', path, { key: biz.sandbox })).status).toBe(204);
    const list = await h.request('GET', '/sandbox/guide/v1/webhooks', { key: biz.sandbox });
    expect(list.body.data.map((w: any) => w.id)).not.toContain(reg.body.id);
    // Make the pending delivery attempt now (a re-send run): the endpoint check stops it unsent.
    const d = await h.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', e).executeTakeFirstOrThrow();
    const { attemptWebhookDelivery } = await import('../../src/core/webhooks');
    rx.state.up = true;
    expect(await attemptWebhookDelivery(h.core, d.id, 2)).toEqual({ result: 'endpoint_deleted' });
    expect(rx.received).toHaveLength(1);
    const row = await h.db.selectFrom('webhook_deliveries').select('status').where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('failed');
    await rx.close();
  });
});
