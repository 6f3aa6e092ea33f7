import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

/** Surface C recipients: POST /recipients {phone_number, email, country} -> {id, object, ...}; GET /recipients/{id}. */
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

const create = (body: unknown, key = biz.sandbox, headers?: Record<string, string>) => h.request('POST', `${C}/recipients`, { key, body, headers });

describe('POST /recipients, GET /recipients/{id}: happy', () => {
  it('201 with id and object "recipient", the country taken from the phone number; GET returns the same record', async () => {
    const r = await create({ phone_number: '+525512345678', email: 'ana@example.com' });
    expect(r.status).toBe(201);
    expect(r.body.id).toMatch(/^rcp_/);
    expect(r.body).toEqual({
      id: r.body.id,
      object: 'recipient',
      phone_number: '+525512345678',
      email: 'ana@example.com',
      country: 'MX',
      name: null,
      external_id: null,
      created_at: r.body.created_at,
    });
    const g = await h.request('GET', `${C}/recipients/${r.body.id}`, { key: biz.sandbox });
    expect(g.status).toBe(200);
    expect(g.body).toEqual(r.body);
  });

  it('accepts an e-mail-only recipient with a country, a name and an external_id', async () => {
    const r = await create({ email: 'joao@example.com', country: 'br', name: 'João', external_id: 'emp-7' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ object: 'recipient', phone_number: null, email: 'joao@example.com', country: 'BR', name: 'João', external_id: 'emp-7' });
  });

  it('replays the first response for the same Idempotency-Key and body', async () => {
    const a = await create({ phone_number: '+5511987654321' }, biz.sandbox, { 'Idempotency-Key': 'rc-1' });
    const b = await create({ phone_number: '+5511987654321' }, biz.sandbox, { 'Idempotency-Key': 'rc-1' });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.id).toBe(a.body.id);
    expect(b.headers.get('Idempotent-Replayed')).toBe('true');
  });
});

describe('POST /recipients, GET /recipients/{id}: errors (Surface A error body)', () => {
  it('400 invalid_phone param phone_number for a number that is not E.164', async () => {
    const r = await create({ phone_number: '5512345678' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_phone', param: 'phone_number' });
    expect(typeof r.body.error.request_id).toBe('string');
    expect(r.body.error.message).toMatch(/^phone_number/);
  });

  it('400 validation_error when neither phone_number nor email is given, for a bad email and a country that is not the phone\'s', async () => {
    const none = await create({ country: 'MX' });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ code: 'validation_error', param: 'phone_number' });
    const email = await create({ email: 'not-an-email' });
    expect(email.body.error).toMatchObject({ code: 'validation_error', param: 'email' });
    const country = await create({ phone_number: '+525512345678', country: 'BR' });
    expect(country.body.error).toMatchObject({ code: 'validation_error', param: 'country' });
  });

  it('409 external_id_taken param external_id; 409 idempotency_conflict for another body with the same key', async () => {
    expect((await create({ email: 'a@example.com', external_id: 'dup-1' })).status).toBe(201);
    const dup = await create({ email: 'b@example.com', external_id: 'dup-1' });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'external_id_taken', param: 'external_id' });
    await create({ email: 'k@example.com' }, biz.sandbox, { 'Idempotency-Key': 'rc-2' });
    const conflict = await create({ email: 'other@example.com' }, biz.sandbox, { 'Idempotency-Key': 'rc-2' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('idempotency_conflict');
  });

  it('404 not_found for an unknown id', async () => {
    const r = await h.request('GET', `${C}/recipients/rcp_nope`, { key: biz.sandbox });
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 'not_found', param: 'id' });
  });
});

describe('POST /recipients, GET /recipients/{id}: security', () => {
  it('401 without a key, with a live key on the sandbox base and a sandbox key on the live base', async () => {
    expect((await h.request('POST', `${C}/recipients`, { body: { email: 'a@example.com' } })).body.error.code).toBe('authentication_required');
    const live = await create({ email: 'a@example.com' }, biz.live);
    expect(live.status).toBe(401);
    expect(live.body.error.code).toBe('environment_mismatch');
    const onLive = await h.request('GET', '/guide/v1/recipients/rcp_x', { key: biz.sandbox });
    expect(onLive.status).toBe(401);
    expect(onLive.body.error.code).toBe('environment_mismatch');
  });

  it("another business's recipient is a 404, and so is a sandbox recipient read with the live key on the live base", async () => {
    const mine = await create({ email: 'mine@example.com' });
    const theirs = await h.request('GET', `${C}/recipients/${mine.body.id}`, { key: other.sandbox });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('not_found');
    const live = await h.request('GET', `/guide/v1/recipients/${mine.body.id}`, { key: biz.live });
    expect(live.status).toBe(404);
  });
});
