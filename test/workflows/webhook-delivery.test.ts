import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify as verifyOctokit } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitLegacyEvent } from '../helpers/legacy-events';
import { signSurfaceA, signSurfaceB, verifySurfaceA, verifySurfaceB } from '../../src/core/webhook-signature';
import { surfaceARetrySchedule } from '../../src/domain/webhook-events';
import { newId } from '../../src/domain/ids';
import { freePort } from '../../src/temporal/dev-server';
import { webhookDeliveryStatusQuery } from '../../workflows/webhook-delivery.contract';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
const stripe = new Stripe('sk_test_x');

beforeAll(async () => {
  h = await createHarness({ env: { WEBHOOK_RETRY_INITIAL: 'PT0.2S' } });
});
afterAll(async () => h?.close());

/** One request a receiver got, and what it answered. */
interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
  answered: number;
}

/** A local HTTP receiver on 127.0.0.1; `answer(n)` gives the status of the n-th request (0-based). */
async function receiver(answer: (n: number) => number = () => 200, port = 0) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const status = answer(received.length);
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      received.push({ headers: req.headers, raw, body, answered: status });
      res.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    /** Requests answered 2xx, per event id. */
    acked: (eventId: string) => received.filter((r) => r.body?.id === eventId && r.answered < 300).length,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Polls `fn` every 50 ms until it returns something truthy, which it resolves to. */
async function waitFor<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function register(key: string, url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const r = await h.request('POST', '/sandbox/v1/webhooks', { key, body: { url, events } });
  expect(r.status).toBe(201);
  return r.body;
}

/** Emits one outbox event in a transaction, as a projection change would; returns its id. */
async function emit(businessId: string, type: string, data: Record<string, unknown> = {}): Promise<string> {
  const objectId = newId('po');
  const id = await h.db.transaction().execute((tx) =>
    emitLegacyEvent(tx, {
      businessId,
      environment: 'sandbox',
      type,
      objectType: type.split('.')[0],
      objectId,
      data: { id: objectId, status: type.split('.')[1], ...data },
      dedupeKey: `test:${objectId}:${type}:${randomBytes(4).toString('hex')}`,
    }),
  );
  if (!id) throw new Error('event not emitted');
  return id;
}

const deliveriesOf = (eventId: string) =>
  h.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).execute();
const attemptsOf = (deliveryId: string) =>
  h.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('number').execute();

