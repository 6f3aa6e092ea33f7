import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * Issue 10 deviations: an Idempotency-Key older than the 30-day retention (spec "Limits") starts a
 * new payout / disbursement; disbursement.awaiting_approval is emitted by every submit-for-approval.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';
const usdc = (amount: string) => ({ channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: amount });
const dsb = (name: string) => ({ name, items: [{ channel: 'service_user_usdc', source_amount: '1.00', recipient: { type: 'service_user', handle: '@retention' } }] });

/** Makes the resource and its idempotency record look `days` old (the record expired). */
async function age(table: 'payouts' | 'disbursements', id: string, businessId: string, key: string, days: number) {
  await h.db.updateTable(table).set({ created_at: sql`now() - ${`${days} days`}::interval` }).where('id', '=', id).execute();
  await h.db
    .updateTable('idempotency_keys')
    .set({ created_at: sql`now() - ${`${days} days`}::interval`, expires_at: sql`now() - ${`${days - 30} days`}::interval` })
    .where('business_id', '=', businessId)
    .where('key', '=', key)
    .execute();
}

describe('Idempotency-Key retention (30 days)', () => {
  it('a payout key older than 30 days starts a new payout; the old payout keeps its key retired', async () => {
    const b = await h.business();
    await h.request('POST', `${A}/sandbox/fund`, { key: b.sandbox, body: { amount: '100' } });
    const first = await h.request('POST', `${A}/payouts`, { key: b.sandbox, body: usdc('1.00'), headers: { 'Idempotency-Key': 'k-old' } });
    expect(first.status).toBe(201);
    await age('payouts', first.body.id, b.id, 'k-old', 31);
    const second = await h.request('POST', `${A}/payouts`, { key: b.sandbox, body: usdc('2.00'), headers: { 'Idempotency-Key': 'k-old' } });
    expect(second.status, second.text).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body.source_amount).toBe('2.00');
    expect(second.headers.get('Idempotent-Replayed')).toBeNull();
    const old = await h.db.selectFrom('payouts').select('idempotency_key').where('id', '=', first.body.id).executeTakeFirstOrThrow();
    expect(old.idempotency_key).toBe(`k-old#retired:${first.body.id}`);
    // Within the retention the key still answers with its payout, even if its record was lost.
    await h.db.deleteFrom('idempotency_keys').where('business_id', '=', b.id).where('key', '=', 'k-old').execute();
    const third = await h.request('POST', `${A}/payouts`, { key: b.sandbox, body: usdc('2.00'), headers: { 'Idempotency-Key': 'k-old' } });
    expect(third.body.id).toBe(second.body.id);
  });

  it('a payout key 29 days old still replays (and conflicts with another body)', async () => {
    const b = await h.business();
    await h.request('POST', `${A}/sandbox/fund`, { key: b.sandbox, body: { amount: '100' } });
    const first = await h.request('POST', `${A}/payouts`, { key: b.sandbox, body: usdc('1.00'), headers: { 'Idempotency-Key': 'k-29' } });
    await h.db.updateTable('payouts').set({ created_at: sql`now() - interval '29 days'` }).where('id', '=', first.body.id).execute();
    const replay = await h.request('POST', `${A}/payouts`, { key: b.sandbox, body: usdc('1.00'), headers: { 'Idempotency-Key': 'k-29' } });
    expect(replay.body.id).toBe(first.body.id);
    const other = await h.request('POST', `${A}/payouts`, { key: b.sandbox, body: usdc('3.00'), headers: { 'Idempotency-Key': 'k-29' } });
    expect(other.status).toBe(409);
  });

  it('a disbursement key older than 30 days starts a new disbursement', async () => {
    const b = await h.business();
    const first = await h.request('POST', `${A}/disbursements`, { key: b.sandbox, body: dsb('One'), headers: { 'Idempotency-Key': 'd-old' } });
    expect(first.status).toBe(201);
    await age('disbursements', first.body.id, b.id, 'd-old', 31);
    const second = await h.request('POST', `${A}/disbursements`, { key: b.sandbox, body: dsb('Two'), headers: { 'Idempotency-Key': 'd-old' } });
    expect(second.status, second.text).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body.name).toBe('Two');
  });
});

describe('disbursement.awaiting_approval on every submit-for-approval', () => {
  it('is emitted also when the business requires no approvals (payload status approved)', async () => {
    const b = await h.business({ approvalsRequired: 0 });
    const d = await h.request('POST', `${A}/disbursements`, { key: b.sandbox, body: dsb('No approvals') });
    const sub = await h.request('POST', `${A}/disbursements/${d.body.id}/submit-for-approval`, { key: b.sandbox });
    expect(sub.status).toBe(200);
    expect(sub.body.status).toBe('approved');
    const ev = await h.db.selectFrom('events').select(['type', 'data']).where('object_id', '=', d.body.id).execute();
    expect(ev.map((e) => e.type)).toEqual(['disbursement.awaiting_approval']);
    expect(ev[0].data).toMatchObject({ id: d.body.id, status: 'approved' });
  });
});
