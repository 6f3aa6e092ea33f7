/**
 * Verification of Payee at the API level (docs/payee-verification.md): the sandbox adapter's magic
 * holder names through the core's verifyPayee, the payout's payee_verification, and the refusals of
 * POST /payouts/{id}/confirm-payee and POST /payouts/{id}/cancel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordPayeeDecision, verifyPayee } from '../../src/core/payouts/payee-verification';
import { setPayeeBatchVerification } from '../../src/core/businesses';
import { createHarness, type Harness } from '../helpers/harness';
import { waitFor } from '../helpers/wait-for';

let h: Harness;
let biz: { id: string; sandbox: string; live: string };

beforeAll(async () => {
  h = await createHarness();
  biz = await h.business();
  const r = await h.request('POST', '/sandbox/v1/sandbox/fund', { key: biz.sandbox, body: { amount: '1000' } });
  expect(r.status).toBe(200);
});
afterAll(async () => h?.close());

async function sepaPayout(holder: string): Promise<string> {
  const r = await h.request('POST', '/sandbox/v1/payouts', {
    key: biz.sandbox,
    body: { channel: 'sepa_eur', recipient: { type: 'bank_account', holder_name: holder, iban: 'FR7630006000011234567890189', recipient_kind: 'individual' }, source_amount: '10' },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

describe('verifyPayee against the sandbox adapter', () => {
  it('a plain name matches; the payout shows it, not_required', async () => {
    const id = await sepaPayout('Marie Dupont');
    expect(await verifyPayee(h.core, id)).toEqual({ outcome: 'match' });
    const got = await h.request('GET', `/sandbox/v1/payouts/${id}`, { key: biz.sandbox });
    expect(got.body.payee_verification).toEqual({ result: 'match', name_returned: null, reason_code: 'MTCH', status: 'not_required', confirm_by: null });
  });

  it('"Close Match" asks for a confirmation within PAYEE_CONFIRMATION_WINDOW with the returned name, once', async () => {
    const id = await sepaPayout('Maria Close Match Dupont');
    const step = await verifyPayee(h.core, id);
    expect(step).toMatchObject({ outcome: 'confirm', result: 'close_match' });
    expect((step as { confirmWithinMs: number }).confirmWithinMs).toBeGreaterThan(86_400_000 - 60_000);
    expect(await verifyPayee(h.core, id)).toMatchObject({ outcome: 'confirm', result: 'close_match' });
    const events = await h.db.selectFrom('events').select('type').where('object_id', '=', id).where('type', '=', 'payout.payee_confirmation_required').execute();
    expect(events).toHaveLength(1);
    const got = await h.request('GET', `/sandbox/v1/payouts/${id}`, { key: biz.sandbox });
    expect(got.body.payee_verification).toMatchObject({ result: 'close_match', name_returned: 'Maria Dupont', reason_code: 'PN02' });
    // The Surface A event carries the payout with the name the bank returned.
    const listed = await h.request('GET', '/sandbox/v1/events?type=payout.payee_confirmation_required', { key: biz.sandbox });
    const event = listed.body.data.find((e: any) => e.data.object.id === id);
    expect(event.data.object.payee_verification).toMatchObject({ result: 'close_match', name_returned: 'Maria Dupont', status: 'awaiting_confirmation' });
    // The first decision wins.
    await recordPayeeDecision(h.core, id, 'expired', null);
    await recordPayeeDecision(h.core, id, 'confirmed', 'key_x');
    const row = await h.db.selectFrom('payee_verifications').select(['decision', 'decided_by']).where('payout_id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ decision: 'expired', decided_by: null });
    expect((await h.request('GET', `/sandbox/v1/payouts/${id}`, { key: biz.sandbox })).body.payee_verification.status).toBe('expired');
  });

  it('"No Match" and "Not Possible"', async () => {
    expect(await verifyPayee(h.core, await sepaPayout('Someone No Match'))).toMatchObject({ outcome: 'confirm', result: 'no_match' });
    expect(await verifyPayee(h.core, await sepaPayout('Not Possible Ltd'))).toEqual({ outcome: 'not_possible' });
  });

  it('other channels are skipped and record nothing', async () => {
    const r = await h.request('POST', '/sandbox/v1/payouts', {
      key: biz.sandbox,
      body: { channel: 'spei_mxn', recipient: { type: 'bank_account', holder_name: 'Ana No Match', clabe: '032180000118359719', recipient_kind: 'individual' }, source_amount: '10' },
    });
    expect(r.status).toBe(201);
    expect(await verifyPayee(h.core, r.body.id)).toEqual({ outcome: 'skipped' });
    expect(await h.db.selectFrom('payee_verifications').select('payout_id').where('payout_id', '=', r.body.id).executeTakeFirst()).toBeUndefined();
    expect((await h.request('GET', `/sandbox/v1/payouts/${r.body.id}`, { key: biz.sandbox })).body).not.toHaveProperty('payee_verification');
  });

  it('a business verifies batches by default and can opt out', async () => {
    expect((await h.db.selectFrom('businesses').select('verify_payee_batches').where('id', '=', biz.id).executeTakeFirstOrThrow()).verify_payee_batches).toBe(true);
    expect(await setPayeeBatchVerification(h.db, biz.id, false)).toEqual({ businessId: biz.id, verifyPayeeBatches: false });
    await expect(setPayeeBatchVerification(h.db, 'biz_unknown', false)).rejects.toMatchObject({ status: 404 });
    // A disbursement item (a payout with a disbursement id; set here as the disbursement workflow would) follows the setting.
    const optedOut = await sepaPayout('Maria Close Match Dupont');
    await h.db.updateTable('payouts').set({ disbursement_id: 'dsb_fixture' }).where('id', '=', optedOut).execute();
    expect(await verifyPayee(h.core, optedOut)).toEqual({ outcome: 'skipped' });
    await setPayeeBatchVerification(h.db, biz.id, true);
    const optedIn = await sepaPayout('Maria Close Match Dupont');
    await h.db.updateTable('payouts').set({ disbursement_id: 'dsb_fixture' }).where('id', '=', optedIn).execute();
    expect(await verifyPayee(h.core, optedIn)).toMatchObject({ outcome: 'confirm', result: 'close_match' });
  });
});

describe('POST /payouts/{id}/confirm-payee and /cancel refusals', () => {
  for (const action of ['confirm-payee', 'cancel']) {
    it(`${action}: 404 for an unknown or other business's payout`, async () => {
      const r = await h.request('POST', `/sandbox/v1/payouts/po_unknown/${action}`, { key: biz.sandbox });
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'not_found' });
      const id = await sepaPayout('Marie Dupont');
      const other = await h.business();
      const o = await h.request('POST', `/sandbox/v1/payouts/${id}/${action}`, { key: other.sandbox });
      expect(o.status).toBe(404);
    });

    it(`${action}: 409 payee_confirmation_not_pending for a payout without an open verification`, async () => {
      const id = await sepaPayout('Marie Dupont');
      const r = await h.request('POST', `/sandbox/v1/payouts/${id}/${action}`, { key: biz.sandbox });
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: 'payee_confirmation_not_pending', message: expect.stringContaining('not awaiting a payee confirmation') });
      // An answered close match whose payout already moved on (confirmed, then paid) is not pending either.
      const held = await sepaPayout('Maria Close Match Dupont');
      await waitFor(async () => (await h.request('GET', `/sandbox/v1/payouts/${held}`, { key: biz.sandbox })).body.payee_verification?.status === 'awaiting_confirmation', 'the payout held');
      expect((await h.request('POST', `/sandbox/v1/payouts/${held}/confirm-payee`, { key: biz.sandbox })).status).toBe(200);
      await waitFor(async () => (await h.request('GET', `/sandbox/v1/payouts/${held}`, { key: biz.sandbox })).body.status === 'succeeded', 'the payout delivered');
      const moved = await h.request('POST', `/sandbox/v1/payouts/${held}/${action}`, { key: biz.sandbox });
      expect(moved.status).toBe(409);
      expect(moved.body.error.code).toBe('payee_confirmation_not_pending');
    });

    it(`${action}: 400 validation_error for an Idempotency-Key over 255 characters`, async () => {
      const id = await sepaPayout('Marie Dupont');
      const r = await h.request('POST', `/sandbox/v1/payouts/${id}/${action}`, { key: biz.sandbox, headers: { 'Idempotency-Key': 'k'.repeat(256) } });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
    });
  }
});

describe('a payout held for its payee (the workflow\'s checks phase, sandbox)', () => {
  const get = async (id: string) => (await h.request('GET', `/sandbox/v1/payouts/${id}`, { key: biz.sandbox })).body;
  const postings = async (id: string) =>
    (await h.db.selectFrom('ledger_postings').select('key').where('key', 'like', `payout:${id}:%`).orderBy('id').execute()).map((p) => p.key.split(':')[2]);

  it('a close match waits submitted with the name the bank returned; confirm-payee pays it', async () => {
    const id = await sepaPayout('Maria Close Match Dupont');
    await waitFor(async () => (await get(id)).payee_verification?.status === 'awaiting_confirmation', 'the payout held');
    const held = await get(id);
    expect(held).toMatchObject({ status: 'submitted', payee_verification: { result: 'close_match', name_returned: 'Maria Dupont', confirm_by: expect.any(String) } });
    const events = async () => (await h.db.selectFrom('events').select('type').where('object_id', '=', id).execute()).map((e) => e.type);
    expect(await events()).toContain('payout.payee_confirmation_required');
    const r = await h.request('POST', `/sandbox/v1/payouts/${id}/confirm-payee`, { key: biz.sandbox });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await waitFor(async () => (await get(id)).status === 'succeeded', 'the payout paid');
    expect((await get(id)).payee_verification.status).toBe('confirmed');
    expect(await postings(id)).toEqual(['hold', 'settle']);
  });

  it('a no match canceled by the business ends canceled and its hold is returned', async () => {
    const before = (await h.request('GET', '/sandbox/v1/balance', { key: biz.sandbox })).body;
    const id = await sepaPayout('X No Match');
    await waitFor(async () => (await get(id)).payee_verification?.status === 'awaiting_confirmation', 'the payout held');
    const r = await h.request('POST', `/sandbox/v1/payouts/${id}/cancel`, { key: biz.sandbox });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await waitFor(async () => (await get(id)).status === 'canceled', 'the payout canceled');
    expect((await get(id)).payee_verification.status).toBe('canceled');
    expect(await postings(id)).toEqual(['hold', 'release']);
    expect((await h.request('GET', '/sandbox/v1/balance', { key: biz.sandbox })).body).toEqual(before);
  });
});
