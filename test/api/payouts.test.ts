import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPayout } from '../../src/core/payouts';
import type { Caller } from '../../src/core/context';
import { newId } from '../../src/domain/ids';
import type { ErrorBody } from '../../src/api/surface-a/errors';
import type { PayoutListResponse, PayoutResponse } from '../../src/api/surface-a/payouts';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h?.close());

// ---------------------------------------------------------------------------------------------
// Helpers

type Biz = { id: string; sandbox: string; live: string };

const CLABE = '032180000118359719';
const speiRecipient = { type: 'bank_account', holder_name: 'Ana López', clabe: CLABE, recipient_kind: 'individual' };
const speiBody = (extra: Record<string, unknown> = {}) => ({
  channel: 'spei_mxn',
  recipient: speiRecipient,
  source_amount: '100.00',
  ...extra,
});
/** service_user_usdc has no fees: a payout of X debits exactly X. */
const usdcBody = (amount: string, extra: Record<string, unknown> = {}) => ({
  channel: 'service_user_usdc',
  recipient: { type: 'service_user', handle: '@maria' },
  source_amount: amount,
  ...extra,
});

async function newBiz(fund?: string): Promise<Biz> {
  const b = await h.business();
  if (fund) {
    const r = await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: fund } });
    expect(r.status).toBe(200);
  }
  return b;
}

const post = (b: Biz, body: unknown, headers?: Record<string, string>) =>
  h.request('POST', '/sandbox/v1/payouts', { key: b.sandbox, body, headers });
const get = (b: Biz, id: string) => h.request('GET', `/sandbox/v1/payouts/${id}`, { key: b.sandbox });

