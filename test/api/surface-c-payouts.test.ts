import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * Surface C payouts (POST /payouts, POST /payouts/batch, GET /payouts, GET /payouts/{id}) and the
 * sandbox notification log (GET /sandbox/notifications): a payout with a delivery channel is a
 * claim-link payout whose recipient is notified by the payout workflow.
 */
let h: Harness;
type Biz = { id: string; sandbox: string; live: string };
let biz: Biz;
let other: Biz;
const C = '/sandbox/guide/v1';

async function newBiz(fund = '1000'): Promise<Biz> {
  const b = await h.business();
  await h.db.updateTable('businesses').set({ name: 'Acme Ltd' }).where('id', '=', b.id).execute();
  if (fund !== '0') {
    const r = await h.request('POST', `${C}/sandbox/fund`, { key: b.sandbox, body: { amount: fund } });
    expect(r.status).toBe(200);
  }
  return b;
}

beforeAll(async () => {
  h = await createHarness();
  biz = await newBiz();
  other = await newBiz();
});
afterAll(async () => h?.close());

const post = (body: unknown, key = biz.sandbox, headers?: Record<string, string>) => h.request('POST', `${C}/payouts`, { key, body, headers });
const batch = (payouts: unknown[], key = biz.sandbox, headers?: Record<string, string>) =>
  h.request('POST', `${C}/payouts/batch`, { key, body: { payouts }, headers });
const get = (id: string, key = biz.sandbox) => h.request('GET', `${C}/payouts/${id}`, { key });
const payoutCount = async (b: Biz) => (await h.db.selectFrom('payouts').select('id').where('business_id', '=', b.id).execute()).length;

async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function recipient(body: Record<string, unknown>, key = biz.sandbox): Promise<string> {
  const r = await h.request('POST', `${C}/recipients`, { key, body });
  expect(r.status).toBe(201);
  return r.body.id;
}

