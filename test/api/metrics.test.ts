import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_LABELS } from '../../src/core/metrics/registry';
import { createHarness, type Harness } from '../helpers/harness';
import { parsePrometheus, sumOf, type Sample } from '../helpers/prometheus';

/**
 * `GET /metrics` on the API (docs/operations.md): Prometheus text, the documented metric names and
 * label sets (never an id or an amount), counters that move with payouts and webhook deliveries,
 * and the disbursement in-flight gauge counted in the database at scrape time.
 */
let h: Harness;
let receiver: Server;
let hookUrl: string;
beforeAll(async () => {
  h = await createHarness();
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(req.url === '/fail' ? 500 : 200).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  receiver?.close();
  await h?.close();
});

async function scrape(harness: Harness = h, headers: Record<string, string> = {}): Promise<Sample[]> {
  const res = await harness.app.request('/metrics', { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return parsePrometheus(await res.text());
}

async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const usdc = (amount: string, reference?: string) => ({
  channel: 'service_user_usdc',
  recipient: { type: 'service_user', handle: '@maria' },
  source_amount: amount,
  ...(reference ? { reference } : {}),
});

describe('GET /metrics happy path', () => {
  it('serves every documented metric with exactly its documented labels', async () => {
    const samples = await scrape();
    const res = await h.app.request('/metrics');
    const text = await res.text();
    for (const name of Object.keys(METRIC_LABELS)) expect(text).toContain(`# TYPE ${name} `);
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
    // The gauge is always present for both environments and both statuses.
    for (const environment of ['sandbox', 'live']) {
      for (const status of ['pending', 'processing']) {
        expect(samples.some((s) => s.name === 'disbursement_items_in_flight' && s.labels.environment === environment && s.labels.status === status)).toBe(true);
      }
    }
  });

  it('payouts_created_total and payouts_finished_total move by channel and final status after payouts', async () => {
    const b = await h.business();
    expect((await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '100' } })).status).toBe(200);
    const before = await scrape();
    const ok = await h.request('POST', '/sandbox/v1/payouts', { key: b.sandbox, body: usdc('5') });
    const declined = await h.request('POST', '/sandbox/v1/payouts', { key: b.sandbox, body: usdc('3', 'sandbox:provider_declined') });
    expect(ok.status).toBe(201);
    expect(declined.status).toBe(201);
    const created = await scrape();
    const sel = { channel: 'service_user_usdc', environment: 'sandbox' };
    expect(sumOf(created, 'payouts_created_total', sel) - sumOf(before, 'payouts_created_total', sel)).toBe(2);
    for (const [id, status] of [[ok.body.id, 'succeeded'], [declined.body.id, 'failed']]) {
      await waitFor(async () => (await h.request('GET', `/sandbox/v1/payouts/${id}`, { key: b.sandbox })).body.status === status, `${id} ${status}`);
    }
    const after = await scrape();
    const delta = (status: string) =>
      sumOf(after, 'payouts_finished_total', { ...sel, status }) - sumOf(before, 'payouts_finished_total', { ...sel, status });
    expect(delta('succeeded')).toBe(1);
    expect(delta('failed')).toBe(1);
    expect(delta('canceled')).toBe(0);
  });

  it('http_request_duration_seconds is labelled by route template and status, never the raw path', async () => {
    const b = await h.business();
    const missing = await h.request('GET', '/sandbox/v1/payouts/po_doesnotexist123', { key: b.sandbox });
    expect(missing.status).toBe(404);
    await h.request('GET', '/sandbox/v1/payouts?limit=1', { key: b.sandbox });
    const unauth = await h.request('GET', '/sandbox/v1/payouts/po_other');
    expect(unauth.status).toBe(401);
    await h.request('GET', '/no/such/path/po_123');
    const samples = await scrape();
    const counts = samples.filter((s) => s.name === 'http_request_duration_seconds_count');
    const has = (route: string, status: string) => counts.some((s) => s.labels.route === route && s.labels.status === status && s.labels.method === 'GET');
    expect(has('/sandbox/v1/payouts/:id', '404')).toBe(true);
    expect(has('/sandbox/v1/payouts/:id', '401')).toBe(true);
    expect(has('/sandbox/v1/payouts', '200')).toBe(true);
    expect(has('unmatched', '404')).toBe(true);
    expect(counts.some((s) => s.labels.route === '/sandbox/v1/payouts' && s.labels.method === 'POST' && s.labels.status === '201')).toBe(true);
  });

  it('webhook_delivery_attempts_total counts attempts by outcome', async () => {
    const b = await h.business();
    expect((await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '10' } })).status).toBe(200);
    for (const path of ['/ok', '/fail']) {
      const w = await h.request('POST', '/sandbox/v1/webhooks', { key: b.sandbox, body: { url: `${hookUrl}${path}`, events: ['payout.*'] } });
      expect(w.status).toBe(201);
    }
    const before = await scrape();
    expect((await h.request('POST', '/sandbox/v1/payouts', { key: b.sandbox, body: usdc('1') })).status).toBe(201);
    const moved = (s: Sample[], outcome: string) => sumOf(s, 'webhook_delivery_attempts_total', { outcome }) - sumOf(before, 'webhook_delivery_attempts_total', { outcome });
    await waitFor(async () => {
      const s = await scrape();
      return moved(s, 'succeeded') >= 1 && moved(s, 'http_error') >= 1;
    }, 'a succeeded and an http_error attempt');
  });

  it('disbursement_items_in_flight counts launched items not yet final, at scrape time', async () => {
    // Its own harness without a worker: launched items stay pending, so the count is stable.
    const h2 = await createHarness({ worker: false });
    try {
      const b = await h2.business({ approvalsRequired: 0 });
      expect((await h2.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '100' } })).status).toBe(200);
      const sel = { environment: 'sandbox', status: 'pending' };
      expect(sumOf(await scrape(h2), 'disbursement_items_in_flight', sel)).toBe(0);
      const items = [1, 2, 3].map((i) => ({ channel: 'service_user_usdc', source_amount: '2', recipient: { type: 'service_user', handle: `@user${i}` } }));
      const d = await h2.request('POST', '/sandbox/v1/disbursements', { key: b.sandbox, body: { name: 'Metrics', items } });
      expect(d.status).toBe(201);
      expect(sumOf(await scrape(h2), 'disbursement_items_in_flight', sel)).toBe(0);
      const launched = await h2.request('POST', `/sandbox/v1/disbursements/${d.body.id}/launch`, { key: b.sandbox });
      expect(launched.status, launched.text).toBe(200);
      const s = await scrape(h2);
      expect(sumOf(s, 'disbursement_items_in_flight', sel)).toBe(3);
      expect(sumOf(s, 'disbursement_items_in_flight', { environment: 'live' })).toBe(0);
    } finally {
      await h2.close();
    }
  });
});

