import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/context';
import { receiveDeposit } from '../../src/core/funding/deposits';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';
type Biz = { id: string; sandbox: string; live: string };
const inOneHour = () => new Date(Date.now() + 3600_000).toISOString();
const caller = (b: Biz): Caller => ({ businessId: b.id, environment: 'sandbox', keyId: 'key_test', role: 'owner', policy: null });

async function setup(currency = 'USD'): Promise<{ b: Biz; va: any; link: any }> {
  const b = await h.business();
  const va = (await h.request('POST', `${A}/virtual-accounts`, { key: b.sandbox, body: { currency } })).body;
  const link = (await h.request('POST', `${A}/payment-links`, { key: b.sandbox, body: { name: 'Invoices', methods: ['bank_transfer'] } })).body;
  return { b, va, link };
}
async function request(b: Biz, linkId: string, extra: Record<string, unknown> = {}) {
  const r = await h.request('POST', `${A}/payment-requests`, {
    key: b.sandbox,
    body: { payment_link_id: linkId, amount: '250.00', currency: 'USD', reference: 'INV-1', expires_at: inOneHour(), ...extra },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}
const deposit = (b: Biz, body: Record<string, unknown>) => h.request('POST', `${A}/sandbox/deposits`, { key: b.sandbox, body });
async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const credited = (b: Biz, id: string) =>
  waitFor(async () => {
    const r = await h.request('GET', `${A}/deposits/${id}`, { key: b.sandbox });
    return r.body.status === 'credited' ? r.body : undefined;
  }, `deposit ${id} credited`);
const getReq = async (b: Biz, id: string) => (await h.request('GET', `${A}/payment-requests/${id}`, { key: b.sandbox })).body;
const balance = async (b: Biz) => (await h.request('GET', `${A}/balance`, { key: b.sandbox })).body.available;
const events = async (type: string, objectId: string) =>
  h.db.selectFrom('events').selectAll().where('type', '=', type).where('object_id', '=', objectId).execute();

describe('POST /payment-requests and GET (happy)', () => {
  it('201 open with url, amount, currency, reference, expires_at; GET by id and list with filters', async () => {
    const { b, link } = await setup();
    const expires = inOneHour();
    const r = await request(b, link.id, { expires_at: expires, amount: '99.5' });
    expect(r).toMatchObject({ object: 'payment_request', payment_link_id: link.id, amount: '99.50', currency: 'USD', reference: 'INV-1', status: 'open', paid_at: null });
    expect(r.id).toMatch(/^preq_/);
    expect(r.expires_at).toBe(new Date(expires).toISOString());
    expect(r.url.startsWith(`${link.url}/`)).toBe(true);
    expect(await getReq(b, r.id)).toEqual(r);
    const r2 = await request(b, link.id, { reference: 'INV-2' });
    const list = await h.request('GET', `${A}/payment-requests?status=open&payment_link_id=${link.id}`, { key: b.sandbox });
    expect(list.body.data.map((x: any) => x.id)).toEqual([r2.id, r.id]);
    expect((await h.request('GET', `${A}/payment-requests?status=paid`, { key: b.sandbox })).body.data).toEqual([]);
  });

  it('expires at expires_at by its durable timer (no sweep): open -> expired', async () => {
    const { b, link } = await setup();
    const r = await request(b, link.id, { expires_at: new Date(Date.now() + 1500).toISOString() });
    expect(r.status).toBe('open');
    const done = await waitFor(async () => {
      const x = await getReq(b, r.id);
      return x.status === 'expired' ? x : undefined;
    }, 'request expired');
    expect(done.paid_at).toBeNull();
    const wf = await h.core.temporal.workflow.getHandle(r.id).result();
    expect(wf).toEqual({ requestId: r.id, status: 'expired' });
  });
});

describe('matching (spec Surface A rule 2)', () => {
  it('one exact match: the request is paid, payment_request.paid is emitted, the balance is credited once', async () => {
    const { b, va, link } = await setup();
    const r = await request(b, link.id);
    const d = await deposit(b, { virtual_account_id: va.id, amount: '250.00', currency: 'USD', reference: 'anything' });
    const dep = await credited(b, d.body.id);
    expect(dep).toMatchObject({ match: 'matched', payment_request_id: r.id });
    const paid = await getReq(b, r.id);
    expect(paid).toMatchObject({ status: 'paid', deposit_id: dep.id });
    expect(paid.paid_at).toEqual(expect.any(String));
    const ev = await events('payment_request.paid', r.id);
    expect(ev).toHaveLength(1);
    const listed = await h.request('GET', `${A}/events/${ev[0].id}`, { key: b.sandbox });
    expect(listed.body.data.object).toMatchObject({ id: r.id, status: 'paid', deposit_id: dep.id });
    expect(await balance(b)).toBe('250.00');
    // The request's workflow ended on the deposit's `paid` signal, before its timer.
    expect(await h.core.temporal.workflow.getHandle(r.id).result()).toEqual({ requestId: r.id, status: 'paid' });
  });

  it('two open requests that both fit: neither is paid, the deposit is credited as a plain deposit', async () => {
    const { b, va, link } = await setup();
    const r1 = await request(b, link.id, { reference: 'A-1' });
    const r2 = await request(b, link.id, { reference: 'A-2' });
    const d = await deposit(b, { virtual_account_id: va.id, amount: '250.00', currency: 'USD', reference: 'A-1' });
    const dep = await credited(b, d.body.id);
    expect(dep).toMatchObject({ match: 'ambiguous', payment_request_id: null });
    expect((await getReq(b, r1.id)).status).toBe('open');
    expect((await getReq(b, r2.id)).status).toBe('open');
    expect(await balance(b)).toBe('250.00');
    expect(await events('payment_request.paid', r1.id)).toHaveLength(0);
  });

  it('a late deposit is not matched: after the request expired, and when received after expires_at', async () => {
    const { b, va, link } = await setup();
    const r = await request(b, link.id, { expires_at: new Date(Date.now() + 1000).toISOString() });
    await waitFor(async () => (await getReq(b, r.id)).status === 'expired', 'expiry');
    const d = await deposit(b, { virtual_account_id: va.id, amount: '250.00', currency: 'USD' });
    expect((await credited(b, d.body.id)).match).toBe('no_match');
    expect((await getReq(b, r.id)).status).toBe('expired');

    // Still open (its timer has not fired) but the money arrived after expires_at: not a match.
    const open = await request(b, link.id, { expires_at: new Date(Date.now() + 600_000).toISOString() });
    const late = await receiveDeposit(h.core, caller(b), {
      source: 'virtual_account',
      virtualAccountId: va.id,
      amount: '250.00',
      currency: 'USD',
      externalId: 'late-1',
      receivedAt: new Date(Date.parse(open.expires_at) + 1),
    });
    expect((await credited(b, late.deposit.id)).match).toBe('no_match');
    // Money that arrived before the request existed does not pay it either.
    const early = await receiveDeposit(h.core, caller(b), {
      source: 'virtual_account',
      virtualAccountId: va.id,
      amount: '250.00',
      currency: 'USD',
      externalId: 'early-1',
      receivedAt: new Date(Date.parse(open.created_at) - 1000),
    });
    expect((await credited(b, early.deposit.id)).match).toBe('no_match');
    expect((await getReq(b, open.id)).status).toBe('open');
    expect(await balance(b)).toBe('750.00');
  });

  it('wrong amount or wrong currency: plain deposits, the request stays open', async () => {
    const { b, va, link } = await setup();
    const eurVa = (await h.request('POST', `${A}/virtual-accounts`, { key: b.sandbox, body: { currency: 'EUR' } })).body;
    const r = await request(b, link.id);
    const d1 = await deposit(b, { virtual_account_id: va.id, amount: '249.99', currency: 'USD' });
    const d2 = await deposit(b, { virtual_account_id: eurVa.id, amount: '250.00', currency: 'EUR', reference: 'INV-1' });
    expect((await credited(b, d1.body.id)).match).toBe('no_match');
    expect((await credited(b, d2.body.id)).match).toBe('no_match');
    expect((await getReq(b, r.id)).status).toBe('open');
  });

  it('the same deposit delivered twice is credited once and pays the request once', async () => {
    const { b, va, link } = await setup();
    const r = await request(b, link.id);
    const body = { virtual_account_id: va.id, amount: '250.00', currency: 'USD', external_id: 'trace-42' };
    const [x, y] = await Promise.all([deposit(b, body), deposit(b, body)]);
    expect(x.body.id).toBe(y.body.id);
    await credited(b, x.body.id);
    const again = await deposit(b, body);
    expect(again.body.id).toBe(x.body.id);
    expect(await balance(b)).toBe('250.00');
    expect((await getReq(b, r.id)).deposit_id).toBe(x.body.id);
    expect(await events('payment_request.paid', r.id)).toHaveLength(1);
  });

  it('concurrent deposits that all fit one request: exactly one pays it, every one is credited', async () => {
    const { b, va, link } = await setup();
    const r = await request(b, link.id);
    const ds = await Promise.all(
      Array.from({ length: 6 }, (_, i) => deposit(b, { virtual_account_id: va.id, amount: '250.00', currency: 'USD', external_id: `c-${i}` })),
    );
    const deps = await Promise.all(ds.map((d) => credited(b, d.body.id)));
    expect(deps.filter((d) => d.match === 'matched').map((d) => d.payment_request_id)).toEqual([r.id]);
    expect(deps.filter((d) => d.match !== 'matched').every((d) => d.match === 'no_match')).toBe(true);
    expect(await balance(b)).toBe('1500.00');
    expect(await events('payment_request.paid', r.id)).toHaveLength(1);
  });

  it('EUR accounts require the reference: without or with another one no match; the right one (any case) pays', async () => {
    const { b, va, link } = await setup('EUR');
    const r1 = await request(b, link.id, { currency: 'EUR', amount: '92.00', reference: 'Rechnung 7' });
    const r2 = await request(b, link.id, { currency: 'EUR', amount: '92.00', reference: 'Rechnung 8' });
    const none = await deposit(b, { virtual_account_id: va.id, amount: '92.00', currency: 'EUR' });
    const wrong = await deposit(b, { virtual_account_id: va.id, amount: '92.00', currency: 'EUR', reference: 'Rechnung 9' });
    expect((await credited(b, none.body.id)).match).toBe('no_match');
    expect((await credited(b, wrong.body.id)).match).toBe('no_match');
    const right = await deposit(b, { virtual_account_id: va.id, amount: '92.00', currency: 'EUR', reference: '  rechnung   8 ' });
    expect(await credited(b, right.body.id)).toMatchObject({ match: 'matched', payment_request_id: r2.id });
    expect((await getReq(b, r1.id)).status).toBe('open');
    expect((await getReq(b, r2.id)).status).toBe('paid');
  });
});

describe('payment requests (errors)', () => {
  it('400 validation_error naming the param, 404 for an unknown link; nothing created', async () => {
    const { b, link } = await setup();
    const cases: [Record<string, unknown>, string][] = [
      [{ currency: 'GBP' }, 'currency'],
      [{ amount: '1.001' }, 'amount'],
      [{ amount: '0' }, 'amount'],
      [{ reference: '' }, 'reference'],
      [{ reference: 'x'.repeat(141) }, 'reference'],
      [{ expires_at: 'tomorrow' }, 'expires_at'],
      [{ expires_at: new Date(Date.now() - 1000).toISOString() }, 'expires_at'],
      [{ expires_at: new Date(Date.now() + 400 * 86400_000).toISOString() }, 'expires_at'],
    ];
    for (const [extra, param] of cases) {
      const r = await h.request('POST', `${A}/payment-requests`, {
        key: b.sandbox,
        body: { payment_link_id: link.id, amount: '10.00', currency: 'USD', reference: 'R', expires_at: inOneHour(), ...extra },
      });
      expect(r.status, JSON.stringify(extra)).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', param });
    }
    const nf = await h.request('POST', `${A}/payment-requests`, {
      key: b.sandbox,
      body: { payment_link_id: 'plink_nope', amount: '10.00', currency: 'USD', reference: 'R', expires_at: inOneHour() },
    });
    expect(nf.status).toBe(404);
    expect(nf.body.error.param).toBe('payment_link_id');
    expect((await h.request('GET', `${A}/payment-requests`, { key: b.sandbox })).body.data).toEqual([]);
    expect((await h.request('GET', `${A}/payment-requests/preq_nope`, { key: b.sandbox })).status).toBe(404);
  });
});

describe('payment requests (security)', () => {
  it("another business's link and request are 404; its deposits never pay them", async () => {
    const { b, link } = await setup();
    const r = await request(b, link.id);
    const other = await setup();
    const x = await h.request('POST', `${A}/payment-requests`, {
      key: other.b.sandbox,
      body: { payment_link_id: link.id, amount: '10.00', currency: 'USD', reference: 'R', expires_at: inOneHour() },
    });
    expect(x.status).toBe(404);
    expect((await h.request('GET', `${A}/payment-requests/${r.id}`, { key: other.b.sandbox })).status).toBe(404);
    expect((await h.request('GET', `${A}/payment-requests`, { key: other.b.sandbox })).body.data).toEqual([]);
    const d = await deposit(other.b, { virtual_account_id: other.va.id, amount: '250.00', currency: 'USD' });
    expect((await credited(other.b, d.body.id)).match).toBe('no_match');
    expect((await getReq(b, r.id)).status).toBe('open');
  });

  it('401 without a key and with a key of the other environment', async () => {
    const b = await h.business();
    expect((await h.request('GET', `${A}/payment-requests`)).status).toBe(401);
    expect((await h.request('GET', `${A}/payment-requests`, { key: b.live })).status).toBe(401);
    expect((await h.request('POST', '/v1/payment-requests', { key: b.sandbox, body: {} })).status).toBe(401);
  });
});