describe('Surface C payouts: happy', () => {
  it('POST /payouts with a delivery channel: 201 pending with a pending notification; the recipient is then notified in Spanish', async () => {
    const rid = await recipient({ phone_number: '+525512345678' });
    const r = await post({ recipient_id: rid, amount: '25', currency: 'USD', delivery_channel: 'whatsapp', destination: '+525512345678', notification: { send: true, language: 'es' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      object: 'payout',
      status: 'pending',
      amount: '25.00',
      currency: 'USD',
      recipient_id: rid,
      recipient: { type: 'phone', phone_number: '+525512345678', email: null },
      delivery_channel: 'whatsapp',
      notification: { channel: 'whatsapp', destination: '+52••••••5678', language: 'es', status: 'pending', sent_at: null, error: null },
      payout_method: null,
      failure: null,
      completed_at: null,
    });
    expect(r.body.id).toMatch(/^po_/);
    expect(r.body.fees.currency).toBe('USDC');

    const sent = await waitFor(async () => {
      const g = await get(r.body.id);
      return g.body.notification.status === 'sent' && g.body;
    }, 'notification sent');
    expect(sent.status).toBe('pending');
    expect(new Date(sent.notification.sent_at).toISOString()).toBe(sent.notification.sent_at);
    expect(sent.claim_url).toMatch(/\/c\/[A-Za-z0-9_-]+$/);

    const log = await h.request('GET', `${C}/sandbox/notifications?payout_id=${r.body.id}`, { key: biz.sandbox });
    expect(log.status).toBe(200);
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({
      object: 'sandbox_notification',
      payout_id: r.body.id,
      channel: 'whatsapp',
      destination: '+525512345678',
      language: 'es',
      subject: null,
      claim_url: sent.claim_url,
    });
    expect(log.body.data[0].body).toContain(`Acme Ltd te envió 25,00 USD. Elige cómo recibirlo aquí: ${sent.claim_url}`);
  });

  it('email recipient with delivery_channel email: destination defaults to the e-mail; the message has a subject (English by default)', async () => {
    const r = await post({ email: 'ana@example.com', amount: '10.50', currency: 'usd', delivery_channel: 'email' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ recipient_id: null, recipient: { type: 'email', email: 'ana@example.com' }, notification: { channel: 'email', destination: 'a•••@example.com', language: 'en' } });
    const msg = await waitFor(async () => {
      const log = await h.request('GET', `${C}/sandbox/notifications?payout_id=${r.body.id}`, { key: biz.sandbox });
      return log.body.data[0];
    }, 'message recorded');
    expect(msg).toMatchObject({ destination: 'ana@example.com', language: 'en', subject: 'Acme Ltd sent you 10.50 USD' });
  });

  it('the recipient\'s country picks the language when none is given (pt for a Brazilian phone); notification.send false sends nothing', async () => {
    const rid = await recipient({ phone_number: '+5511987654321', email: 'joao@example.com' });
    const pt = await post({ recipient_id: rid, amount: '5', currency: 'USD', delivery_channel: 'sms' });
    expect(pt.status).toBe(201);
    expect(pt.body.notification).toMatchObject({ channel: 'sms', language: 'pt', destination: '+55•••••••4321' });

    const silent = await post({ recipient_id: rid, amount: '5', currency: 'USD', delivery_channel: 'sms', notification: { send: false } });
    expect(silent.status).toBe(201);
    expect(silent.body.notification).toBeNull();
    expect(silent.body.delivery_channel).toBeNull();
    await waitFor(async () => (await get(silent.body.id)).body.claim_url !== null, 'claim link open');
    const log = await h.request('GET', `${C}/sandbox/notifications?payout_id=${silent.body.id}`, { key: biz.sandbox });
    expect(log.body.data).toEqual([]);
  });

  it('POST /payouts/batch creates every payout, in order; the same Idempotency-Key replays them', async () => {
    const body = [
      { email: 'one@example.com', amount: '1', currency: 'USD', delivery_channel: 'email' },
      { destination: '+525512345678', amount: '2', currency: 'USD', delivery_channel: 'whatsapp', notification: { language: 'es-MX' } },
    ];
    const r = await batch(body, biz.sandbox, { 'Idempotency-Key': 'batch-1' });
    expect(r.status).toBe(201);
    expect(r.body.data.map((p: any) => [p.amount, p.delivery_channel, p.notification.language])).toEqual([
      ['1.00', 'email', 'en'],
      ['2.00', 'whatsapp', 'es'],
    ]);
    const again = await batch(body, biz.sandbox, { 'Idempotency-Key': 'batch-1' });
    expect(again.status).toBe(201);
    expect(again.body.data.map((p: any) => p.id)).toEqual(r.body.data.map((p: any) => p.id));
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
  });

  it('POST /payouts with the same Idempotency-Key returns the same payout', async () => {
    const body = { email: 'idem@example.com', amount: '3', currency: 'USD' };
    const a = await post(body, biz.sandbox, { 'Idempotency-Key': 'po-c-1' });
    const b = await post(body, biz.sandbox, { 'Idempotency-Key': 'po-c-1' });
    expect(a.status).toBe(201);
    expect(b.body.id).toBe(a.body.id);
    expect(a.body.notification).toBeNull();
  });

  it('GET /payouts lists newest first with cursor paging and filters by Surface C status', async () => {
    const b = await newBiz();
    const ids: string[] = [];
    for (const amount of ['1', '2', '3']) ids.push((await post({ email: 'x@example.com', amount, currency: 'USD' }, b.sandbox)).body.id);
    const p1 = await h.request('GET', `${C}/payouts?limit=2`, { key: b.sandbox });
    expect(p1.status).toBe(200);
    expect(p1.body.data.map((p: any) => p.id)).toEqual([ids[2], ids[1]]);
    expect(p1.body.next_cursor).toEqual(expect.any(String));
    const p2 = await h.request('GET', `${C}/payouts?limit=2&cursor=${p1.body.next_cursor}`, { key: b.sandbox });
    expect(p2.body.data.map((p: any) => p.id)).toEqual([ids[0]]);
    expect(p2.body.next_cursor).toBeNull();
    const pending = await h.request('GET', `${C}/payouts?status=pending`, { key: b.sandbox });
    expect(pending.body.data.map((p: any) => p.id)).toEqual([ids[2], ids[1], ids[0]]);
    const completed = await h.request('GET', `${C}/payouts?status=completed`, { key: b.sandbox });
    expect(completed.body.data).toEqual([]);
    const bad = await h.request('GET', `${C}/payouts?status=awaiting_claim`, { key: b.sandbox });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_error', param: 'status' });
  });
});

describe('Surface C payouts: errors', () => {
  const expectError = (r: { status: number; body: any }, status: number, code: string, param: string | null) => {
    expect(r.status).toBe(status);
    expect(r.body.error).toMatchObject({ code, param });
    expect(typeof r.body.error.message).toBe('string');
    expect(typeof r.body.error.request_id).toBe('string');
  };

  it('400 validation_error naming the Surface C field', async () => {
    const before = await payoutCount(biz);
    expectError(await post({ email: 'a@example.com', amount: '10', currency: 'EUR' }), 400, 'validation_error', 'currency');
    expectError(await post({ email: 'a@example.com', amount: '10.123', currency: 'USD' }), 400, 'validation_error', 'amount');
    expectError(await post({ email: 'a@example.com', currency: 'USD' }), 400, 'validation_error', 'amount');
    expectError(await post({ recipient_id: 'rcp_x', email: 'a@example.com', amount: '10', currency: 'USD' }), 400, 'validation_error', 'email');
    expectError(await post({ email: 'a@example.com', amount: '10', currency: 'USD', destination: '+525512345678' }), 400, 'validation_error', 'delivery_channel');
    expectError(await post({ email: 'a@example.com', amount: '10', currency: 'USD', delivery_channel: 'whatsapp' }), 400, 'validation_error', 'destination');
    expectError(await post({ email: 'a@example.com', amount: '10', currency: 'USD', delivery_channel: 'sms', destination: '12345' }), 400, 'validation_error', 'destination');
    expectError(await post({ email: 'a@example.com', amount: '10', currency: 'USD', delivery_channel: 'pigeon' }), 400, 'validation_error', 'delivery_channel');
    expectError(await post({ amount: '10', currency: 'USD' }), 400, 'validation_error', 'recipient_id');
    expectError(await post({ email: 'not-an-email', amount: '10', currency: 'USD' }), 400, 'validation_error', 'email');
    expectError(await post({ email: 'a@example.com', amount: '0.50', currency: 'USD' }), 400, 'amount_out_of_range', 'amount');
    expect(await payoutCount(biz)).toBe(before);
  });

  it('404 not_found param recipient_id for an unknown recipient', async () => {
    expectError(await post({ recipient_id: 'rcp_unknown', amount: '10', currency: 'USD' }), 404, 'not_found', 'recipient_id');
  });

  it('402 insufficient_balance when the balance does not cover the payout; nothing is created', async () => {
    const poor = await newBiz('5');
    expectError(await post({ email: 'a@example.com', amount: '10', currency: 'USD', delivery_channel: 'email' }, poor.sandbox), 402, 'insufficient_balance', null);
    expect(await payoutCount(poor)).toBe(0);
    expect(await h.db.selectFrom('notifications').select('id').where('business_id', '=', poor.id).execute()).toEqual([]);
  });

  it('batch: one bad entry refuses the whole batch (param payouts.<i>.<field>); a balance short of the batch refuses it too', async () => {
    const b = await newBiz('12');
    const good = { email: 'a@example.com', amount: '5', currency: 'USD' };
    expectError(await batch([good, { ...good, delivery_channel: 'sms', destination: 'nope' }], b.sandbox), 400, 'validation_error', 'payouts.1.destination');
    expectError(await batch([good, { ...good, amount: '5.001' }], b.sandbox), 400, 'validation_error', 'payouts.1.amount');
    expectError(await batch([good, { ...good, email: 'bad' }], b.sandbox), 400, 'validation_error', 'payouts.1.email');
    expectError(await batch([good, good, good], b.sandbox), 402, 'insufficient_balance', null);
    expect(await payoutCount(b)).toBe(0);
    const balance = await h.request('GET', '/sandbox/v1/balance', { key: b.sandbox });
    expect(balance.body).toMatchObject({ available: '12.00', held: '0.00' });
  });

  it('batch: 400 param payouts when empty or over 100 entries', async () => {
    expectError(await batch([]), 400, 'validation_error', 'payouts');
    const many = Array.from({ length: 101 }, () => ({ email: 'a@example.com', amount: '1', currency: 'USD' }));
    expectError(await batch(many), 400, 'validation_error', 'payouts');
  });

  it('404 for an unknown payout id; 409 idempotency_conflict for another body under the same key', async () => {
    expectError(await get('po_unknown'), 404, 'not_found', 'id');
    await post({ email: 'k@example.com', amount: '1', currency: 'USD' }, biz.sandbox, { 'Idempotency-Key': 'po-c-2' });
    expectError(await post({ email: 'k@example.com', amount: '2', currency: 'USD' }, biz.sandbox, { 'Idempotency-Key': 'po-c-2' }), 409, 'idempotency_conflict', 'Idempotency-Key');
  });
});

describe('Surface C payouts: security', () => {
  it('401 without a key and with the other environment\'s key', async () => {
    const none = await h.request('POST', `${C}/payouts`, { body: { email: 'a@example.com', amount: '1', currency: 'USD' } });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('authentication_required');
    const live = await post({ email: 'a@example.com', amount: '1', currency: 'USD' }, biz.live);
    expect(live.status).toBe(401);
    expect(live.body.error.code).toBe('environment_mismatch');
    expect((await h.request('GET', '/guide/v1/payouts', { key: biz.sandbox })).status).toBe(401);
  });

  it("another business's payout and recipient are 404s; its payouts are not listed and its messages are not readable", async () => {
    const rid = await recipient({ email: 'theirs@example.com' }, other.sandbox);
    const theirs = await post({ recipient_id: rid, amount: '1', currency: 'USD', delivery_channel: 'email' }, other.sandbox);
    expect(theirs.status).toBe(201);
    expect((await get(theirs.body.id)).status).toBe(404);
    const viaRecipient = await post({ recipient_id: rid, amount: '1', currency: 'USD' });
    expect(viaRecipient.status).toBe(404);
    expect(viaRecipient.body.error.param).toBe('recipient_id');
    const list = await h.request('GET', `${C}/payouts?limit=200`, { key: biz.sandbox });
    expect(list.body.data.map((p: any) => p.id)).not.toContain(theirs.body.id);
    await waitFor(async () => (await get(theirs.body.id, other.sandbox)).body.notification.status === 'sent', 'their notification');
    const log = await h.request('GET', `${C}/sandbox/notifications?payout_id=${theirs.body.id}`, { key: biz.sandbox });
    expect(log.body.data).toEqual([]);
  });

  it('live: the sandbox extensions are 404s and a payout is refused (no live claim-link rail): 400 channel_unavailable', async () => {
    const log = await h.request('GET', '/guide/v1/sandbox/notifications', { key: biz.live });
    expect(log.status).toBe(404);
    expect(log.body.error.code).toBe('not_found');
    const r = await h.request('POST', '/guide/v1/payouts', { key: biz.live, body: { email: 'a@example.com', amount: '1', currency: 'USD', delivery_channel: 'email' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'channel_unavailable', param: null });
  });
});
