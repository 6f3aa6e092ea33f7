/**
 * Surface B `POST /disbursements/batch` (spec: at most 10,000 entries; all or nothing). The
 * 10,000-entry timing is test/api/surface-b-batch-10k.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClaimBatch } from '../../src/core/claim-flow';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
let biz: { id: string; sandbox: string; live: string };
let other: { id: string; sandbox: string; live: string };
const B = '/sandbox/claim/v1';

beforeAll(async () => {
  h = await createHarness();
  biz = await h.business();
  other = await h.business();
  expect((await h.request('POST', `${B}/sandbox/fund`, { key: biz.sandbox, body: { amountUsd: '500.00' } })).status).toBe(200);
});
afterAll(async () => h?.close());

const postBatch = (body: unknown, key = biz.sandbox) => h.request('POST', `${B}/disbursements/batch`, { key, body });
const get = (path: string, key = biz.sandbox) => h.request('GET', `${B}${path}`, { key });
const balance = async () => (await h.request('GET', '/sandbox/v1/balance', { key: biz.sandbox })).body;

async function waitFor<T>(fn: () => Promise<T | undefined | false>, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('POST /disbursements/batch: happy', () => {
  it('creates every entry as a pending disbursement, holds the total once, lists them by batchId; every workflow starts', async () => {
    const before = await balance();
    const r = await postBatch({
      batchReference: 'march-payroll',
      note: 'Thanks for your work',
      disbursements: [
        { recipientPhone: '+525512345678', amountUsd: '10.00', reference: 'a' },
        { recipientEmail: 'b@example.com', amountUsd: '20.00', reference: 'b', note: 'Own note' },
        { recipientPhone: '+14155552671', amountUsd: '1.00', reference: 'c' },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: expect.stringMatching(/^cbt_/), batchReference: 'march-payroll', count: 3, totalAmountUsd: '31.00' });
    // claim_link fees: 0.25 + 1% per entry.
    expect(r.body.totalDebitUsd).toBe('32.06');
    expect(r.body.disbursements.map((d: { status: string; batchId: string }) => [d.status, d.batchId])).toEqual([
      ['pending', r.body.id],
      ['pending', r.body.id],
      ['pending', r.body.id],
    ]);
    expect(r.body.disbursements.map((d: { note: string }) => d.note).sort()).toEqual(['Own note', 'Thanks for your work', 'Thanks for your work']);
    const after = await balance();
    expect(Number(before.available) - Number(after.available)).toBeCloseTo(32.06, 6);
    const listed = await get(`/disbursements?batchId=${r.body.id}`);
    expect(listed.body.data).toHaveLength(3);
    // Every entry's workflow runs: the claim link opens.
    await waitFor(async () => {
      const l = await get(`/disbursements?batchId=${r.body.id}`);
      return l.body.data.every((d: { claimUrl: string | null }) => d.claimUrl !== null);
    }, 'every claim link');
  });

  it('workflows recorded claimed by an API process that died after the 201 are started by the relay once the claim runs out', async () => {
    const caller = { businessId: biz.id, environment: 'sandbox' as const, keyId: 'k', role: 'owner' as const, policy: null };
    const batch = await createClaimBatch(
      h.core,
      caller,
      { disbursements: [{ recipientPhone: '+525512345678', amountUsd: '2.00' }, { recipientPhone: '+525512345679', amountUsd: '3.00' }] },
      { startInBackground: false },
    );
    const ids = batch.disbursements.map((x) => x.id);
    const claims = await h.db.selectFrom('workflow_starts').select(['claimed_until', 'started_at']).where('workflow_id', 'in', ids).execute();
    expect(claims.every((c) => c.started_at === null && c.claimed_until !== null && c.claimed_until.getTime() > Date.now())).toBe(true);
    // The lease of the dead process runs out (src/core/workflow-starts.ts startLeaseUntil).
    await h.db.updateTable('workflow_starts').set({ claimed_until: new Date(Date.now() - 1000) }).where('workflow_id', 'in', ids).execute();
    await waitFor(async () => {
      const rows = await h.db.selectFrom('workflow_starts').select('started_at').where('workflow_id', 'in', batch.disbursements.map((x) => x.id)).execute();
      return rows.length === 2 && rows.every((x) => x.started_at !== null);
    }, 'relay starts');
    await waitFor(async () => (await get(`/disbursements?batchId=${batch.id}`)).body.data.every((d: { claimUrl: string | null }) => d.claimUrl), 'claims open');
  });

  it('a replay with the same idempotencyKey returns the same batch', async () => {
    const body = { idempotencyKey: 'batch-idem-1', disbursements: [{ recipientPhone: '+525512345678', amountUsd: '1.50' }] };
    const a = await postBatch(body);
    const b = await postBatch(body);
    expect(b.body.id).toBe(a.body.id);
    expect(b.headers.get('X-RateLimit-Limit')).toBe('10');
  });
});

describe('POST /disbursements/batch: errors (nothing created)', () => {
  it('reports every bad entry by index and creates nothing', async () => {
    const before = await balance();
    const countBefore = (await h.db.selectFrom('payouts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    const r = await postBatch({
      disbursements: [
        { recipientPhone: '+525512345678', amountUsd: '10.00' },
        { recipientPhone: '55 1234', amountUsd: '10.00' },
        { recipientPhone: '+525512345678', amountUsd: '0.50' },
        { recipientEmail: 'not-an-email', amountUsd: '3.00' },
        { recipientPhone: '+93701234567', amountUsd: '3.00' },
        { recipientPhone: '+525512345678' },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_error');
    expect(r.body.details.requestId).toBe(r.headers.get('X-Request-ID'));
    expect(r.body.details.errors.map((e: { index: number; param: string; error: string }) => [e.index, e.param, e.error])).toEqual([
      [1, 'disbursements.1.recipientPhone', 'invalid_phone'],
      [2, 'disbursements.2.amountUsd', 'amount_below_minimum'],
      [3, 'disbursements.3.recipientEmail', 'validation_error'],
      [4, 'disbursements.4.recipientPhone', 'recipient_country_unsupported'],
      [5, 'disbursements.5.amountUsd', 'validation_error'],
    ]);
    expect(await balance()).toEqual(before);
    const countAfter = (await h.db.selectFrom('payouts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    expect(countAfter).toBe(countBefore);
  });

  it('refuses an empty list, more than 10,000 entries, and a batch over the balance (402)', async () => {
    const empty = await postBatch({ disbursements: [] });
    expect([empty.status, empty.body.error, empty.body.details.param]).toEqual([400, 'validation_error', 'disbursements']);
    const many = await postBatch({ disbursements: Array.from({ length: 10_001 }, () => ({ recipientPhone: '+525512345678', amountUsd: '1.00' })) });
    expect([many.status, many.body.error, many.body.details.param]).toEqual([400, 'validation_error', 'disbursements']);
    // No maximum on Surface B (spec "Limits"): 100,000 USD is refused only by the balance, 402.
    const poor = await postBatch({ disbursements: [{ recipientPhone: '+525512345678', amountUsd: '100000.00' }] }, other.sandbox);
    expect([poor.status, poor.body.error]).toEqual([402, 'insufficient_balance']);
    const broke = await postBatch({ disbursements: [{ recipientPhone: '+525512345678', amountUsd: '100.00' }] }, other.sandbox);
    expect([broke.status, broke.body.error]).toEqual([402, 'insufficient_balance']);
  });
});

describe('POST /disbursements/batch: security', () => {
  it('401 without a key or with the live key; a batch is invisible to another organisation', async () => {
    expect((await h.request('POST', `${B}/disbursements/batch`, { body: { disbursements: [] } })).status).toBe(401);
    expect((await postBatch({ disbursements: [] }, biz.live)).body.error).toBe('environment_mismatch');
    const r = await postBatch({ disbursements: [{ recipientPhone: '+525512345678', amountUsd: '1.00' }] });
    expect((await get(`/disbursements?batchId=${r.body.id}`, other.sandbox)).body.data).toEqual([]);
  });
});