describe('GET /metrics outbox backlog', () => {
  it('outbox_backlog and outbox_oldest_seconds count events not yet dispatched and starts not yet made, at scrape time', async () => {
    // No worker and no relay: the events a payout writes stay undispatched.
    const h2 = await createHarness({ worker: false });
    try {
      const empty = await scrape(h2);
      expect(sumOf(empty, 'outbox_backlog', { outbox: 'events' })).toBe(0);
      expect(sumOf(empty, 'outbox_oldest_seconds', { outbox: 'events' })).toBe(0);
      const b = await h2.business();
      expect((await h2.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '10' } })).status).toBe(200);
      expect((await h2.request('POST', '/sandbox/v1/payouts', { key: b.sandbox, body: usdc('1') })).status).toBe(201);
      const waiting = Number((await h2.db.selectFrom('events').select((eb) => eb.fn.countAll<string>().as('n')).where('dispatched_at', 'is', null).executeTakeFirstOrThrow()).n);
      expect(waiting).toBeGreaterThan(0);
      // A start recorded and not made (its API process died after the commit): the relay's work.
      // First let the API's own mark land (it is batched a few ms after the start), or it would
      // set started_at again after this update.
      for (let i = 0; ; i++) {
        const unmarked = await h2.db.selectFrom('workflow_starts').select('workflow_id').where('started_at', 'is', null).execute();
        if (unmarked.length === 0) break;
        if (i > 300) throw new Error('the workflow start was never marked');
        await new Promise((r) => setTimeout(r, 20));
      }
      await h2.db.updateTable('workflow_starts').set({ started_at: null, created_at: new Date(Date.now() - 120_000) }).execute();
      const s = await scrape(h2);
      expect(sumOf(s, 'outbox_backlog', { outbox: 'events' })).toBe(waiting);
      expect(sumOf(s, 'outbox_backlog', { outbox: 'workflow_starts' })).toBeGreaterThan(0);
      expect(sumOf(s, 'outbox_oldest_seconds', { outbox: 'workflow_starts' })).toBeGreaterThanOrEqual(119);
    } finally {
      await h2.close();
    }
  });
});

describe('GET /metrics errors', () => {
  it('a database that cannot answer fails the scrape (500), it does not serve a stale gauge', async () => {
    const h3 = await createHarness({ worker: false });
    await h3.db.destroy().catch(() => {});
    const res = await h3.app.request('/metrics');
    expect(res.status).toBe(500);
    // close() destroys the database again; that is harmless.
    await h3.close().catch(() => {});
  });
});

describe('GET /metrics security', () => {
  it('no label value carries an id or an amount, and label sets are exactly the documented ones', async () => {
    const samples = await scrape();
    for (const s of samples) {
      for (const [label, v] of Object.entries(s.labels)) {
        if (label === 'le') continue; // histogram bucket bound
        expect(v).not.toMatch(/^(po|biz|key|evt|dsb|rcp|qt|req|whe|del)_[A-Za-z0-9]/);
        expect(v).not.toMatch(/\/(po|dsb|rcp|whe)_/);
        expect(v).not.toMatch(/^\d+\.\d+$/);
      }
      const base = s.name.replace(/_(bucket|sum|count)$/, '');
      const documented = (METRIC_LABELS as Record<string, readonly string[]>)[base];
      if (documented) {
        const names = Object.keys(s.labels).filter((l) => l !== 'le');
        expect(names.sort()).toEqual([...documented].sort());
      }
    }
  });

  it('needs no business key; with METRICS_TOKEN set it needs that bearer token (401 otherwise)', async () => {
    const token = 'metrics-token-0123456789';
    const h4 = await createHarness({ worker: false, env: { METRICS_TOKEN: token } });
    try {
      const b = await h4.business();
      for (const auth of [undefined, `Bearer ${b.sandbox}`, 'Bearer metrics-token-012345678X']) {
        const res = await h4.request('GET', '/metrics', { headers: auth ? { Authorization: auth } : {} });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('authentication_required');
      }
      await scrape(h4, { Authorization: `Bearer ${token}` });
    } finally {
      await h4.close();
    }
  });
});