describe('delivery (spec "Events", Surface A)', () => {
  it('POSTs the signed Surface A envelope; the signature verifies with the stripe package; tampering fails', async () => {
    const biz = await h.business();
    const rx = await receiver();
    const ep = await register(biz.sandbox, rx.url, ['payout.succeeded']);
    const eventId = await emit(biz.id, 'payout.succeeded', { amount: '12.50', currency: 'USDC' });

    await waitFor(() => rx.received.length === 1, 'the delivery');
    const got = rx.received[0];
    const evt = await h.db.selectFrom('events').selectAll().where('id', '=', eventId).executeTakeFirstOrThrow();
    expect(got.body).toEqual({
      id: eventId,
      type: 'payout.succeeded',
      created_at: new Date(evt.created_at as any).toISOString(),
      data: { object: { id: evt.object_id, status: 'succeeded', amount: '12.50', currency: 'USDC' } },
    });
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('payouts-webhooks/1.0');
    expect(got.headers['service-event-id']).toBe(eventId);

    const header = got.headers['service-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const t = Number(/^t=(\d+)/.exec(header)![1]);
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(60);
    expect(() => stripe.webhooks.signature!.verifyHeader(got.raw, header, ep.secret)).not.toThrow();
    expect(() => stripe.webhooks.signature!.verifyHeader(got.raw.replace('12.50', '99.50'), header, ep.secret)).toThrow();
    expect(() => stripe.webhooks.signature!.verifyHeader(got.raw, header, 'whsec_wrong')).toThrow();
    expect(verifySurfaceA(ep.secret, got.raw, header)).toBe(true);

    const [d] = await waitFor(async () => {
      const ds = await deliveriesOf(eventId);
      return ds.length === 1 && ds[0].status === 'succeeded' ? ds : null;
    }, 'the delivery row to succeed');
    expect(d).toMatchObject({ endpoint_id: ep.id, attempt_count: 1, last_status_code: 200 });
    expect(d.completed_at).toBeInstanceOf(Date);
    const attempts = await attemptsOf(d.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ number: 1, status_code: 200, error: null });

    // The workflow is findable by the delivery id and answers its status query.
    const handle = h.core.temporal.workflow.getHandle(d.id);
    expect(await handle.result()).toMatchObject({ deliveryId: d.id, status: 'succeeded' });
    expect(await handle.query(webhookDeliveryStatusQuery)).toMatchObject({ status: 'succeeded' });
    await rx.close();
  });

  it('a payout.* endpoint receives payout events only, and only its own business and environment', async () => {
    const biz = await h.business();
    const other = await h.business();
    const rx = await receiver();
    const ep = await register(biz.sandbox, rx.url, ['payout.*']);
    const submitted = await emit(biz.id, 'payout.submitted');
    const launched = await emit(biz.id, 'disbursement.launched');
    const failed = await emit(biz.id, 'payout.failed');
    const foreign = await emit(other.id, 'payout.succeeded');

    await waitFor(() => rx.acked(submitted) === 1 && rx.acked(failed) === 1, 'both payout events');
    await waitFor(async () => {
      const pending = await h.db
        .selectFrom('events')
        .select('id')
        .where('id', 'in', [launched, foreign])
        .where('dispatched_at', 'is', null)
        .execute();
      return pending.length === 0;
    }, 'every event to be dispatched');
    await sleep(500);
    expect(rx.received.map((r) => r.body.type).sort()).toEqual(['payout.failed', 'payout.submitted']);
    expect(await deliveriesOf(launched)).toHaveLength(0);
    expect(await deliveriesOf(foreign)).toHaveLength(0);
    const ds = await h.db.selectFrom('webhook_deliveries').select('event_id').where('endpoint_id', '=', ep.id).execute();
    expect(ds.map((d) => d.event_id).sort()).toEqual([failed, submitted].sort());
    await rx.close();
  });

  it('retries a failing receiver with backoff; after recovery each event arrives exactly once, attempts recorded', async () => {
    const biz = await h.business();
    const rx = await receiver((n) => (n < 4 ? 500 : 200));
    await register(biz.sandbox, rx.url, ['*']);
    const a = await emit(biz.id, 'payout.submitted');
    // The core's deposit.credited is Surface A's deposit.received (src/domain/webhook-events.ts); the
    // core's own deposit.received is never sent to Surface A.
    const b = await emit(biz.id, 'deposit.credited', { amount: '100.00' });

    await waitFor(() => rx.acked(a) === 1 && rx.acked(b) === 1, 'both events acknowledged', 30_000);
    const failures = rx.received.filter((r) => r.answered === 500);
    expect(failures.length).toBe(4);

    for (const eventId of [a, b]) {
      const [d] = await waitFor(async () => {
        const ds = await deliveriesOf(eventId);
        return ds[0]?.status === 'succeeded' ? ds : null;
      }, 'the delivery to succeed');
      const attempts = await attemptsOf(d.id);
      const sent = rx.received.filter((r) => r.body.id === eventId);
      expect(attempts.map((x) => x.status_code)).toEqual(sent.map((r) => r.answered));
      expect(attempts.map((x) => x.number)).toEqual(sent.map((_, i) => i + 1));
      expect(attempts.at(-1)).toMatchObject({ status_code: 200, error: null });
      for (const x of attempts.slice(0, -1)) expect(x.error).toMatch(/HTTP 500/);
      expect(d.attempt_count).toBe(attempts.length);
      expect(d.last_status_code).toBe(200);
    }

    // Nothing is sent again after a 2xx.
    const count = rx.received.length;
    await sleep(1500);
    expect(rx.received.length).toBe(count);
    expect(rx.acked(a)).toBe(1);
    expect(rx.acked(b)).toBe(1);
    await rx.close();
  });

  it('retries while the receiver is down (connection refused), then delivers once it is up', async () => {
    const biz = await h.business();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hooks`;
    await register(biz.sandbox, url, ['payout.claimed']);
    const eventId = await emit(biz.id, 'payout.claimed');

    const [d] = await waitFor(async () => {
      const ds = await deliveriesOf(eventId);
      if (ds.length !== 1) return null;
      return (await attemptsOf(ds[0].id)).length >= 2 ? ds : null;
    }, 'two refused attempts');
    const refused = await attemptsOf(d.id);
    for (const x of refused) {
      expect(x.status_code).toBeNull();
      expect(x.error).toMatch(/unreachable/);
      expect(x.error).toMatch(/ECONNREFUSED/);
    }

    const rx = await receiver(() => 200, port);
    await waitFor(() => rx.acked(eventId) === 1, 'the delivery after recovery', 30_000);
    await waitFor(async () => (await deliveriesOf(eventId))[0].status === 'succeeded', 'the delivery row to succeed');
    await sleep(1000);
    expect(rx.received).toHaveLength(1);
    const attempts = await attemptsOf(d.id);
    expect(attempts.at(-1)!.status_code).toBe(200);
    expect(attempts.filter((x) => x.status_code === 200)).toHaveLength(1);
    await rx.close();
  });

  it('gives a delivery up when its endpoint is deleted while it is being retried', async () => {
    const biz = await h.business();
    const rx = await receiver(() => 503);
    const ep = await register(biz.sandbox, rx.url, ['payout.refunded']);
    const eventId = await emit(biz.id, 'payout.refunded');
    await waitFor(() => rx.received.length >= 1, 'a first attempt');
    const del = await h.request('DELETE', `/sandbox/v1/webhooks/${ep.id}`, { key: biz.sandbox });
    expect(del.status).toBe(204);
    const [d] = await waitFor(async () => {
      const ds = await deliveriesOf(eventId);
      return ds[0]?.status === 'failed' ? ds : null;
    }, 'the delivery to be given up');
    const result = await h.core.temporal.workflow.getHandle(d.id).result();
    expect(result).toMatchObject({ status: 'failed', reason: 'endpoint deleted' });
    const n = rx.received.length;
    await sleep(800);
    expect(rx.received.length).toBe(n);
    await rx.close();
  });

  it('marks the delivery failed when the retry window is spent (workflow with a short window)', async () => {
    const biz = await h.business();
    const rx = await receiver(() => 500);
    const ep = await register(biz.sandbox, rx.url, ['deposit.received']);
    // An event the relay does not dispatch (already marked), delivered by a workflow we start.
    const { eventId, deliveryId } = await h.db.transaction().execute(async (tx) => {
      const eventId = (await emitLegacyEvent(tx, {
        businessId: biz.id,
        environment: 'sandbox',
        type: 'deposit.received',
        objectType: 'deposit',
        objectId: 'dep_1',
        data: { id: 'dep_1', status: 'received' },
        dedupeKey: `test:window:${randomBytes(4).toString('hex')}`,
      }))!;
      await tx.updateTable('events').set({ dispatched_at: new Date() }).where('id', '=', eventId).execute();
      const deliveryId = newId('whd');
      await tx
        .insertInto('webhook_deliveries')
        .values({ id: deliveryId, business_id: biz.id, environment: 'sandbox', event_id: eventId, endpoint_id: ep.id, status: 'pending', attempt_count: 0, last_status_code: null, completed_at: null })
        .execute();
      return { eventId, deliveryId };
    });
    const handle = await h.core.temporal.workflow.start('webhookDeliveryWorkflow', {
      workflowId: deliveryId,
      taskQueue: h.config.TASK_QUEUE,
      args: [{ deliveryId, schedule: { ...surfaceARetrySchedule(200), windowMs: 2000, attemptTimeoutMs: 1000 } }],
    });
    await waitFor(() => rx.received.length >= 1, 'a first attempt');
    expect(await handle.query(webhookDeliveryStatusQuery)).toMatchObject({ deliveryId, status: 'delivering' });
    const result: any = await handle.result();
    expect(result.status).toBe('failed');
    expect(result.reason).toBeTruthy();
    const [d] = await deliveriesOf(eventId);
    expect(d.status).toBe('failed');
    expect(d.completed_at).toBeInstanceOf(Date);
    expect(d.last_status_code).toBe(500);
    const attempts = await attemptsOf(deliveryId);
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts.every((x) => x.status_code === 500)).toBe(true);
    await rx.close();
  });
});

describe('signatures', () => {
  it('Surface B sha256=<hex> verifies with @octokit/webhooks-methods; tampering fails', async () => {
    const secret = 'shh-surface-b';
    const body = JSON.stringify({ id: 'evt_1', type: 'disbursement.delivered', createdAt: '2025-01-01T00:00:00.000Z', data: { id: 'd_1' } });
    const sig = signSurfaceB(secret, body);
    expect(sig).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verifyOctokit(secret, body, sig)).toBe(true);
    expect(await verifyOctokit(secret, `${body} `, sig)).toBe(false);
    expect(await verifyOctokit('other', body, sig)).toBe(false);
    expect(verifySurfaceB(secret, body, sig)).toBe(true);
    expect(verifySurfaceB(secret, `${body} `, sig)).toBe(false);
  });

  it('Surface A: our verifier rejects timestamps older than five minutes, like stripe', () => {
    const secret = 'whsec_test';
    const body = '{"id":"evt_1"}';
    const now = Math.floor(Date.now() / 1000);
    const old = signSurfaceA(secret, body, now - 301);
    expect(verifySurfaceA(secret, body, old, { now })).toBe(false);
    expect(() => stripe.webhooks.signature!.verifyHeader(body, old, secret)).toThrow(/tolerance/i);
    const fresh = signSurfaceA(secret, body, now - 10);
    expect(verifySurfaceA(secret, body, fresh, { now })).toBe(true);
    expect(() => stripe.webhooks.signature!.verifyHeader(body, fresh, secret)).not.toThrow();
  });
});
