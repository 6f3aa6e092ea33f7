import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchWebhookEvents } from '../../src/core/webhooks';
import { surfaceCEnvelope } from '../../src/wire/surface-c-envelope';
import { createHarness, type Harness } from '../helpers/harness';

/** Surface C webhook endpoints: POST /webhooks {url, events}, GET /webhooks; Surface C event names. */
let h: Harness;
let biz: { id: string; sandbox: string; live: string };
let other: { id: string; sandbox: string; live: string };
const C = '/sandbox/guide/v1';

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
  other = await h.business();
});
afterAll(async () => h?.close());

const create = (body: unknown, key = biz.sandbox) => h.request('POST', `${C}/webhooks`, { key, body });

describe('Surface C webhooks: happy', () => {
  it('201 with the secret once; GET lists Surface C endpoints only, without secrets', async () => {
    const a = await h.request('POST', '/sandbox/v1/webhooks', { key: biz.sandbox, body: { url: 'https://example.com/a', events: ['payout.*'] } });
    expect(a.status).toBe(201);
    const r = await create({ url: 'https://example.com/c', events: ['payout.created', 'payout.notification_sent', 'payout.completed', 'payout.failed'] });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ object: 'webhook_endpoint', url: 'https://example.com/c' });
    expect(r.body.secret).toMatch(/^whsec_/);
    const list = await h.request('GET', `${C}/webhooks`, { key: biz.sandbox });
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: any) => e.id)).toEqual([r.body.id]);
    expect(list.body.next_cursor).toBeNull();
    expect(list.text).not.toContain('whsec_');
  });

  it('accepts the wildcards payout.* and *', async () => {
    expect((await create({ url: 'https://example.com/w', events: ['payout.*'] })).status).toBe(201);
    expect((await create({ url: 'https://example.com/all', events: ['*'] })).status).toBe(201);
  });

  it('a Surface C endpoint gets payout.submitted as payout.created in the Surface C envelope; refunds and failures as payout.failed', async () => {
    expect(surfaceCEnvelope({ id: 'evt_1', type: 'payout.submitted', createdAt: new Date('2026-01-01T00:00:00Z'), object: null, data: { id: 'po_1', status: 'submitted' } })).toEqual({
      id: 'evt_1',
      type: 'payout.created',
      created_at: '2026-01-01T00:00:00.000Z',
      data: { object: { id: 'po_1', object: 'payout', status: 'pending' } },
    });
    expect(surfaceCEnvelope({ id: 'e', type: 'payout.refunded', createdAt: new Date(), object: null, data: { id: 'po_1', status: 'refunded' } })?.type).toBe('payout.failed');
    expect(surfaceCEnvelope({ id: 'e', type: 'payout.claimed', createdAt: new Date(), object: null, data: { id: 'po_1', status: 'claimed' } })).toBeNull();

    const b = await h.business();
    const c = await create({ url: 'https://example.com/only-created', events: ['payout.created'] }, b.sandbox);
    const a = await h.request('POST', '/sandbox/v1/webhooks', { key: b.sandbox, body: { url: 'https://example.com/a-only', events: ['payout.submitted'] } });
    await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '10' } });
    const p = await h.request('POST', `${C}/payouts`, { key: b.sandbox, body: { email: 'a@example.com', amount: '2', currency: 'USD' } });
    expect(p.status).toBe(201);
    while ((await dispatchWebhookEvents(h.core)) > 0);
    const deliveries = await h.db.selectFrom('webhook_deliveries').select(['endpoint_id']).where('business_id', '=', b.id).execute();
    expect(deliveries.map((d) => d.endpoint_id).sort()).toEqual([a.body.id, c.body.id].sort());
  });
});

describe('Surface C webhooks: errors', () => {
  it('400 param events.<i> for Surface A names and unknown names; 400 url for a non-https address', async () => {
    const a = await create({ url: 'https://example.com/h', events: ['payout.created', 'payout.succeeded'] });
    expect(a.status).toBe(400);
    expect(a.body.error).toMatchObject({ code: 'validation_error', param: 'events.1' });
    expect(a.body.error.message).toContain('payout.completed');
    expect((await create({ url: 'https://example.com/h', events: ['deposit.*'] })).body.error.param).toBe('events.0');
    expect((await create({ url: 'https://example.com/h', events: [] })).body.error.param).toBe('events');
    expect((await create({ url: 'ftp://example.com/h', events: ['*'] })).body.error.param).toBe('url');
  });
});

describe('Surface C webhooks: security', () => {
  it('401 without a key or with the other environment\'s key; another business does not see the endpoints', async () => {
    expect((await h.request('GET', `${C}/webhooks`)).status).toBe(401);
    const live = await create({ url: 'https://example.com/h', events: ['*'] }, biz.live);
    expect(live.status).toBe(401);
    expect(live.body.error.code).toBe('environment_mismatch');
    const list = await h.request('GET', `${C}/webhooks`, { key: other.sandbox });
    expect(list.body.data).toEqual([]);
    const liveHttp = await h.request('POST', '/guide/v1/webhooks', { key: biz.live, body: { url: 'http://localhost:9/h', events: ['*'] } });
    expect(liveHttp.status).toBe(400);
    expect(liveHttp.body.error.param).toBe('url');
  });
});
