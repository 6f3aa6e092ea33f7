import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAmount, parseAmount } from '../../src/domain/money';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';
type Biz = { id: string; sandbox: string; live: string };

const MX = { type: 'bank_account', country: 'MX', currency: 'MXN', name: 'Acme MX', bank_account: { holder_name: 'Acme SA', clabe: '032180000118359719', recipient_kind: 'business' } };
const DE = { type: 'bank_account', country: 'DE', currency: 'EUR', name: 'Acme DE', bank_account: { holder_name: 'Acme GmbH', iban: 'DE89370400440532013000' } };
const US = {
  type: 'bank_account',
  country: 'US',
  currency: 'USD',
  name: 'Acme US',
  bank_account: { holder_name: 'Acme Inc', account_number: '123456789', routing_number: '021000021', account_type: 'checking', recipient_kind: 'business' },
};

async function biz(opts: { verified?: boolean; fund?: string } = {}): Promise<Biz> {
  const b = await h.business({ verified: opts.verified ?? true });
  if (opts.fund) expect((await h.request('POST', `${A}/sandbox/fund`, { key: b.sandbox, body: { amount: opts.fund } })).status).toBe(200);
  return b;
}
async function recipient(b: Biz, body: unknown): Promise<string> {
  const r = await h.request('POST', `${A}/recipients`, { key: b.sandbox, body });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}
const withdraw = (b: Biz, body: Record<string, unknown>, headers?: Record<string, string>) =>
  h.request('POST', `${A}/withdrawals`, { key: b.sandbox, body, headers });
async function waitStatus(b: Biz, id: string, status: string): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await h.request('GET', `${A}/payouts/${id}`, { key: b.sandbox });
    if (r.body.status === status) return r.body;
    if (Date.now() > deadline) throw new Error(`payout ${id} stayed ${r.body.status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}
const balance = async (b: Biz) => (await h.request('GET', `${A}/balance`, { key: b.sandbox })).body;

describe('POST /withdrawals (happy)', () => {
  it('201 Payout on spei_mxn to the saved account, run by the payout workflow to succeeded', async () => {
    const b = await biz({ fund: '1000' });
    const dest = await recipient(b, MX);
    const r = await withdraw(b, { currency: 'MXN', payout_destination_id: dest, source_amount: '100.00', reference: 'Owner draw' }, { 'Idempotency-Key': 'wd-1' });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      object: 'payout',
      channel: 'spei_mxn',
      status: 'submitted',
      attempts: 1,
      recipient_id: dest,
      source_amount: '100.00',
      destination_currency: 'MXN',
      reference: 'Owner draw',
    });
    const replay = await withdraw(b, { currency: 'MXN', payout_destination_id: dest, source_amount: '100.00', reference: 'Owner draw' }, { 'Idempotency-Key': 'wd-1' });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect(replay.body.id).toBe(r.body.id);
    const done = await waitStatus(b, r.body.id, 'succeeded');
    expect(done.provider_reference).toEqual(expect.any(String));
    const debit = parseAmount('100.00', 'USDC') + parseAmount(r.body.fees.total, 'USDC');
    expect((await balance(b)).available).toBe(formatAmount(parseAmount('1000', 'USDC') - debit, 'USDC'));
    expect((await h.db.selectFrom('payouts').select('id').where('business_id', '=', b.id).execute()).length).toBe(1);
  });

  it('EUR on sepa_eur and USD on ach_usd, by destination amount', async () => {
    const b = await biz({ fund: '1000' });
    const eur = await withdraw(b, { currency: 'EUR', payout_destination_id: await recipient(b, DE), destination_amount: '50.00' });
    expect(eur.status, eur.text).toBe(201);
    expect(eur.body).toMatchObject({ channel: 'sepa_eur', destination_amount: '50.00', destination_currency: 'EUR' });
    const usd = await withdraw(b, { currency: 'USD', payout_destination_id: await recipient(b, US), destination_amount: '20.00' });
    expect(usd.status, usd.text).toBe(201);
    expect(usd.body).toMatchObject({ channel: 'ach_usd', destination_amount: '20.00', destination_currency: 'USD' });
  });
});

describe('POST /withdrawals (errors)', () => {
  it('403 verification_required for an unverified business; nothing held', async () => {
    const b = await biz({ verified: false, fund: '100' });
    const dest = await recipient(b, MX);
    const r = await withdraw(b, { currency: 'MXN', payout_destination_id: dest, source_amount: '10.00' });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('verification_required');
    expect(await balance(b)).toMatchObject({ available: '100.00', held: '0.00' });
  });

  it('refuses a destination that is not a bank account of this currency, or unknown; bad input names the param', async () => {
    const b = await biz({ fund: '100' });
    const mx = await recipient(b, MX);
    const phone = await recipient(b, { type: 'phone', phone: { number: '+525512345678' } });
    const wrongCurrency = await withdraw(b, { currency: 'EUR', payout_destination_id: mx, source_amount: '10.00' });
    expect(wrongCurrency.status).toBe(400);
    expect(wrongCurrency.body.error).toMatchObject({ code: 'validation_error', param: 'payout_destination_id' });
    expect(wrongCurrency.body.error.message).toContain('sepa_eur');
    const notBank = await withdraw(b, { currency: 'MXN', payout_destination_id: phone, source_amount: '10.00' });
    expect(notBank.status).toBe(400);
    expect(notBank.body.error.param).toBe('payout_destination_id');
    const unknown = await withdraw(b, { currency: 'MXN', payout_destination_id: 'rcp_nope', source_amount: '10.00' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe('payout_destination_id');
    for (const [body, param] of [
      [{ currency: 'GBP', payout_destination_id: mx, source_amount: '10.00' }, 'currency'],
      [{ currency: 'MXN', source_amount: '10.00' }, 'payout_destination_id'],
      [{ currency: 'MXN', payout_destination_id: mx }, 'source_amount'],
      [{ currency: 'MXN', payout_destination_id: mx, source_amount: '10.00', destination_amount: '170.00' }, 'destination_amount'],
      [{ currency: 'MXN', payout_destination_id: mx, source_amount: '10.00', reference: 'x'.repeat(141) }, 'reference'],
    ] as const) {
      const r = await withdraw(b, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
    const tooMuch = await withdraw(b, { currency: 'MXN', payout_destination_id: mx, source_amount: '500.00' });
    expect(tooMuch.status).toBe(402);
    expect(tooMuch.body.error.code).toBe('insufficient_balance');
    expect(await balance(b)).toMatchObject({ available: '100.00', held: '0.00' });
  });
});

describe('POST /withdrawals (security)', () => {
  it("another business's saved account is 404 and receives nothing", async () => {
    const a = await biz({ fund: '100' });
    const other = await biz({ fund: '100' });
    const dest = await recipient(a, MX);
    const r = await withdraw(other, { currency: 'MXN', payout_destination_id: dest, source_amount: '10.00' });
    expect(r.status).toBe(404);
    expect((await balance(other)).held).toBe('0.00');
  });

  it('401 without a key and with a key of the other environment', async () => {
    const b = await biz();
    expect((await h.request('POST', `${A}/withdrawals`, { body: { currency: 'MXN' } })).status).toBe(401);
    expect((await h.request('POST', `${A}/withdrawals`, { key: b.live, body: { currency: 'MXN' } })).status).toBe(401);
    expect((await h.request('POST', '/v1/withdrawals', { key: b.sandbox, body: { currency: 'MXN' } })).status).toBe(401);
  });
});
