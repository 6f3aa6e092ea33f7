import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/context';
import { creditDeposit, receiveDeposit } from '../../src/core/funding/deposits';
import { convertDeposit } from '../../src/domain/funding';
import { surfaceAEventType } from '../../src/domain/webhook-events';
import { renderDeposit } from '../../src/wire/surface-a/deposits';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';
type Biz = { id: string; sandbox: string; live: string };

async function account(b: Biz, currency: string): Promise<any> {
  const r = await h.request('POST', `${A}/virtual-accounts`, { key: b.sandbox, body: { currency } });
  expect(r.status).toBe(201);
  return r.body;
}
const deposit = (b: Biz, body: Record<string, unknown>, headers?: Record<string, string>) =>
  h.request('POST', `${A}/sandbox/deposits`, { key: b.sandbox, body, headers });

async function waitCredited(b: Biz, id: string): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await h.request('GET', `${A}/deposits/${id}`, { key: b.sandbox });
    if (r.body.status === 'credited') return r.body;
    if (Date.now() > deadline) throw new Error(`deposit ${id} stayed ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}
const balance = async (b: Biz) => (await h.request('GET', `${A}/balance`, { key: b.sandbox })).body;
const eventTypes = async (objectId: string) =>
  (await h.db.selectFrom('events').select('type').where('object_id', '=', objectId).orderBy('created_at').orderBy('id').execute()).map((e) => e.type);
const postings = async (b: Biz, depositId: string) =>
  h.db.selectFrom('ledger_postings').selectAll().where('business_id', '=', b.id).where('key', 'like', `deposit:${depositId}:%`).execute();
const caller = (b: Biz): Caller => ({ businessId: b.id, environment: 'sandbox', keyId: 'key_test', role: 'owner', policy: null });

describe('POST /sandbox/deposits and GET /deposits (happy)', () => {
  it('a USD transfer is received, then credited 1:1 to the USDC balance; events deposit.received then deposit.credited', async () => {
    const b = await h.business();
    const va = await account(b, 'USD');
    const r = await deposit(b, { virtual_account_id: va.id, amount: '100.00', currency: 'USD', reference: 'INV-1', sender_name: 'Globex' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      object: 'deposit',
      source: 'virtual_account',
      virtual_account_id: va.id,
      amount: '100.00',
      currency: 'USD',
      rate: '1',
      converted_amount: '100.00',
      fees: { fx_spread: '0.00', processing: '0.00', total: '0.00', currency: 'USDC' },
      credited_amount: '100.00',
      reference: 'INV-1',
      sender_name: 'Globex',
    });
    expect(r.body.id).toMatch(/^dep_/);
    const done = await waitCredited(b, r.body.id);
    expect(done.credited_at).toEqual(expect.any(String));
    expect(done.match).toBe('no_match');
    expect(await balance(b)).toMatchObject({ available: '100.00', held: '0.00' });
    expect(await eventTypes(r.body.id)).toEqual(['deposit.received', 'deposit.credited']);
    const p = await postings(b, r.body.id);
    expect(p).toHaveLength(1);
    expect(p[0]).toMatchObject({ key: `deposit:${r.body.id}:credit`, debit_account: 'external', credit_account: 'available', amount: 100_000_000n });
  });

  it('EUR and MXN are converted at the sandbox FX table with the FX spread shown as a fee', async () => {
    const b = await h.business();
    const eur = await account(b, 'EUR');
    const mxn = await account(b, 'MXN');
    const e = await deposit(b, { virtual_account_id: eur.id, amount: '92.00', currency: 'EUR', reference: 'X' });
    expect(e.body).toMatchObject({ rate: '0.92', converted_amount: '100.00', fees: { fx_spread: '0.25', total: '0.25' }, credited_amount: '99.75' });
    const m = await deposit(b, { virtual_account_id: mxn.id, amount: '1705.00', currency: 'MXN' });
    expect(m.body).toMatchObject({ rate: '17.05', converted_amount: '100.00', fees: { fx_spread: '0.35', total: '0.35' }, credited_amount: '99.65' });
    await waitCredited(b, e.body.id);
    await waitCredited(b, m.body.id);
    expect((await balance(b)).available).toBe('199.40');

    const list = await h.request('GET', `${A}/deposits?currency=EUR`, { key: b.sandbox });
    expect(list.status).toBe(200);
    expect(list.body.data.map((d: any) => d.id)).toEqual([e.body.id]);
    const all = await h.request('GET', `${A}/deposits?limit=1`, { key: b.sandbox });
    expect(all.body.data.map((d: any) => d.id)).toEqual([m.body.id]);
    const next = await h.request('GET', `${A}/deposits?limit=1&cursor=${all.body.next_cursor}`, { key: b.sandbox });
    expect(next.body.data.map((d: any) => d.id)).toEqual([e.body.id]);
  });

  it('the same transfer delivered twice (same external_id), also concurrently, is one deposit credited once', async () => {
    const b = await h.business();
    const va = await account(b, 'USD');
    const body = { virtual_account_id: va.id, amount: '25.00', currency: 'USD', external_id: 'ach-trace-0001' };
    const rs = await Promise.all([deposit(b, body), deposit(b, body), deposit(b, body)]);
    expect(rs.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(rs.map((r) => r.body.id)).size).toBe(1);
    const again = await deposit(b, body);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(rs[0].body.id);
    await waitCredited(b, rs[0].body.id);
    // A second run of the credit step (a retried activity) changes nothing.
    const second = await creditDeposit(h.core, rs[0].body.id);
    expect(second.status).toBe('credited');
    expect((await postings(b, rs[0].body.id)).length).toBe(1);
    expect((await balance(b)).available).toBe('25.00');
    expect((await h.request('GET', `${A}/deposits`, { key: b.sandbox })).body.data).toHaveLength(1);
  });

  it('the core takes crypto and card deposits too (Surface B funding): crypto is matched (no request here: no_match), card is not, card fees shown', async () => {
    const b = await h.business();
    const crypto = await receiveDeposit(h.core, caller(b), { source: 'crypto', amount: '50.123456', currency: 'USDC', externalId: 'solana-sig-1' });
    expect(crypto.created).toBe(true);
    expect(renderDeposit(crypto.deposit)).toMatchObject({ source: 'crypto', virtual_account_id: null, credited_amount: '50.123456', rate: '1' });
    const card = await receiveDeposit(h.core, caller(b), { source: 'card', amount: '100.00', currency: 'USD', externalId: 'ch_1' });
    // 2.9 % + 0.30 USDC
    expect(renderDeposit(card.deposit)).toMatchObject({ fees: { processing: '3.20', total: '3.20' }, credited_amount: '96.80' });
    expect((await waitCredited(b, crypto.deposit.id)).match).toBe('no_match');
    await waitCredited(b, card.deposit.id);
    expect((await balance(b)).available).toBe('146.923456');
    const onlyCrypto = await h.request('GET', `${A}/deposits?source=crypto`, { key: b.sandbox });
    expect(onlyCrypto.body.data.map((d: any) => d.id)).toEqual([crypto.deposit.id]);
  });

  it('a deposit received while no worker runs is credited once a worker is back (durable lifecycle)', async () => {
    const b = await h.business();
    const va = await account(b, 'USD');
    await h.stopWorker();
    let id: string;
    try {
      const r = await deposit(b, { virtual_account_id: va.id, amount: '10.00', currency: 'USD' });
      expect(r.status).toBe(201);
      id = r.body.id;
      await new Promise((res) => setTimeout(res, 300));
      expect((await h.request('GET', `${A}/deposits/${id}`, { key: b.sandbox })).body.status).toBe('received');
      expect((await balance(b)).available).toBe('0.00');
    } finally {
      await h.startWorker();
    }
    await waitCredited(b, id);
    expect((await balance(b)).available).toBe('10.00');
  });

  it('Surface A endpoints get the credit as deposit.received (never the core receipt event)', async () => {
    expect(surfaceAEventType('deposit.credited')).toBe('deposit.received');
    expect(surfaceAEventType('deposit.received')).toBeNull();
    expect(surfaceAEventType('payment_request.paid')).toBe('payment_request.paid');
    const b = await h.business();
    const ep = await h.request('POST', `${A}/webhooks`, { key: b.sandbox, body: { url: 'http://127.0.0.1:9/hook', events: ['deposit.*'] } });
    expect(ep.status).toBe(201);
    const va = await account(b, 'USD');
    const r = await deposit(b, { virtual_account_id: va.id, amount: '5.00', currency: 'USD' });
    await waitCredited(b, r.body.id);
    const deadline = Date.now() + 15_000;
    let types: string[] = [];
    while (Date.now() < deadline) {
      const rows = await h.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('events as e', 'e.id', 'd.event_id')
        .select('e.type')
        .where('d.endpoint_id', '=', ep.body.id)
        .execute();
      types = rows.map((x) => x.type);
      if (types.length) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(types).toEqual(['deposit.credited']);
  });
});

describe('deposits (errors)', () => {
  it('400 validation_error naming the param; nothing is created', async () => {
    const b = await h.business();
    const va = await account(b, 'USD');
    const cases: [Record<string, unknown>, string][] = [
      [{ virtual_account_id: va.id, amount: '10.001', currency: 'USD' }, 'amount'],
      [{ virtual_account_id: va.id, amount: 'ten', currency: 'USD' }, 'amount'],
      [{ virtual_account_id: va.id, amount: '0', currency: 'USD' }, 'amount'],
      [{ virtual_account_id: va.id, amount: '10.00', currency: 'EUR' }, 'currency'],
      [{ virtual_account_id: va.id, amount: '10.00', currency: 'GBP' }, 'currency'],
      [{ amount: '10.00', currency: 'USD' }, 'virtual_account_id'],
      [{ virtual_account_id: va.id, amount: '10.00', currency: 'USD', reference: 'x'.repeat(141) }, 'reference'],
    ];
    for (const [body, param] of cases) {
      const r = await deposit(b, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', param });
    }
    expect((await h.request('GET', `${A}/deposits`, { key: b.sandbox })).body.data).toEqual([]);
    const bad = await h.request('GET', `${A}/deposits?currency=GBP`, { key: b.sandbox });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('currency');
  });

  it('404 for an unknown virtual account; 409 idempotency_conflict for an external_id reused for another amount', async () => {
    const b = await h.business();
    const va = await account(b, 'USD');
    const r = await deposit(b, { virtual_account_id: 'va_nope', amount: '10.00', currency: 'USD' });
    expect(r.status).toBe(404);
    expect(r.body.error.param).toBe('virtual_account_id');
    expect((await deposit(b, { virtual_account_id: va.id, amount: '10.00', currency: 'USD', external_id: 'e1' })).status).toBe(201);
    const c = await deposit(b, { virtual_account_id: va.id, amount: '11.00', currency: 'USD', external_id: 'e1' });
    expect(c.status).toBe(409);
    expect(c.body.error).toMatchObject({ code: 'idempotency_conflict', param: 'external_id' });
  });

  it('POST /sandbox/deposits does not exist under the live base address', async () => {
    const b = await h.business();
    const r = await h.request('POST', '/v1/sandbox/deposits', { key: b.live, body: { virtual_account_id: 'va_x', amount: '1.00', currency: 'USD' } });
    expect(r.status).toBe(404);
  });

  it('the conversion rounds the USDC amount down and takes fees from it (unit)', () => {
    const c = convertDeposit(1n, 'MXN', '17.05', 'virtual_account'); // 0.01 MXN
    expect(c.grossAmount).toBe(586n); // 0.000586 USDC, floor
    expect(c.fees.fxSpread).toBe(3n); // 0.35 % rounded up
    expect(c.netAmount).toBe(583n);
  });
});

describe('deposits (security)', () => {
  it("another business's virtual account and deposits are 404 and never listed", async () => {
    const a = await h.business();
    const other = await h.business();
    const va = await account(a, 'USD');
    const r = await deposit(a, { virtual_account_id: va.id, amount: '3.00', currency: 'USD' });
    const x = await deposit(other, { virtual_account_id: va.id, amount: '3.00', currency: 'USD' });
    expect(x.status).toBe(404);
    expect((await h.request('GET', `${A}/deposits/${r.body.id}`, { key: other.sandbox })).status).toBe(404);
    expect((await h.request('GET', `${A}/deposits`, { key: other.sandbox })).body.data).toEqual([]);
  });

  it('401 without a key and with a key of the other environment', async () => {
    const b = await h.business();
    expect((await h.request('GET', `${A}/deposits`)).status).toBe(401);
    expect((await h.request('GET', `${A}/deposits`, { key: b.live })).status).toBe(401);
    expect((await h.request('GET', '/v1/deposits', { key: b.sandbox })).status).toBe(401);
    expect((await deposit({ ...b, sandbox: b.live }, { virtual_account_id: 'va_x', amount: '1.00', currency: 'USD' })).status).toBe(401);
  });
});
