import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

/** Surface C payment links: POST /payment-links, GET /payment-links/{id} over the payment links core. */
let h: Harness;
type Biz = { id: string; sandbox: string; live: string };
let biz: Biz;
let other: Biz;
const C = '/sandbox/guide/v1';

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
  other = await h.business();
});
afterAll(async () => h?.close());

const create = (body: unknown, key = biz.sandbox, headers?: Record<string, string>) => h.request('POST', `${C}/payment-links`, { key, body, headers });

describe('Surface C payment links: happy', () => {
  it('201 with the public url and methods; GET returns it; bank_transfer is ready once the business has a virtual account', async () => {
    const r = await create({ name: 'Invoices', methods: ['bank_transfer', 'card'] });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ object: 'payment_link', name: 'Invoices', published: true, methods: [{ type: 'bank_transfer', ready: false }, { type: 'card', ready: false }] });
    expect(r.body.id).toMatch(/^plink_/);
    expect(r.body.url).toMatch(/\/pay\/[\w-]{20,}$/);
    const g = await h.request('GET', `${C}/payment-links/${r.body.id}`, { key: biz.sandbox });
    expect(g.status).toBe(200);
    expect(g.body).toEqual(r.body);
    expect((await h.request('POST', '/sandbox/v1/virtual-accounts', { key: biz.sandbox, body: { currency: 'EUR' } })).status).toBe(201);
    const ready = await h.request('GET', `${C}/payment-links/${r.body.id}`, { key: biz.sandbox });
    expect(ready.body.methods[0]).toEqual({ type: 'bank_transfer', ready: true });
  });

  it('published false is kept; the same Idempotency-Key replays the link', async () => {
    const a = await create({ name: 'Draft', methods: ['crypto'], published: false }, biz.sandbox, { 'Idempotency-Key': 'pl-1' });
    const b = await create({ name: 'Draft', methods: ['crypto'], published: false }, biz.sandbox, { 'Idempotency-Key': 'pl-1' });
    expect(a.status).toBe(201);
    expect(a.body.published).toBe(false);
    expect(b.body.id).toBe(a.body.id);
  });
});

describe('Surface C payment links: errors', () => {
  it('400 validation_error naming name, methods, methods.<i>; 404 for an unknown id', async () => {
    expect((await create({ methods: ['card'] })).body.error).toMatchObject({ code: 'validation_error', param: 'name' });
    expect((await create({ name: 'x', methods: [] })).body.error).toMatchObject({ code: 'validation_error', param: 'methods' });
    expect((await create({ name: 'x', methods: ['card', 'cash'] })).body.error).toMatchObject({ code: 'validation_error', param: 'methods.1' });
    const nf = await h.request('GET', `${C}/payment-links/plink_nope`, { key: biz.sandbox });
    expect(nf.status).toBe(404);
    expect(nf.body.error).toMatchObject({ code: 'not_found', param: 'id' });
  });
});

describe('Surface C payment links: security', () => {
  it("401 without a key or with the other environment's key; another business's link is a 404", async () => {
    expect((await h.request('POST', `${C}/payment-links`, { body: { name: 'x', methods: ['card'] } })).status).toBe(401);
    expect((await create({ name: 'x', methods: ['card'] }, biz.live)).body.error.code).toBe('environment_mismatch');
    const mine = await create({ name: 'Mine', methods: ['card'] });
    expect((await h.request('GET', `${C}/payment-links/${mine.body.id}`, { key: other.sandbox })).status).toBe(404);
    expect((await h.request('GET', `/guide/v1/payment-links/${mine.body.id}`, { key: biz.live })).status).toBe(404);
  });
});