async function balance(b: Biz): Promise<{ available: string; held: string }> {
  const r = await h.request('GET', '/sandbox/v1/balance', { key: b.sandbox });
  expect(r.status).toBe(200);
  return r.body;
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

/** Polls GET /payouts/{id} until its status is one of `statuses`; returns the payout. */
async function waitStatus(b: Biz, id: string, ...statuses: string[]): Promise<any> {
  let last: any;
  try {
    return await waitFor(async () => {
      const r = await get(b, id);
      last = r.body;
      return statuses.includes(r.body.status) ? r.body : undefined;
    }, `payout ${id} to be ${statuses.join('|')}`);
  } catch (e) {
    throw new Error(`${(e as Error).message}; last seen ${JSON.stringify(last)}`);
  }
}

/** Types of the outbox events of a payout, in order. */
async function eventTypes(payoutId: string): Promise<string[]> {
  const rows = await h.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('object_id', '=', payoutId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.type);
}

async function postingKeys(payoutId: string): Promise<string[]> {
  const rows = await h.db.selectFrom('ledger_postings').select('key').where('key', 'like', `payout:${payoutId}:%`).orderBy('id').execute();
  return rows.map((r) => r.key);
}

async function insertQuote(b: Biz, o: { channel?: string; expired?: boolean } = {}) {
  const id = newId('qt');
  await h.db
    .insertInto('quotes')
    .values({
      id,
      business_id: b.id,
      environment: 'sandbox',
      channel: o.channel ?? 'spei_mxn',
      source_amount: 58_651_026n,
      destination_amount: 100_000n,
      destination_currency: 'MXN',
      rate: '17.05',
      fee_provider: 425_954n,
      fee_service: 293_256n,
      fee_fx_spread: 205_279n,
      fee_total: 924_489n,
      fixed_side: 'destination',
      expires_at: new Date(Date.now() + (o.expired ? -1000 : 60_000)),
    })
    .execute();
  return id;
}

async function insertRecipient(b: Biz, o: { type: string; details: Record<string, unknown>; status: 'ready' | 'needs_fields'; channels: string[]; missing?: string[] }) {
  const id = newId('rcp');
  await h.db
    .insertInto('recipients')
    .values({
      id,
      business_id: b.id,
      environment: 'sandbox',
      type: o.type,
      country: null,
      currency: null,
      name: null,
      kind: null,
      external_id: null,
      details: JSON.stringify(o.details) as any,
      status: o.status,
      missing_fields: JSON.stringify(o.missing ?? []) as any,
      channels: JSON.stringify(o.channels) as any,
      deleted_at: null,
      updated_at: new Date(),
    })
    .execute();
  return id;
}

// ---------------------------------------------------------------------------------------------

describe('payouts: happy', () => {
  describe('a direct payout, end to end', () => {
    it('201 submitted with attempts 1, priced; then succeeded, settled, receipt, events in order', async () => {
      const b = await newBiz('1000');
      const r = await post(b, speiBody({ reference: 'INV-1', memo: 'March' }));
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        object: 'payout',
        status: 'submitted',
        attempts: 1,
        channel: 'spei_mxn',
        recipient_id: null,
        recipient: { type: 'bank_account', holder_name: 'Ana López', clabe: '••••9719' },
        source_amount: '100.00',
        source_currency: 'USDC',
        destination_amount: '1705.00',
        destination_currency: 'MXN',
        rate: '17.05',
        fees: { provider: '0.55', service: '0.50', fx_spread: '0.35', total: '1.40', currency: 'USDC' },
        reference: 'INV-1',
        memo: 'March',
        failure: null,
        delivered_at: null,
        provider_reference: null,
        claim: null,
      });
      expect(r.body.id).toMatch(/^po_/);
      expect(JSON.stringify(r.body)).not.toContain(CLABE);
      expect(new Date(r.body.estimated_arrival).getTime()).toBeGreaterThan(new Date(r.body.created_at).getTime());
      expect(await balance(b)).toMatchObject({ available: '898.60', held: '101.40' });

      const done = await waitStatus(b, r.body.id, 'succeeded');
      expect(done.attempts).toBe(1);
      expect(done.provider_reference).toMatch(/^sbx_spei_/);
      expect(done.delivered_at).not.toBeNull();
      expect(done.attempt_history).toEqual([
        {
          number: 1,
          status: 'succeeded',
          started_at: expect.any(String),
          completed_at: expect.any(String),
          provider_reference: done.provider_reference,
          error: null,
        },
      ]);
      expect(await balance(b)).toMatchObject({ available: '898.60', held: '0.00' });
      expect(await eventTypes(r.body.id)).toEqual(['payout.submitted', 'payout.succeeded']);
      expect(await postingKeys(r.body.id)).toEqual([`payout:${r.body.id}:hold`, `payout:${r.body.id}:settle`]);

      const receipt = await h.request('GET', `/sandbox/v1/payouts/${r.body.id}/receipt`, { key: b.sandbox });
      expect(receipt.status).toBe(200);
      expect(receipt.body.confirmed_received_at).toBe(done.delivered_at);
      expect(receipt.body.url).toMatch(new RegExp(`^${h.config.publicUrl}/r/[A-Za-z0-9_-]{20,}$`));
      const page = await h.request('GET', new URL(receipt.body.url).pathname);
      expect(page.status).toBe(200);
      expect(page.headers.get('Content-Type')).toMatch(/text\/html/);
      expect(page.text).toContain('1705.00 MXN');
      expect(page.text).toContain('Delivered');
      expect(page.text).toContain('••••9719');
      expect(page.text).not.toContain(CLABE);
      const missing = await h.request('GET', '/r/not-a-receipt');
      expect(missing.status).toBe(404);
      expect(missing.text).toContain('Receipt not found');
    });

    it('a destination amount is priced from the mid-market rate', async () => {
      const b = await newBiz('1000');
      const r = await post(b, { ...speiBody(), source_amount: undefined, destination_amount: '1705' });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ source_amount: '100.00', destination_amount: '1705.00', rate: '17.05' });
    });
  });

  describe('saved recipients and quotes', () => {
    let b: Biz;
    beforeAll(async () => {
      b = await newBiz('1000');
    });

    it('a ready saved recipient is paid, its details masked in the payout', async () => {
      const id = await insertRecipient(b, { type: 'bank_account', details: speiRecipient, status: 'ready', channels: ['spei_mxn'] });
      const r = await post(b, { channel: 'spei_mxn', recipient_id: id, source_amount: '10' });
      expect(r.status).toBe(201);
      expect(r.body.recipient_id).toBe(id);
      expect(r.body.recipient.clabe).toBe('••••9719');
      await waitStatus(b, r.body.id, 'succeeded');
    });

    it('a quote_id prices the payout with the quote (amounts, rate, fees)', async () => {
      const q = await insertQuote(b);
      const r = await post(b, speiBody({ quote_id: q, source_amount: undefined }));
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        quote_id: q,
        source_amount: '58.651026',
        destination_amount: '1000.00',
        destination_currency: 'MXN',
        rate: '17.05',
        fees: { provider: '0.425954', service: '0.293256', fx_spread: '0.205279', total: '0.924489', currency: 'USDC' },
      });
      const same = await post(b, speiBody({ quote_id: await insertQuote(b), source_amount: undefined, destination_amount: '1000.00' }));
      expect(same.status).toBe(201);
    });
  });

  describe('sandbox magic values (src/sandbox/rails.ts): every state and failure code', () => {
    it.each([
      ['sandbox:invalid_destination', 'invalid_destination'],
      ['sandbox:recipient_rejected_by_provider', 'recipient_rejected_by_provider'],
      ['sandbox:limit_exceeded', 'limit_exceeded'],
      ['sandbox:provider_declined', 'provider_declined'],
    ])('%s -> failed %s at the first attempt, hold released', async (reference, code) => {
      const b = await newBiz('200');
      const r = await post(b, speiBody({ reference }));
      expect(r.status).toBe(201);
      const p = await waitStatus(b, r.body.id, 'failed', 'succeeded');
      expect(p.status).toBe('failed');
      expect(p.failure).toEqual({ code, message: expect.any(String) });
      expect(p.attempts).toBe(1);
      expect(p.attempt_history).toHaveLength(1);
      expect(p.attempt_history[0]).toMatchObject({ number: 1, status: 'failed', error: { code } });
      expect(p.delivered_at).toBeNull();
      expect(await balance(b)).toMatchObject({ available: '200.00', held: '0.00' });
      expect(await eventTypes(r.body.id)).toEqual(['payout.submitted', 'payout.failed']);
      expect(await postingKeys(r.body.id)).toEqual([`payout:${r.body.id}:hold`, `payout:${r.body.id}:release`]);
      const receipt = await h.request('GET', `/sandbox/v1/payouts/${r.body.id}/receipt`, { key: b.sandbox });
      expect(receipt.body.confirmed_received_at).toBeNull();
    });

    it('sandbox:provider_timeout -> three attempts, then failed provider_timeout', async () => {
      const b = await newBiz('200');
      const r = await post(b, speiBody({ reference: 'sandbox:provider_timeout' }));
      const p = await waitStatus(b, r.body.id, 'failed', 'succeeded');
      expect(p.failure.code).toBe('provider_timeout');
      expect(p.attempts).toBe(3);
      expect(p.attempt_history.map((a: any) => [a.number, a.status, a.error?.code])).toEqual([
        [1, 'failed', 'provider_timeout'],
        [2, 'failed', 'provider_timeout'],
        [3, 'failed', 'provider_timeout'],
      ]);
      // Backoff between attempts (1 s, then 2 s).
      const t = p.attempt_history.map((a: any) => new Date(a.started_at).getTime());
      expect(t[1] - t[0]).toBeGreaterThanOrEqual(900);
      expect(t[2] - t[1]).toBeGreaterThanOrEqual(1900);
      expect(await balance(b)).toMatchObject({ available: '200.00', held: '0.00' });
      expect(await eventTypes(r.body.id)).toEqual(['payout.submitted', 'payout.failed']);
    });

    it('sandbox:provider_timeout_once -> succeeded at the second attempt (attempts 2)', async () => {
      const b = await newBiz('200');
      const r = await post(b, speiBody({ reference: 'sandbox:provider_timeout_once' }));
      const p = await waitStatus(b, r.body.id, 'failed', 'succeeded');
      expect(p.status).toBe('succeeded');
      expect(p.attempts).toBe(2);
      expect(p.failure).toBeNull();
      expect(p.attempt_history.map((a: any) => [a.number, a.status, a.error?.code ?? null])).toEqual([
        [1, 'failed', 'provider_timeout'],
        [2, 'succeeded', null],
      ]);
      expect(p.provider_reference).toBe(p.attempt_history[1].provider_reference);
      expect(await balance(b)).toMatchObject({ available: '98.60', held: '0.00' });
      expect(await eventTypes(r.body.id)).toEqual(['payout.submitted', 'payout.succeeded']);
    });

    it('sandbox:refunded_by_provider -> succeeded, then refunded with the money back', async () => {
      const b = await newBiz('200');
      const r = await post(b, speiBody({ reference: 'sandbox:refunded_by_provider' }));
      const p = await waitStatus(b, r.body.id, 'refunded');
      expect(p.failure).toEqual({ code: 'refunded_by_provider', message: expect.any(String) });
      expect(p.delivered_at).not.toBeNull();
      expect(p.attempts).toBe(1);
      expect(await balance(b)).toMatchObject({ available: '200.00', held: '0.00' });
      expect(await eventTypes(r.body.id)).toEqual(['payout.submitted', 'payout.succeeded', 'payout.refunded']);
      expect(await postingKeys(r.body.id)).toEqual([
        `payout:${r.body.id}:hold`,
        `payout:${r.body.id}:settle`,
        `payout:${r.body.id}:refund`,
      ]);
      const receipt = await h.request('GET', `/sandbox/v1/payouts/${r.body.id}/receipt`, { key: b.sandbox });
      expect(receipt.body.confirmed_received_at).toBeNull();
    });
  });

  describe('claim links', () => {
    const claimBody = (extra: Record<string, unknown> = {}) => ({
      channel: 'claim_link',
      recipient: { type: 'phone', number: '+525512345678' },
      source_amount: '50',
      message: 'Thanks for your work!',
      ...extra,
    });

    it('submitted -> awaiting_claim -> claimed through the sandbox endpoint -> succeeded', async () => {
      const b = await newBiz('100');
      const r = await post(b, claimBody());
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ status: 'submitted', attempts: 1, message: 'Thanks for your work!' });
      // Claim fee: 0.25 flat provider + 1 % service.
      expect(r.body.fees.total).toBe('0.75');
      const waiting = await waitStatus(b, r.body.id, 'awaiting_claim');
      expect(waiting.claim.url).toMatch(new RegExp(`^${h.config.publicUrl}/c/[A-Za-z0-9_-]{20,}$`));
      const window = new Date(waiting.claim.expires_at).getTime() - Date.now();
      expect(window).toBeGreaterThan(29 * 24 * 3600 * 1000);
      expect(waiting.attempt_history).toEqual([]);

      const bad = await h.request('POST', `/sandbox/v1/sandbox/payouts/${r.body.id}/claim`, { key: b.sandbox, body: { method: 'pigeon' } });
      expect([bad.status, bad.body.error.code, bad.body.error.param]).toEqual([400, 'validation_error', 'method']);

      const claimed = await h.request('POST', `/sandbox/v1/sandbox/payouts/${r.body.id}/claim`, { key: b.sandbox, body: { method: 'bank_transfer' } });
      expect(claimed.status).toBe(200);
      expect(['claimed', 'delivering', 'succeeded']).toContain(claimed.body.status);
      expect(claimed.body.claim).toMatchObject({ method: 'bank_transfer', claimed_at: expect.any(String) });

      const done = await waitStatus(b, r.body.id, 'succeeded', 'failed');
      expect(done.status).toBe('succeeded');
      expect(done.provider_reference).toMatch(/^sbx_claim_link_/);
      expect(await balance(b)).toMatchObject({ available: '49.25', held: '0.00' });
      expect(await eventTypes(r.body.id)).toEqual(['payout.submitted', 'payout.awaiting_claim', 'payout.claimed', 'payout.succeeded']);

      const again = await h.request('POST', `/sandbox/v1/sandbox/payouts/${r.body.id}/claim`, { key: b.sandbox, body: { method: 'wallet' } });
      expect([again.status, again.body.error.code]).toEqual([409, 'invalid_state']);
    });

    it('sandbox:claim_expired -> failed claim_expired, balance restored', async () => {
      const b = await newBiz('100');
      const r = await post(b, claimBody({ reference: 'sandbox:claim_expired', recipient: { type: 'email', address: 'ana@example.com' } }));
      expect(r.status).toBe(201);
      const p = await waitStatus(b, r.body.id, 'failed', 'succeeded');
      expect(p.failure).toEqual({ code: 'claim_expired', message: expect.any(String) });
      expect(await balance(b)).toMatchObject({ available: '100.00', held: '0.00' });
      expect(await eventTypes(r.body.id)).toEqual(['payout.submitted', 'payout.awaiting_claim', 'payout.failed']);
      const late = await h.request('POST', `/sandbox/v1/sandbox/payouts/${r.body.id}/claim`, { key: b.sandbox, body: { method: 'wallet' } });
      expect([late.status, late.body.error.code]).toEqual([409, 'invalid_state']);
    });
  });

  describe('idempotency (spec "Limits", docs/architecture.md)', () => {
    it('a replay returns the identical body with Idempotent-Replayed; another body is 409 idempotency_conflict', async () => {
      const b = await newBiz('100');
      const headers = { 'Idempotency-Key': 'order-1' };
      const first = await post(b, usdcBody('3'), headers);
      expect(first.status).toBe(201);
      const replay = await post(b, usdcBody('3'), headers);
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
      const conflict = await post(b, usdcBody('4'), headers);
      expect([conflict.status, conflict.body.error.code]).toEqual([409, 'idempotency_conflict']);
      const rows = await h.db.selectFrom('payouts').select('id').where('business_id', '=', b.id).execute();
      expect(rows).toHaveLength(1);
      await waitStatus(b, first.body.id, 'succeeded');
      expect(await balance(b)).toMatchObject({ available: '97.00' });
    });

    it('10 concurrent identical requests create exactly one payout', async () => {
      const b = await newBiz('100');
      const headers = { 'Idempotency-Key': 'burst-1' };
      const rs = await Promise.all(Array.from({ length: 10 }, () => post(b, usdcBody('2'), headers)));
      const created = rs.filter((r) => r.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
      for (const r of rs.filter((x) => x.status !== 201)) expect([r.status, r.body.error.code]).toEqual([409, 'idempotency_in_flight']);
      const rows = await h.db.selectFrom('payouts').select('id').where('business_id', '=', b.id).execute();
      expect(rows).toHaveLength(1);
      await waitStatus(b, created[0].body.id, 'succeeded');
      expect(await balance(b)).toMatchObject({ available: '98.00', held: '0.00' });
    });

    it('the core never creates two payouts for one key, even when the idempotency record was lost', async () => {
      const b = await newBiz('100');
      const key = await h.db.selectFrom('api_keys').select('id').where('business_id', '=', b.id).where('environment', '=', 'sandbox').executeTakeFirstOrThrow();
      const caller: Caller = { businessId: b.id, environment: 'sandbox', keyId: key.id, role: 'owner', policy: null };
      const req = { channel: 'service_user_usdc', recipient: { type: 'service_user' as const, handle: '@maria' }, sourceAmount: '5' };
      const [a, c] = await Promise.all([
        createPayout(h.core, caller, req, { idempotencyKey: 'lost-1' }),
        createPayout(h.core, caller, req, { idempotencyKey: 'lost-1' }),
      ]);
      const d = await createPayout(h.core, caller, req, { idempotencyKey: 'lost-1' });
      expect(c.id).toBe(a.id);
      expect(d.id).toBe(a.id);
      expect(await postingKeys(a.id)).toContain(`payout:${a.id}:hold`);
      await waitStatus(b, a.id, 'succeeded');
      expect(await balance(b)).toMatchObject({ available: '95.00', held: '0.00' });
    });

    it('a lost record\'s payout answers even when a new accept would now be refused (balance spent): one payout, one hold', async () => {
      const b = await newBiz('10');
      const key = await h.db.selectFrom('api_keys').select('id').where('business_id', '=', b.id).where('environment', '=', 'sandbox').executeTakeFirstOrThrow();
      const caller: Caller = { businessId: b.id, environment: 'sandbox', keyId: key.id, role: 'owner', policy: null };
      const req = { channel: 'service_user_usdc', recipient: { type: 'service_user' as const, handle: '@maria' }, sourceAmount: '6' };
      const a = await createPayout(h.core, caller, req, { idempotencyKey: 'lost-2' });
      // The rest of the balance (4.00) cannot cover a second 6.00: a new accept would be 402.
      await expect(createPayout(h.core, caller, req)).rejects.toMatchObject({ status: 402, code: 'insufficient_balance' });
      const again = await createPayout(h.core, caller, req, { idempotencyKey: 'lost-2' });
      expect(again.id).toBe(a.id);
      const rows = await h.db.selectFrom('payouts').select('id').where('business_id', '=', b.id).execute();
      expect(rows.map((r) => r.id)).toEqual([a.id]);
      await waitStatus(b, a.id, 'succeeded');
      expect(await balance(b)).toMatchObject({ available: '4.00', held: '0.00' });
    });

    it('with a key policy, a replay of a lost record answers the first payout and charges the daily budget nothing', async () => {
      const b = await newBiz('100');
      const key = await h.db.selectFrom('api_keys').select('id').where('business_id', '=', b.id).where('environment', '=', 'sandbox').executeTakeFirstOrThrow();
      const caller: Caller = { businessId: b.id, environment: 'sandbox', keyId: key.id, role: 'owner', policy: { daily_budget: '10.00' } };
      const req = { channel: 'service_user_usdc', recipient: { type: 'service_user' as const, handle: '@maria' }, sourceAmount: '5' };
      const a = await createPayout(h.core, caller, req, { idempotencyKey: 'lost-3' });
      // The replay's accept reserves 5 more (10 <= 10), is refused by the key's unique index and rolls back whole.
      const again = await createPayout(h.core, caller, req, { idempotencyKey: 'lost-3' });
      expect(again.id).toBe(a.id);
      // So 5 of the budget are left for a new payout, and nothing more.
      const c = await createPayout(h.core, caller, req);
      expect(c.id).not.toBe(a.id);
      await expect(createPayout(h.core, caller, { ...req, sourceAmount: '0.01' })).rejects.toMatchObject({ status: 403, code: 'policy_exceeded' });
      const rows = await h.db.selectFrom('payouts').select('id').where('business_id', '=', b.id).orderBy('id').execute();
      expect(rows.map((r) => r.id).sort()).toEqual([a.id, c.id].sort());
    });
  });

  describe('concurrency: no balance below zero', () => {
    it('100 concurrent payouts against a balance covering exactly 50: 50 accepted, 50 refused with 402', async () => {
      const b = await newBiz('50');
      const rs = await Promise.all(Array.from({ length: 100 }, () => post(b, usdcBody('1'))));
      const statuses = rs.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(50);
      expect(statuses.filter((s) => s === 402)).toHaveLength(50);
      for (const r of rs.filter((x) => x.status === 402)) expect(r.body.error.code).toBe('insufficient_balance');
      expect(await balance(b)).toMatchObject({ available: '0.00', held: '50.00' });

      await waitFor(async () => {
        const n = await h.db
          .selectFrom('payouts')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('business_id', '=', b.id)
          .where('status', '=', 'succeeded')
          .executeTakeFirstOrThrow();
        return Number(n.n) === 50;
      }, '50 payouts to succeed', 60_000);
      expect(await balance(b)).toMatchObject({ available: '0.00', held: '0.00' });

      // The ledger explains the balance: every account's net flow matches.
      const postings = await h.db.selectFrom('ledger_postings').selectAll().where('business_id', '=', b.id).execute();
      const net: Record<string, bigint> = {};
      for (const p of postings) {
        net[p.debit_account] = (net[p.debit_account] ?? 0n) - p.amount;
        net[p.credit_account] = (net[p.credit_account] ?? 0n) + p.amount;
      }
      expect(net).toEqual({ external: -50_000_000n, available: 0n, held: 0n, sent: 50_000_000n });
      expect(postings.filter((p) => p.key.endsWith(':hold'))).toHaveLength(50);
      expect(postings.filter((p) => p.key.endsWith(':settle'))).toHaveLength(50);
    });
  });

  describe('reading payouts', () => {
    let b: Biz;
    const ids: string[] = [];
    beforeAll(async () => {
      b = await newBiz('1000');
      for (const body of [usdcBody('1'), speiBody({ source_amount: '10' }), usdcBody('2', { reference: 'sandbox:provider_declined' })]) {
        const r = await post(b, body);
        expect(r.status).toBe(201);
        ids.push(r.body.id);
      }
      await waitStatus(b, ids[2], 'failed');
      await waitStatus(b, ids[0], 'succeeded');
      await waitStatus(b, ids[1], 'succeeded');
    });

    it('lists newest first with attempts as a count, pages with limit and cursor', async () => {
      const all = await h.request('GET', '/sandbox/v1/payouts', { key: b.sandbox });
      expect(all.status).toBe(200);
      expect(all.body.data.map((p: any) => p.id)).toEqual([...ids].reverse());
      expect(all.body.next_cursor).toBeNull();
      expect(all.body.data[0].attempts).toBe(1);
      expect(all.body.data[0].attempt_history).toBeUndefined();
      const p1 = await h.request('GET', '/sandbox/v1/payouts?limit=2', { key: b.sandbox });
      expect(p1.body.data).toHaveLength(2);
      const p2 = await h.request('GET', `/sandbox/v1/payouts?limit=2&cursor=${p1.body.next_cursor}`, { key: b.sandbox });
      expect(p2.body.data.map((p: any) => p.id)).toEqual([ids[0]]);
      expect(p2.body.next_cursor).toBeNull();
    });

    it('filters by status, channel and since', async () => {
      const failed = await h.request('GET', '/sandbox/v1/payouts?status=failed', { key: b.sandbox });
      expect(failed.body.data.map((p: any) => p.id)).toEqual([ids[2]]);
      const spei = await h.request('GET', '/sandbox/v1/payouts?channel=spei_mxn', { key: b.sandbox });
      expect(spei.body.data.map((p: any) => p.id)).toEqual([ids[1]]);
      const future = await h.request('GET', `/sandbox/v1/payouts?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { key: b.sandbox });
      expect(future.body.data).toEqual([]);
      const past = await h.request('GET', '/sandbox/v1/payouts?since=2020-01-01T00:00:00Z', { key: b.sandbox });
      expect(past.body.data).toHaveLength(3);
    });
  });

  describe('balance and sandbox funding (extensions)', () => {
    it('a funding with an Idempotency-Key credits once', async () => {
      const b = await newBiz();
      for (let i = 0; i < 2; i++) {
        const r = await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '10' }, headers: { 'Idempotency-Key': 'f1' } });
        expect(r.status).toBe(200);
      }
      expect(await balance(b)).toMatchObject({ available: '10.00' });
    });
  });
});

describe('payouts: error', () => {
  describe('POST /payouts validation (spec "Payout create body", "Errors")', () => {
    let b: Biz;
    beforeAll(async () => {
      b = await newBiz('1000');
    });

    const cases: [string, Record<string, unknown>, number, string, string][] = [
      ['channel missing', { recipient: speiRecipient, source_amount: '10' }, 400, 'validation_error', 'channel'],
      ['unknown channel', speiBody({ channel: 'nope_xyz' }), 400, 'validation_error', 'channel'],
      ['both recipient_id and recipient', speiBody({ recipient_id: 'rcp_x' }), 400, 'validation_error', 'recipient'],
      ['neither recipient_id nor recipient', { channel: 'spei_mxn', source_amount: '10' }, 400, 'validation_error', 'recipient_id'],
      ['both amounts', speiBody({ destination_amount: '100' }), 400, 'validation_error', 'destination_amount'],
      ['neither amount', { channel: 'spei_mxn', recipient: speiRecipient }, 400, 'validation_error', 'source_amount'],
      ['malformed amount', speiBody({ source_amount: '10.5.5' }), 400, 'validation_error', 'source_amount'],
      ['amount as a number', speiBody({ source_amount: 10 }), 400, 'validation_error', 'source_amount'],
      ['7 decimals of USDC', speiBody({ source_amount: '10.1234567' }), 400, 'validation_error', 'source_amount'],
      ['3 decimals of MXN', { ...speiBody(), source_amount: undefined, destination_amount: '100.123' }, 400, 'validation_error', 'destination_amount'],
      ['zero amount', speiBody({ source_amount: '0' }), 400, 'validation_error', 'source_amount'],
      ['reference over 140 characters', speiBody({ reference: 'x'.repeat(141) }), 400, 'validation_error', 'reference'],
      ['message on a channel other than claim_link', speiBody({ message: 'hi' }), 400, 'validation_error', 'message'],
      ['invalid inline field', speiBody({ recipient: { ...speiRecipient, clabe: '032180000118359710' } }), 400, 'validation_error', 'recipient.clabe'],
      ['inline type the channel does not pay', speiBody({ recipient: { type: 'phone', number: '+525512345678' } }), 400, 'validation_error', 'recipient.type'],
      ['inline recipient missing fields', speiBody({ recipient: { type: 'bank_account', clabe: CLABE } }), 422, 'recipient_not_ready', 'recipient'],
      ['unknown recipient_id', { channel: 'spei_mxn', recipient_id: 'rcp_nope', source_amount: '10' }, 404, 'not_found', 'recipient_id'],
      ['below the channel minimum', speiBody({ source_amount: '0.50' }), 400, 'amount_out_of_range', 'source_amount'],
      ['above the channel maximum', speiBody({ source_amount: '50000.01' }), 400, 'amount_out_of_range', 'source_amount'],
      ['unknown quote', speiBody({ quote_id: 'qt_nope', source_amount: undefined }), 404, 'not_found', 'quote_id'],
    ];
    it.each(cases.map(([name, body, status, code, param]) => ({ name, body, status, code, param })))(
      '$name -> $status $code (param $param)',
      async ({ body, status, code, param }) => {
      const r = await post(b, body);
      expect(r.status).toBe(status);
      expect(r.body.error.code).toBe(code);
      expect(r.body.error.param).toBe(param);
      expect(r.body.error.message).toEqual(expect.any(String));
    },
    );

    it('saved recipients: needs_fields is 422, a type the channel does not pay is 400, another tenant\'s is 404', async () => {
      const needs = await insertRecipient(b, { type: 'bank_account', details: { clabe: CLABE }, status: 'needs_fields', channels: [], missing: ['holder_name'] });
      let r = await post(b, { channel: 'spei_mxn', recipient_id: needs, source_amount: '10' });
      expect([r.status, r.body.error.code, r.body.error.param]).toEqual([422, 'recipient_not_ready', 'recipient_id']);
      const phone = await insertRecipient(b, { type: 'phone', details: { number: '+525512345678' }, status: 'ready', channels: ['claim_link'] });
      r = await post(b, { channel: 'spei_mxn', recipient_id: phone, source_amount: '10' });
      expect([r.status, r.body.error.code, r.body.error.param]).toEqual([400, 'validation_error', 'recipient_id']);
      const other = await newBiz();
      const foreign = await insertRecipient(other, { type: 'bank_account', details: speiRecipient, status: 'ready', channels: ['spei_mxn'] });
      r = await post(b, { channel: 'spei_mxn', recipient_id: foreign, source_amount: '10' });
      expect([r.status, r.body.error.code, r.body.error.param]).toEqual([404, 'not_found', 'recipient_id']);
    });

    it('402 insufficient_balance leaves the balance and the payouts untouched', async () => {
      const poor = await newBiz('5');
      const r = await post(poor, speiBody({ source_amount: '10' }));
      expect(r.status).toBe(402);
      expect(r.body.error.code).toBe('insufficient_balance');
      expect(await balance(poor)).toEqual({ object: 'balance', currency: 'USDC', available: '5.00', held: '0.00', reserve: '0.00' });
      const list = await h.request('GET', '/sandbox/v1/payouts', { key: poor.sandbox });
      expect(list.body.data).toEqual([]);
    });

    it('402 for a business that never had a balance: the accept statement writes nothing (no payout, posting, event or workflow start)', async () => {
      const never = await newBiz();
      const r = await post(never, speiBody({ source_amount: '10' }), { 'Idempotency-Key': 'never-funded-1' });
      expect([r.status, r.body.error.code]).toEqual([402, 'insufficient_balance']);
      expect(r.body.error.message).toContain('0.00 USDC available');
      expect(await balance(never)).toEqual({ object: 'balance', currency: 'USDC', available: '0.00', held: '0.00', reserve: '0.00' });
      const count = async (table: 'payouts' | 'ledger_postings' | 'events') =>
        Number((await h.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).where('business_id', '=', never.id).executeTakeFirstOrThrow()).n);
      expect([await count('payouts'), await count('ledger_postings'), await count('events')]).toEqual([0, 0, 0]);
      const starts = await h.db.selectFrom('workflow_starts').select('workflow_id').where('workflow_id', 'like', 'po_%').where('created_at', '>=', new Date(Date.now() - 60_000)).execute();
      const ids = new Set((await h.db.selectFrom('payouts').select('id').execute()).map((p) => p.id));
      expect(starts.filter((s) => !ids.has(s.workflow_id))).toEqual([]);
      // Funded afterwards, the same key makes the payout (a 402 is not an idempotent answer).
      expect((await h.request('POST', '/sandbox/v1/sandbox/fund', { key: never.sandbox, body: { amount: '20' } })).status).toBe(200);
      const again = await post(never, speiBody({ source_amount: '10' }), { 'Idempotency-Key': 'never-funded-2' });
      expect(again.status).toBe(201);
      expect(await count('ledger_postings')).toBe(2); // the funding and the hold
    });

    it('quotes: another channel is 400, an expired one 410 quote_expired, amounts that differ 400 (param quote_id / source_amount)', async () => {
      const other = await insertQuote(b, { channel: 'sepa_eur' });
      let r = await post(b, speiBody({ quote_id: other, source_amount: undefined }));
      expect([r.status, r.body.error.code, r.body.error.param]).toEqual([400, 'validation_error', 'quote_id']);
      const expired = await insertQuote(b, { expired: true });
      r = await post(b, speiBody({ quote_id: expired, source_amount: undefined }));
      expect([r.status, r.body.error.code, r.body.error.param]).toEqual([410, 'quote_expired', 'quote_id']);
      const fresh = await insertQuote(b);
      r = await post(b, speiBody({ quote_id: fresh, source_amount: '10' }));
      expect([r.status, r.body.error.code, r.body.error.param]).toEqual([400, 'validation_error', 'source_amount']);
      const foreign = await insertQuote(await newBiz());
      r = await post(b, speiBody({ quote_id: foreign, source_amount: undefined }));
      expect([r.status, r.body.error.code, r.body.error.param]).toEqual([404, 'not_found', 'quote_id']);
    });
  });

  describe('claim links', () => {
    it('claiming a direct payout is 409 invalid_state; an unknown one 404', async () => {
      const b = await newBiz('100');
      const r = await post(b, usdcBody('1'));
      const c = await h.request('POST', `/sandbox/v1/sandbox/payouts/${r.body.id}/claim`, { key: b.sandbox, body: { method: 'wallet' } });
      expect([c.status, c.body.error.code]).toEqual([409, 'invalid_state']);
      const u = await h.request('POST', '/sandbox/v1/sandbox/payouts/po_nope/claim', { key: b.sandbox, body: { method: 'wallet' } });
      expect([u.status, u.body.error.code, u.body.error.param]).toEqual([404, 'not_found', 'id']);
    });
  });

  describe('paused channels', () => {
    it('400 channel_unavailable (param channel) on a paused channel', async () => {
      const paused = await createHarness({ worker: false, env: { PAUSED_CHANNELS: 'sepa_eur' } });
      try {
        const b = await paused.business();
        const r = await paused.request('POST', '/sandbox/v1/payouts', {
          key: b.sandbox,
          body: { channel: 'sepa_eur', recipient: { type: 'bank_account', holder_name: 'Jan', iban: 'DE89370400440532013000' }, source_amount: '10' },
        });
        expect([r.status, r.body.error.code, r.body.error.param]).toEqual([400, 'channel_unavailable', 'channel']);
      } finally {
        await paused.close();
      }
    });
  });

  describe('reading payouts', () => {
    let b: Biz;
    beforeAll(async () => {
      b = await newBiz();
    });

    it('bad filters are 400 validation_error naming the param', async () => {
      for (const [q, param] of [
        ['status=lost', 'status'],
        ['since=yesterday', 'since'],
        ['limit=500', 'limit'],
        ['cursor=garbage', 'cursor'],
      ]) {
        const r = await h.request('GET', `/sandbox/v1/payouts?${q}`, { key: b.sandbox });
        expect([r.status, r.body.error.code, r.body.error.param]).toEqual([400, 'validation_error', param]);
      }
    });
  });

  describe('sandbox funding (extension)', () => {
    it('funds the sandbox balance; validates the amount; does not exist live', async () => {
      const b = await newBiz();
      expect(await balance(b)).toEqual({ object: 'balance', currency: 'USDC', available: '0.00', held: '0.00', reserve: '0.00' });
      const r = await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '12.345678' } });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ object: 'balance', currency: 'USDC', available: '12.345678', held: '0.00', reserve: '0.00' });
      for (const amount of ['-1', '0', '1.1234567', 'abc', '99999999999']) {
        const bad = await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount } });
        expect([bad.status, bad.body.error.code, bad.body.error.param], amount).toEqual([400, 'validation_error', 'amount']);
      }
      const live = await h.request('POST', '/v1/sandbox/fund', { key: b.live, body: { amount: '10' } });
      expect([live.status, live.body.error.code]).toEqual([404, 'not_found']);
      const mismatch = await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.live, body: { amount: '10' } });
      expect(mismatch.status).toBe(401);
      const liveBalance = await h.request('GET', '/v1/balance', { key: b.live });
      expect(liveBalance.body).toMatchObject({ available: '0.00', held: '0.00' });
    });
  });
});

describe('payouts: security', () => {
  let owner: Biz;
  let other: Biz;
  let payoutId: string;
  beforeAll(async () => {
    owner = await newBiz('100');
    other = await newBiz('100');
    const r = await post(owner, usdcBody('1'));
    expect(r.status).toBe(201);
    payoutId = r.body.id;
    await waitStatus(owner, payoutId, 'succeeded');
  });

  const routes = () => [
    ['POST', '/payouts', usdcBody('1')],
    ['GET', '/payouts', undefined],
    ['GET', `/payouts/${payoutId}`, undefined],
    ['GET', `/payouts/${payoutId}/receipt`, undefined],
    ['GET', '/balance', undefined],
    ['POST', '/sandbox/fund', { amount: '10' }],
    ['POST', `/sandbox/payouts/${payoutId}/claim`, { method: 'wallet' }],
  ] as const;

  it('401 on every payout route without a key, with a live key, with an unknown key and with a revoked key; nothing changes', async () => {
    const revoked = await newBiz();
    await h.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('business_id', '=', revoked.id).execute();
    const keys: [string | undefined, string][] = [
      [undefined, 'authentication_required'],
      [owner.live, 'environment_mismatch'],
      ['sk_test_not_a_key', 'invalid_api_key'],
      [revoked.sandbox, 'api_key_revoked'],
    ];
    for (const [method, path, body] of routes()) {
      for (const [key, code] of keys) {
        const r = await h.request<ErrorBody>(method, `/sandbox/v1${path}`, { key, body });
        expect([r.status, r.body.error.code, r.body.error.param], `${method} ${path} ${code}`).toEqual([401, code, null]);
        expect(r.body.error.request_id).toBe(r.headers.get('X-Request-ID'));
      }
    }
    expect(await balance(owner)).toMatchObject({ available: '99.00', held: '0.00' });
    const rows = await h.db.selectFrom('payouts').select('id').where('business_id', '=', owner.id).execute();
    expect(rows.map((x) => x.id)).toEqual([payoutId]);
  });

  it("another business's payout is 404 not_found (param id) on read, receipt and claim, and is not listed", async () => {
    for (const [method, path, body] of [
      ['GET', `/sandbox/v1/payouts/${payoutId}`, undefined],
      ['GET', `/sandbox/v1/payouts/${payoutId}/receipt`, undefined],
      ['POST', `/sandbox/v1/sandbox/payouts/${payoutId}/claim`, { method: 'wallet' }],
    ] as const) {
      const r = await h.request<ErrorBody>(method, path, { key: other.sandbox, body });
      expect([r.status, r.body.error.code, r.body.error.param], path).toEqual([404, 'not_found', 'id']);
    }
    const list = await h.request<PayoutListResponse>('GET', '/sandbox/v1/payouts', { key: other.sandbox });
    expect(list.body.data).toEqual([]);
    const mine = await h.request<PayoutResponse>('GET', `/sandbox/v1/payouts/${payoutId}`, { key: owner.sandbox });
    expect([mine.status, mine.body.status]).toEqual([200, 'succeeded']);
  });

  it('a sandbox payout does not exist live, and the sandbox-only routes are 404 under the live address', async () => {
    const r = await h.request<ErrorBody>('GET', `/v1/payouts/${payoutId}`, { key: owner.live });
    expect([r.status, r.body.error.code]).toEqual([404, 'not_found']);
    const list = await h.request<PayoutListResponse>('GET', '/v1/payouts', { key: owner.live });
    expect([list.status, list.body.data]).toEqual([200, []]);
    const claim = await h.request<ErrorBody>('POST', `/v1/sandbox/payouts/${payoutId}/claim`, { key: owner.live, body: { method: 'wallet' } });
    expect([claim.status, claim.body.error.code]).toEqual([404, 'not_found']);
  });

  it("another business's saved recipient or quote is 404 naming it, and no payout is created", async () => {
    const recipient = await insertRecipient(owner, { type: 'bank_account', details: speiRecipient, status: 'ready', channels: ['spei_mxn'] });
    const quote = await insertQuote(owner);
    let r = await post(other, { channel: 'spei_mxn', recipient_id: recipient, source_amount: '10' });
    expect([r.status, r.body.error.code, r.body.error.param]).toEqual([404, 'not_found', 'recipient_id']);
    r = await post(other, speiBody({ quote_id: quote, source_amount: undefined }));
    expect([r.status, r.body.error.code, r.body.error.param]).toEqual([404, 'not_found', 'quote_id']);
    const rows = await h.db.selectFrom('payouts').select('id').where('business_id', '=', other.id).execute();
    expect(rows).toEqual([]);
    expect(await balance(other)).toMatchObject({ available: '100.00', held: '0.00' });
  });

  it('a live key on the sandbox address is 401 environment_mismatch; the live environment has no rail (400 channel_unavailable)', async () => {
    const r = await h.request<ErrorBody>('POST', '/sandbox/v1/payouts', { key: owner.live, body: speiBody() });
    expect([r.status, r.body.error.code]).toEqual([401, 'environment_mismatch']);
    const live = await h.request<ErrorBody>('POST', '/v1/payouts', { key: owner.live, body: speiBody() });
    expect([live.status, live.body.error.code, live.body.error.param]).toEqual([400, 'channel_unavailable', 'channel']);
  });

  it('the OpenAPI document describes the payout routes', async () => {
      const doc = await h.request('GET', '/sandbox/v1/openapi.json');
      for (const path of ['/payouts', '/payouts/{id}', '/payouts/{id}/receipt', '/balance', '/sandbox/fund', '/sandbox/payouts/{id}/claim']) {
        expect(doc.body.paths[path], path).toBeDefined();
      }
      expect(doc.body.components.schemas.Payout).toBeDefined();
    });
});

describe('payouts: a workflow start replayed after the run has closed', () => {
  it('the relay re-sending the start of a finished payout (its "started" mark lost with its API process) starts no second run', async () => {
    const { sweepWorkflowStarts } = await import('../../src/core/workflow-starts');
    const b = await newBiz('10');
    const r = await post(b, usdcBody('1.00'));
    expect(r.status).toBe(201);
    await waitStatus(b, r.body.id, 'succeeded');
    const handle = h.core.temporal.workflow.getHandle(r.body.id);
    const first = await waitFor(async () => {
      const d = await handle.describe();
      return d.status.name === 'COMPLETED' ? d : undefined;
    }, 'the payout workflow to complete');
    // The mark is written in batches after the start (src/core/workflow-starts.ts): a process killed
    // in between leaves the row unmarked, and the relay's sweep sends the start again.
    await h.db.updateTable('workflow_starts').set({ started_at: null, created_at: new Date(Date.now() - 60_000) }).where('workflow_id', '=', r.body.id).execute();
    await sweepWorkflowStarts(h.core, 0);
    const after = await handle.describe();
    expect([after.runId, after.status.name]).toEqual([first.runId, 'COMPLETED']);
    const runs: string[] = [];
    for await (const w of h.core.temporal.workflow.list({ query: `WorkflowId = '${r.body.id}'` })) runs.push(w.runId);
    expect(runs).toEqual([first.runId]);
    expect((await get(b, r.body.id)).body.status).toBe('succeeded');
  });
});
