import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPayoutActivities } from '../../activities/payouts';
import type { Caller } from '../../src/core/context';
import { insertPayout, makeRailAttempt, NoRailAdapterError, preparePayout, transitionPayout } from '../../src/core/payouts';
import { deliverPayout } from '../../src/core/payouts/delivery';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * The start of a delivery in one step (issue #23): payoutTransition to delivering with
 * `deliverAttempt` (core deliverPayout) has the effects and answers of the two calls it replaces,
 * transitionPayout(…, 'delivering') then makeRailAttempt, and keeps their safety: a replay after a
 * lost workflow task re-runs it idempotently, and a row already final delivers nothing.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ worker: false });
});
afterAll(async () => h?.close());

let caller: Caller;
beforeAll(async () => {
  const b = await h.business();
  const key = await h.db.selectFrom('api_keys').select('id').where('business_id', '=', b.id).where('environment', '=', 'sandbox').executeTakeFirstOrThrow();
  expect((await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '100' } })).status).toBe(200);
  caller = { businessId: b.id, environment: 'sandbox', keyId: key.id, role: 'owner', policy: null };
});

/** A submitted 1 USDC service_user_usdc payout (no workflow), with `reference`; returns its id. */
async function submitted(reference?: string): Promise<string> {
  const prepared = await preparePayout(h.core, caller, {
    channel: 'service_user_usdc',
    recipient: { type: 'service_user', handle: '@maria' },
    sourceAmount: '1',
    ...(reference ? { reference } : {}),
  });
  const { id } = await h.db.transaction().execute((tx) => insertPayout(tx, h.core, caller, prepared, { funding: 'balance', startWorkflow: false }));
  return id;
}

/** What the database holds of payout `id`: the row's delivery fields, its attempts, events and postings. */
async function stored(id: string) {
  const row = await h.db.selectFrom('payouts').select(['status', 'attempt_count', 'provider_reference', 'failure_code']).where('id', '=', id).executeTakeFirstOrThrow();
  const attempts = await h.db
    .selectFrom('payout_attempts')
    .select(['number', 'status', 'provider_reference', 'error_code', 'completed_at'])
    .where('payout_id', '=', id)
    .orderBy('number')
    .execute();
  const events = (await h.db.selectFrom('events').select('type').where('object_id', '=', id).orderBy('id').execute()).map((e) => e.type);
  const postings = (await h.db.selectFrom('ledger_postings').select('key').where('key', 'like', `payout:${id}:%`).orderBy('id').execute()).map((p) =>
    p.key.replace(id, 'ID'),
  );
  return { row, attempts, events, postings };
}

describe('deliverPayout: the move to delivering and a rail attempt in one step', () => {
  it('stores what transitionPayout(delivering) and makeRailAttempt stored, and answers as they did', async () => {
    const one = await submitted();
    const two = await submitted();
    const d = await deliverPayout(h.core, one, 1);
    await transitionPayout(h.core, two, 'delivering');
    const r = await makeRailAttempt(h.core, two, 1);

    expect(d).toEqual({ status: 'delivering', attempt: { ok: true, providerReference: expect.stringMatching(/^sbx_internal_/), arrivalMs: 50 } });
    expect(r).toEqual({ ok: true, providerReference: expect.stringMatching(/^sbx_internal_/), arrivalMs: 50 });
    const [a, b] = [await stored(one), await stored(two)];
    const ref = d.attempt!.ok ? d.attempt!.providerReference : '';
    expect(a).toEqual({
      row: { status: 'delivering', attempt_count: 1, provider_reference: null, failure_code: null },
      attempts: [{ number: 1, status: 'processing', provider_reference: ref, error_code: null, completed_at: null }],
      events: ['payout.submitted'],
      postings: ['payout:ID:hold'],
    });
    // The same as the two calls, but for the random provider reference.
    expect({ ...b, attempts: b.attempts.map((x) => ({ ...x, provider_reference: ref })) }).toEqual(a);
  });

  it('a replay (a lost workflow task ran it) is idempotent: the same reference, one attempt, no second move', async () => {
    const id = await submitted();
    const first = await deliverPayout(h.core, id, 1);
    const again = await createPayoutActivities(h.core).payoutTransition({ payoutId: id, to: 'delivering', deliverAttempt: 1 });
    expect(again).toEqual(first);
    expect((await stored(id)).attempts).toHaveLength(1);
    expect((await stored(id)).row.attempt_count).toBe(1);
  });

  it('a row already final (a lost task failed it) delivers nothing: no attempt, no rail call', async () => {
    const id = await submitted('sandbox:invalid_destination');
    const d = await deliverPayout(h.core, id, 1);
    expect(d).toMatchObject({ status: 'delivering', attempt: { ok: false, errorCode: 'invalid_destination', retryable: false } });
    await transitionPayout(h.core, id, 'failed', {
      failure: { code: 'invalid_destination', message: 'x' },
      attempt: { number: 1, status: 'failed', errorCode: 'invalid_destination', errorMessage: 'x' },
    });
    const before = await stored(id);
    expect(await deliverPayout(h.core, id, 1)).toEqual({ status: 'failed', attempt: null });
    expect(await stored(id)).toEqual(before);
    expect(before.postings).toEqual(['payout:ID:hold', 'payout:ID:release']);
  });

  it('a payout whose rail has no adapter is moved to delivering and then refused (NoRailAdapter), with no attempt, as before', async () => {
    const id = await submitted();
    // A live payout on a rail with no live connection configured in this process.
    await h.db.updateTable('payouts').set({ environment: 'live' }).where('id', '=', id).execute();
    await expect(deliverPayout(h.core, id, 1)).rejects.toBeInstanceOf(NoRailAdapterError);
    const s = await stored(id);
    expect(s.row.status).toBe('delivering');
    expect(s.attempts).toEqual([]);
    await expect(createPayoutActivities(h.core).payoutTransition({ payoutId: id, to: 'delivering', deliverAttempt: 1 })).rejects.toMatchObject({
      type: 'NoRailAdapter',
      nonRetryable: true,
    });
  });

  it('deliverAttempt is refused with any move but delivering, and a forbidden move stays refused', async () => {
    const acts = createPayoutActivities(h.core);
    const id = await submitted();
    await expect(acts.payoutTransition({ payoutId: id, to: 'succeeded', deliverAttempt: 1 })).rejects.toMatchObject({ type: 'IllegalPayoutTransition', nonRetryable: true });
    const claim = await submitted();
    await h.db.updateTable('payouts').set({ status: 'awaiting_claim' }).where('id', '=', claim).execute();
    // awaiting_claim cannot enter delivering: the general path throws as transitionPayout does.
    await expect(acts.payoutTransition({ payoutId: claim, to: 'delivering', deliverAttempt: 1 })).rejects.toMatchObject({ type: 'IllegalPayoutTransition', nonRetryable: true });
    expect((await stored(claim)).attempts).toEqual([]);
    expect((await stored(id)).row.status).toBe('submitted');
  });
});
