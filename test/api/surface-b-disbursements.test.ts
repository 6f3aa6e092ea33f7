/**
 * Surface B disbursements, recipients and sandbox funding through HTTP (spec "Surface B"): happy,
 * error and security parts per resource. The disbursement is the core claim-link payout: the real
 * payout workflow runs (worker on), the claim page is the core's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
let biz: { id: string; sandbox: string; live: string };
let other: { id: string; sandbox: string; live: string };
const B = '/sandbox/claim/v1';
const MX = '+525512345678';

beforeAll(async () => {
  h = await createHarness();
  biz = await h.business();
  other = await h.business();
  const f = await h.request('POST', `${B}/sandbox/fund`, { key: biz.sandbox, body: { amountUsd: '1000.00' } });
  expect(f.status).toBe(200);
});
afterAll(async () => h?.close());

const post = (path: string, body: unknown, key = biz.sandbox, headers?: Record<string, string>) => h.request('POST', `${B}${path}`, { key, body, headers });
const get = (path: string, key = biz.sandbox) => h.request('GET', `${B}${path}`, { key });
const del = (path: string, key = biz.sandbox) => h.request('DELETE', `${B}${path}`, { key });
const balance = async (key = biz.sandbox) => (await h.request('GET', '/sandbox/v1/balance', { key })).body;

async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const waitClaimUrl = (id: string) =>
  waitFor(async () => {
    const r = await get(`/disbursements/${id}`);
    return r.body.claimUrl ? (r.body as { claimUrl: string }) : undefined;
  }, 'claim url');
const waitStatus = (id: string, status: string) =>
  waitFor(async () => {
    const r = await get(`/disbursements/${id}`);
    return r.body.status === status ? r.body : undefined;
  }, `status ${status}`);

function expectError(r: { status: number; body: any; headers: Headers }, status: number, code: string, param?: string | null) {
  expect({ status: r.status, error: r.body?.error }).toEqual({ status, error: code });
  expect(typeof r.body.message).toBe('string');
  expect(r.body.details.requestId).toBe(r.headers.get('X-Request-ID'));
  if (param !== undefined) expect(r.body.details.param).toBe(param);
}

describe('POST /disbursements: happy', () => {
  it('creates a pending disbursement to a phone: amount + fees held, camelCase record, rate-limit headers', async () => {
    const before = await balance();
    const r = await post('/disbursements', { recipientPhone: MX, amountUsd: '40.00', currency: 'USD', reference: 'inv-1', note: 'Gracias' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: expect.stringMatching(/^po_/),
      status: 'pending',
      recipientPhone: MX,
      recipientEmail: null,
      amountUsd: '40.00',
      feeUsd: '0.65',
      currency: 'USD',
      reference: 'inv-1',
      note: 'Gracias',
      payoutMethod: null,
      deliveredAt: null,
    });
    expect([r.headers.get('X-RateLimit-Limit'), r.headers.get('X-RateLimit-Remaining')]).toEqual(['100', '99']);
    expect(Number(r.headers.get('X-RateLimit-Reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(Number((await balance()).available)).toBeCloseTo(Number(before.available) - 40.65, 6);
  });

  it('claim flow: opening the page and starting the claim -> claimed; choosing a method -> delivered', async () => {
    const r = await post('/disbursements', { recipientEmail: 'ana@example.com', amountUsd: '12.50' });
    expect(r.status).toBe(201);
    const { claimUrl } = await waitClaimUrl(r.body.id);
    const path = new URL(claimUrl).pathname;
    expect((await h.request('GET', path)).status).toBe(200);
    expect((await get(`/disbursements/${r.body.id}`)).body.status).toBe('pending');
    expect((await h.app.request(`${path}/start`, { method: 'POST' })).status).toBe(303);
    expect((await get(`/disbursements/${r.body.id}`)).body).toMatchObject({ status: 'claimed', claimedAt: expect.any(String) });
    const claim = await h.app.request(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'method=bank_transfer',
    });
    expect(claim.status).toBe(303);
    const done = await waitStatus(r.body.id, 'delivered');
    expect(done).toMatchObject({ payoutMethod: 'bank_transfer', deliveredAt: expect.any(String), recipientEmail: 'ana@example.com' });
  });

  it('idempotencyKey in the body: a replay returns the first disbursement; the header is accepted too', async () => {
    const body = { recipientPhone: MX, amountUsd: '5.00', idempotencyKey: 'idem-1' };
    const a = await post('/disbursements', body);
    const b = await post('/disbursements', body);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.id).toBe(a.body.id);
    expect(b.headers.get('Idempotent-Replayed')).toBe('true');
    const c1 = await post('/disbursements', { recipientPhone: MX, amountUsd: '6.00' }, biz.sandbox, { 'Idempotency-Key': 'hdr-1' });
    const c2 = await post('/disbursements', { recipientPhone: MX, amountUsd: '6.00' }, biz.sandbox, { 'Idempotency-Key': 'hdr-1' });
    expect(c2.body.id).toBe(c1.body.id);
  });
});

describe('GET /disbursements and /disbursements/:id', () => {
  it('lists newest first with status, reference filters and after-cursor paging', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await post('/disbursements', { recipientPhone: MX, amountUsd: '2.00', reference: 'list-ref' })).body.id);
    const page1 = await get('/disbursements?reference=list-ref&limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
    const page2 = await get(`/disbursements?reference=list-ref&limit=2&after=${page1.body.nextCursor}`);
    expect(page2.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    const delivered = await get('/disbursements?status=delivered');
    expect(delivered.body.data.every((d: { status: string }) => d.status === 'delivered')).toBe(true);
    expect((await get(`/disbursements/${ids[0]}`)).body).toMatchObject({ id: ids[0], reference: 'list-ref', amountUsd: '2.00' });
  });

  it('errors: unknown id 404 not_found, bad status 400, foreign cursor 400 (param after)', async () => {
    expectError(await get('/disbursements/po_nope'), 404, 'not_found', 'id');
    expectError(await get('/disbursements?status=lost'), 400, 'validation_error', 'status');
    expectError(await get('/disbursements?after=zzz'), 400, 'validation_error', 'after');
  });
});

describe('DELETE /disbursements/:id', () => {
  it('cancels a pending one: cancelled, funds returned', async () => {
    const before = await balance();
    const r = await post('/disbursements', { recipientPhone: MX, amountUsd: '10.00' });
    const c = await del(`/disbursements/${r.body.id}`);
    expect(c.status).toBe(200);
    expect(c.body.status).toBe('cancelled');
    expect((await balance()).available).toBe(before.available);
  });

  it('refuses a claimed one with disbursement_already_claimed, and the claim goes on', async () => {
    const r = await post('/disbursements', { recipientPhone: MX, amountUsd: '3.00' });
    const { claimUrl } = await waitClaimUrl(r.body.id);
    await h.app.request(`${new URL(claimUrl).pathname}/start`, { method: 'POST' });
    expectError(await del(`/disbursements/${r.body.id}`), 409, 'disbursement_already_claimed', 'id');
    expect((await get(`/disbursements/${r.body.id}`)).body.status).toBe('claimed');
  });

  it('a cancelled one cannot be claimed; a second DELETE returns it unchanged', async () => {
    const r = await post('/disbursements', { recipientPhone: MX, amountUsd: '3.00' });
    const { claimUrl } = await waitClaimUrl(r.body.id);
    expect((await del(`/disbursements/${r.body.id}`)).body.status).toBe('cancelled');
    await h.app.request(`${new URL(claimUrl).pathname}/start`, { method: 'POST' });
    expect((await get(`/disbursements/${r.body.id}`)).body.status).toBe('cancelled');
    expect((await del(`/disbursements/${r.body.id}`)).body.status).toBe('cancelled');
  });
});

describe('POST /disbursements: errors (nothing created)', () => {
  it('spec codes: invalid_phone 400, recipient_country_unsupported 422, amount_below_minimum 422, insufficient_balance 402', async () => {
    const count = async () => (await get('/disbursements?limit=200')).body.data.length;
    const n = await count();
    expectError(await post('/disbursements', { recipientPhone: '5512345678', amountUsd: '5.00' }), 400, 'invalid_phone', 'recipientPhone');
    expectError(await post('/disbursements', { recipientPhone: '+93701234567', amountUsd: '5.00' }), 422, 'recipient_country_unsupported', 'recipientPhone');
    expectError(await post('/disbursements', { recipientPhone: MX, amountUsd: '0.99' }), 422, 'amount_below_minimum', 'amountUsd');
    expectError(await post('/disbursements', { recipientPhone: MX, amountUsd: '1.001' }), 400, 'validation_error', 'amountUsd');
    expectError(await post('/disbursements', { recipientPhone: MX, amountUsd: '5.00', currency: 'EUR' }), 400, 'validation_error', 'currency');
    expectError(await post('/disbursements', { amountUsd: '5.00' }), 400, 'validation_error', 'recipientPhone');
    expectError(await post('/disbursements', { recipientPhone: MX, recipientEmail: 'a@b.co', amountUsd: '5.00' }), 400, 'validation_error', 'recipientPhone');
    expectError(await post('/disbursements', { recipientPhone: MX }), 400, 'validation_error', 'amountUsd');
    expectError(await post('/disbursements', { recipientPhone: MX, amountUsd: '20000.00' }), 402, 'insufficient_balance');
    expect(await count()).toBe(n);
  });

  it('idempotency_conflict: the same idempotencyKey with other parameters is 409', async () => {
    await post('/disbursements', { recipientPhone: MX, amountUsd: '4.00', idempotencyKey: 'conflict-1' });
    expectError(await post('/disbursements', { recipientPhone: MX, amountUsd: '4.01', idempotencyKey: 'conflict-1' }), 409, 'idempotency_conflict', 'idempotencyKey');
  });
});

describe('Surface B disbursements: security', () => {
  it('401 without a key, with a live key on the sandbox base, with an unknown key; X-Request-ID in details', async () => {
    const none = await h.request('GET', `${B}/disbursements`);
    expectError(none, 401, 'authentication_required');
    expectError(await get('/disbursements', biz.live), 401, 'environment_mismatch');
    expectError(await get('/disbursements', 'sk_test_nope'), 401, 'invalid_api_key');
    const mine = await h.request('GET', `${B}/disbursements`, { key: biz.sandbox, headers: { 'X-Request-ID': 'my-trace-1' } });
    expect(mine.headers.get('X-Request-ID')).toBe('my-trace-1');
  });

  it("another organisation's disbursement is a 404 for GET and DELETE, and not listed", async () => {
    const r = await post('/disbursements', { recipientPhone: MX, amountUsd: '2.00', reference: 'mine-only' });
    expectError(await get(`/disbursements/${r.body.id}`, other.sandbox), 404, 'not_found');
    expectError(await del(`/disbursements/${r.body.id}`, other.sandbox), 404, 'not_found');
    expect((await get('/disbursements?reference=mine-only', other.sandbox)).body.data).toEqual([]);
    // The live base is the other environment: the sandbox disbursement is not there either.
    expectError(await h.request('GET', `/claim/v1/disbursements/${r.body.id}`, { key: biz.live }), 404, 'not_found');
  });

  it('a Surface A payout that is not a claim link is not a Surface B disbursement', async () => {
    const a = await h.request('POST', '/sandbox/v1/payouts', {
      key: biz.sandbox,
      body: { channel: 'spei_mxn', recipient: { type: 'bank_account', holder_name: 'Ana', clabe: '002010077777777771', recipient_kind: 'individual' }, source_amount: '5' },
    });
    expect(a.status).toBe(201);
    expectError(await get(`/disbursements/${a.body.id}`), 404, 'not_found');
  });
});

describe('POST /sandbox/fund', () => {
  it('credits the sandbox balance (happy), refuses a bad amount (error), is a 404 on the live base (security)', async () => {
    const r = await post('/sandbox/fund', { amountUsd: '10.00' }, other.sandbox);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ availableUsd: '10.00', heldUsd: '0.00', currency: 'USD' });
    expectError(await post('/sandbox/fund', { amountUsd: 'ten' }, other.sandbox), 400, 'validation_error', 'amountUsd');
    expectError(await h.request('POST', '/claim/v1/sandbox/fund', { key: other.live, body: { amountUsd: '10.00' } }), 404, 'not_found');
    expectError(await post('/sandbox/fund', { amountUsd: '10.00' }, other.live), 401, 'environment_mismatch');
  });
});

describe('recipients', () => {
  it('happy: create, get by id, by phone (URL-encoded), by externalId, list', async () => {
    const r = await post('/recipients', { phone: MX, name: 'Ana López', externalId: 'cust-42', email: 'ana@example.com' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^rcp_/),
      phone: MX,
      email: 'ana@example.com',
      name: 'Ana López',
      externalId: 'cust-42',
      country: 'MX',
      createdAt: expect.any(String),
    });
    expect((await get(`/recipients/${r.body.id}`)).body.id).toBe(r.body.id);
    expect((await get(`/recipients/by-phone/${encodeURIComponent(MX)}`)).body.id).toBe(r.body.id);
    expect((await get('/recipients/by-external-id/cust-42')).body.id).toBe(r.body.id);
    const second = await post('/recipients', { email: 'second@example.com' });
    const list = await get('/recipients?limit=1');
    expect(list.body).toMatchObject({ data: [expect.objectContaining({ id: second.body.id })], nextCursor: expect.any(String) });
    const next = await get(`/recipients?limit=1&after=${list.body.nextCursor}`);
    expect(next.body.data[0].id).toBe(r.body.id);
  });

  it('errors: invalid_phone, duplicate externalId 409, unknown ids 404', async () => {
    expectError(await post('/recipients', { phone: '12345' }), 400, 'invalid_phone', 'phone');
    expectError(await post('/recipients', {}), 400, 'validation_error', 'phone');
    await post('/recipients', { email: 'x@example.com', externalId: 'dup-1' });
    expectError(await post('/recipients', { email: 'y@example.com', externalId: 'dup-1' }), 409, 'external_id_taken', 'externalId');
    expectError(await get('/recipients/rcp_nope'), 404, 'not_found');
    expectError(await get(`/recipients/by-phone/${encodeURIComponent('+525500000001')}`), 404, 'not_found');
    expectError(await get('/recipients/by-phone/5512'), 400, 'invalid_phone');
    expectError(await get('/recipients/by-external-id/nope'), 404, 'not_found');
  });

  it("security: another organisation's recipient is a 404 by id, phone and externalId; no key is 401", async () => {
    const r = await post('/recipients', { phone: '+525511112222', externalId: 'sec-1' });
    expectError(await get(`/recipients/${r.body.id}`, other.sandbox), 404, 'not_found');
    expectError(await get(`/recipients/by-phone/${encodeURIComponent('+525511112222')}`, other.sandbox), 404, 'not_found');
    expectError(await get('/recipients/by-external-id/sec-1', other.sandbox), 404, 'not_found');
    expectError(await h.request('POST', `${B}/recipients`, { body: { phone: MX } }), 401, 'authentication_required');
  });
});

describe('OpenAPI document', () => {
  it('serves Surface B at {base}/openapi.json with every operation, listed on /docs', async () => {
    const doc = await h.request('GET', `${B}/openapi.json`);
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/disbursements', '/disbursements/{id}', '/recipients', '/recipients/{id}', '/recipients/by-phone/{phone}', '/recipients/by-external-id/{externalId}', '/sandbox/fund']),
    );
    const docs = await h.request('GET', '/docs/init.js');
    expect(docs.text).toContain('/sandbox/claim/v1/openapi.json');
  });
});

describe('POST /disbursements: no maximum (spec "Limits": maximum single disbursement, no limit)', () => {
  it('accepts 100,000.00 USD on Surface B, while Surface A keeps the claim_link channel maximum', async () => {
    const rich = await h.business();
    expect((await h.request('POST', `${B}/sandbox/fund`, { key: rich.sandbox, body: { amountUsd: '120000.00' } })).status).toBe(200);
    const big = await post('/disbursements', { recipientPhone: MX, amountUsd: '100000.00', reference: 'big' }, rich.sandbox);
    expect(big.status, big.text).toBe(201);
    expect(big.body.amountUsd).toBe('100000.00');
    expect(big.body.status).toBe('pending');
    const a = await h.request('POST', '/sandbox/v1/payouts', {
      key: rich.sandbox,
      body: { channel: 'claim_link', recipient: { type: 'phone', number: MX }, source_amount: '100000' },
    });
    expect(a.status).toBe(400);
    expect(a.body.error.code).toBe('amount_out_of_range');
  });
});
