import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/core/context';
import { claimItems, launchDisbursement } from '../../src/core/disbursements';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * The claim step of a disbursement run (src/core/disbursements/worker-steps.ts `claimItems`),
 * called directly: the harness runs no worker, so the launched workflow never claims by itself.
 * A claim writes its payouts, their payout.submitted events and its items in three statements
 * (docs/benchmarks.md, issue #23), with every money rule of the per-item version.
 */

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ worker: false });
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';

async function launched(count: number): Promise<{ id: string; businessId: string }> {
  const b = await h.business();
  const owner = await h.db.selectFrom('api_keys').select('id').where('business_id', '=', b.id).where('environment', '=', 'sandbox').executeTakeFirstOrThrow();
  const approver = await h.request('POST', `${A}/api-keys`, { key: b.sandbox, body: { name: 'Approver' } });
  expect((await h.request('POST', `${A}/sandbox/fund`, { key: b.sandbox, body: { amount: '1000' } })).status).toBe(200);
  const items = Array.from({ length: count }, (_, i) => ({
    channel: 'service_user_usdc',
    source_amount: `${i + 1}.50`,
    recipient: { type: 'service_user', handle: `@claim${i}` },
    reference: `ref-${i}`,
  }));
  const d = await h.request('POST', `${A}/disbursements`, { key: b.sandbox, body: { name: 'Claims', items } });
  expect(d.status).toBe(201);
  const s = await h.request('POST', `${A}/disbursements/${d.body.id}/submit-for-approval`, { key: b.sandbox });
  expect((await h.request('POST', `${A}/disbursements/${d.body.id}/approvals/${s.body.revision_id}/approve`, { key: approver.body.key })).status).toBe(200);
  const caller: Caller = { businessId: b.id, environment: 'sandbox', keyId: owner.id, role: 'owner', policy: null };
  await launchDisbursement(h.core, caller, d.body.id, { window: 3, claimBatch: 2 });
  return { id: d.body.id, businessId: b.id };
}

describe('claimItems', () => {
  it('writes each payout once per attempt with its event, says when it filled the window, and a retried claim returns the same payouts', async () => {
    const { id, businessId } = await launched(5);
    const balanceBefore = await h.db.selectFrom('balances').select(['available', 'held']).where('business_id', '=', businessId).executeTakeFirstOrThrow();

    // Window 3, nothing in flight: 2 of 3 free slots taken, the window is not full.
    const first = await claimItems(h.core, { disbursementId: id, claimSeq: 0, limit: 2, window: 3 });
    expect(first.items).toHaveLength(2);
    expect(first.full).toBeUndefined();
    expect(first.more).toBe(true);
    // One slot left: this claim takes it and says the window is full.
    const second = await claimItems(h.core, { disbursementId: id, claimSeq: 1, limit: 2, window: 3 });
    expect(second.items).toHaveLength(1);
    expect(second.full).toBe(true);
    // Nothing free: nothing claimed.
    const third = await claimItems(h.core, { disbursementId: id, claimSeq: 2, limit: 2, window: 3 });
    expect(third).toEqual({ paused: false, more: true, full: true, items: [] });
    // A retried claim (same number) returns what it claimed, whatever the window says now.
    const retried = await claimItems(h.core, { disbursementId: id, claimSeq: 1, limit: 2, window: 3 });
    expect(retried.items.map((i) => i.payoutId)).toEqual(second.items.map((i) => i.payoutId));

    const claimed = [...first.items, ...second.items];
    const payouts = await h.db
      .selectFrom('payouts')
      .select(['id', 'status', 'disbursement_item_id', 'source_amount', 'fee_total', 'debit_total', 'reference', 'attempt_count', 'recipient_details', 'created_at'])
      .select((eb) => eb.ref('disbursement_attempt' as any).as('attempt'))
      .where('disbursement_id', '=', id)
      .orderBy('reference')
      .execute();
    expect(payouts.map((p) => [p.reference, p.status, Number((p as any).attempt), p.attempt_count])).toEqual([
      ['ref-0', 'submitted', 1, 1],
      ['ref-1', 'submitted', 1, 1],
      ['ref-2', 'submitted', 1, 1],
    ]);
    expect(payouts.map((p) => p.source_amount)).toEqual([1_500_000n, 2_500_000n, 3_500_000n]);
    expect(payouts[0]!.recipient_details).toEqual({ handle: '@claim0' });
    expect(payouts.every((p) => p.created_at instanceof Date)).toBe(true);
    expect(claimed.map((c) => c.payoutId).sort()).toEqual(payouts.map((p) => p.id).sort());
    expect(claimed[0]!.args).toEqual([{ payoutId: claimed[0]!.payoutId, channel: 'service_user_usdc', patchLevel: 1, checks: 1 }]);
    expect(claimed[0]!.searchAttributes).toMatchObject({ PayoutStatus: 'submitted', DisbursementId: id, Channel: 'service_user_usdc' });

    // The items point at their payouts and carry the payout's amounts.
    const items = await h.db
      .selectFrom('disbursement_items')
      .select(['id', 'status', 'payout_id', 'claim_seq', 'debit_total'])
      .where('disbursement_id', '=', id)
      .orderBy('seq')
      .execute();
    expect(items.map((i) => [i.status, i.claim_seq])).toEqual([
      ['launched', 0],
      ['launched', 0],
      ['launched', 1],
      ['pending', null],
      ['pending', null],
    ]);
    for (const p of payouts) {
      const item = items.find((i) => i.id === p.disbursement_item_id)!;
      expect(item.payout_id).toBe(p.id);
      expect(item.debit_total).toBe(p.debit_total);
    }

    // One payout.submitted event per payout, rendering the payout.
    const events = await h.db.selectFrom('events').select(['object_id', 'type', 'data', 'dedupe_key']).where('object_id', 'in', payouts.map((p) => p.id)).execute();
    expect(events.map((e) => e.type)).toEqual(['payout.submitted', 'payout.submitted', 'payout.submitted']);
    for (const e of events) {
      expect(e.dedupe_key).toBe(`payout:${e.object_id}:submitted`);
      expect((e.data as Record<string, unknown>).id).toBe(e.object_id);
      expect((e.data as Record<string, unknown>).status).toBe('submitted');
    }

    // Funding 'batch': the disbursement holds the funds; claiming moves no money.
    const balanceAfter = await h.db.selectFrom('balances').select(['available', 'held']).where('business_id', '=', businessId).executeTakeFirstOrThrow();
    expect(balanceAfter).toEqual(balanceBefore);
  }, 60_000);
});
