import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreIdempotencyKey } from '../../src/domain/idempotency-keys';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * One Idempotency-Key value sent to two surfaces is two requests (docs/architecture.md money rule 6,
 * src/domain/idempotency-keys.ts): each surface's keys live in their own namespace in the core too.
 * Before, Surface C shared Surface A's: a Surface C payout or sandbox funding whose key Surface A had
 * used was answered 201 with Surface A's object, and nothing was created.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ worker: false });
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';
const B = '/sandbox/claim/v1';
const C = '/sandbox/guide/v1';
const usdc = (amount: string) => ({ channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: amount });

describe('coreIdempotencyKey', () => {
  it('puts B and C in their own prefixes, keeps A keys as they were, and escapes A keys that look like a namespace', () => {
    expect(coreIdempotencyKey('A', 'order-42')).toBe('order-42');
    expect(coreIdempotencyKey('B', 'order-42')).toBe('claim:order-42');
    expect(coreIdempotencyKey('C', 'order-42')).toBe('guide:order-42');
    expect(coreIdempotencyKey('A', 'claim:order-42')).toBe('A:claim:order-42');
    expect(coreIdempotencyKey('A', 'A:x')).toBe('A:A:x');
  });

  it('is injective over (surface, key) for keys built to collide', () => {
    const keys = ['x', 'claim:x', 'guide:x', 'A:x', 'A:claim:x', 'claim:claim:x', 'A:A:x', 'guide:', 'claim:', 'A:', ''];
    const seen = new Map<string, string>();
    for (const s of ['A', 'B', 'C'] as const) {
      for (const k of keys) {
        const core = coreIdempotencyKey(s, k);
        expect(seen.get(core), `${s} ${k} -> ${core}`).toBeUndefined();
        seen.set(core, `${s} ${k}`);
      }
    }
  });
});

describe('the same Idempotency-Key on two surfaces', () => {
  it('Surface C POST /payouts after Surface A used the key creates its own payout (was: answered with Surface A\'s)', async () => {
    const b = await h.business();
    await h.request('POST', `${A}/sandbox/fund`, { key: b.sandbox, body: { amount: '100' } });
    const a = await h.request('POST', `${A}/payouts`, { key: b.sandbox, body: usdc('3.00'), headers: { 'Idempotency-Key': 'order-42' } });
    expect(a.status, a.text).toBe(201);
    const c = await h.request('POST', `${C}/payouts`, { key: b.sandbox, body: { amount: '7.00', currency: 'USD', email: 'ana@example.com' }, headers: { 'Idempotency-Key': 'order-42' } });
    expect(c.status, c.text).toBe(201);
    expect(c.body.id).not.toBe(a.body.id);
    expect(c.body.amount).toBe('7.00');
    const rows = await h.db.selectFrom('payouts').select(['id', 'channel', 'idempotency_key']).where('business_id', '=', b.id).orderBy('id').execute();
    expect(rows.map((r) => [r.channel, r.idempotency_key])).toEqual([
      ['service_user_usdc', 'order-42'],
      ['claim_link', 'guide:order-42'],
    ]);
    // each surface still replays its own
    const again = await h.request('POST', `${C}/payouts`, { key: b.sandbox, body: { amount: '7.00', currency: 'USD', email: 'ana@example.com' }, headers: { 'Idempotency-Key': 'order-42' } });
    expect([again.status, again.body.id, again.headers.get('Idempotent-Replayed')]).toEqual([201, c.body.id, 'true']);
  });

  it('sandbox funding with one key on A, B and C credits three times (was: C\'s funding credited nothing)', async () => {
    const b = await h.business();
    const fa = await h.request('POST', `${A}/sandbox/fund`, { key: b.sandbox, body: { amount: '10' }, headers: { 'Idempotency-Key': 'fund-1' } });
    const fb = await h.request('POST', `${B}/sandbox/fund`, { key: b.sandbox, body: { amountUsd: '5', idempotencyKey: 'fund-1' } });
    const fc = await h.request('POST', `${C}/sandbox/fund`, { key: b.sandbox, body: { amount: '20' }, headers: { 'Idempotency-Key': 'fund-1' } });
    expect([fa.status, fb.status, fc.status]).toEqual([200, 200, 200]);
    const bal = await h.request('GET', `${A}/balance`, { key: b.sandbox });
    expect(bal.body.available).toBe('35.00');
    const postings = await h.db.selectFrom('ledger_postings').select('key').where('business_id', '=', b.id).where('key', 'like', 'fund:idem:%').orderBy('key').execute();
    expect(postings.map((p) => p.key)).toEqual(['fund:idem:claim:fund-1', 'fund:idem:fund-1', 'fund:idem:guide:fund-1']);
  });

  it('a Surface A key that looks like a Surface B one (`claim:x`) does not answer Surface B\'s `x`', async () => {
    const b = await h.business();
    await h.request('POST', `${A}/sandbox/fund`, { key: b.sandbox, body: { amount: '100' } });
    const a = await h.request('POST', `${A}/payouts`, { key: b.sandbox, body: usdc('2.00'), headers: { 'Idempotency-Key': 'claim:x' } });
    expect(a.status, a.text).toBe(201);
    const d = await h.request('POST', `${B}/disbursements`, { key: b.sandbox, body: { recipientPhone: '+525512345678', amountUsd: '4.00', idempotencyKey: 'x' } });
    expect(d.status, d.text).toBe(201);
    expect(d.body.id).not.toBe(a.body.id);
    expect(d.body.amountUsd).toBe('4.00');
  });
});
