import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * Surface A disbursement items as given (spec "Disbursement (Surface A)", "Item fields on create and
 * update", "CSV formats"): the route maps the snake_case body to the core's DisbursementItemInput /
 * DisbursementItemPatch (src/domain/disbursements.ts); the item keeps its input as given
 * (`disbursement_items.input`) and a PATCH changes only the fields it names.
 */

let h: Harness;
let biz: { id: string; sandbox: string; live: string };
const A = '/sandbox/v1';

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
});
afterAll(async () => h?.close());

const storedInput = async (itemId: string) =>
  (await h.db.selectFrom('disbursement_items').select('input').where('id', '=', itemId).executeTakeFirstOrThrow()).input;
const listItems = async (id: string) => (await h.request('GET', `${A}/disbursements/${id}/items`, { key: biz.sandbox })).body.data;
const patch = (id: string, itemId: string, body: unknown) => h.request('PATCH', `${A}/disbursements/${id}/items/${itemId}`, { key: biz.sandbox, body });

describe('disbursement items as given', () => {
  it('POST keeps each item as sent (unknown fields too); an amount that is not one is shown as given and needs review', async () => {
    const r = await h.request('POST', `${A}/disbursements`, {
      key: biz.sandbox,
      body: {
        name: 'As given',
        items: [
          { channel: 'service_user_usdc', source_amount: '7.50', recipient: { type: 'service_user', handle: '@given1' }, reference: 'r-1', cost_center: 'ops' },
          { channel: 'service_user_usdc', source_amount: 'seven', recipient: { type: 'service_user', handle: '@given2' }, memo: null },
        ],
      },
    });
    expect(r.status).toBe(201);
    const [a, b] = await listItems(r.body.id);
    expect(a).toMatchObject({ status: 'ready', source_amount: '7.50', reference: 'r-1', memo: null, recipient_id: null });
    expect(b).toMatchObject({ status: 'needs_review', source_amount: 'seven' });
    expect(b.review_reasons[0]).toMatchObject({ code: 'validation_error', param: 'items.1.source_amount' });
    expect(await storedInput(a.id)).toEqual({
      channel: 'service_user_usdc',
      source_amount: '7.50',
      recipient: { type: 'service_user', handle: '@given1' },
      reference: 'r-1',
      cost_center: 'ops',
    });
    expect(await storedInput(b.id)).toEqual({
      channel: 'service_user_usdc',
      source_amount: 'seven',
      recipient: { type: 'service_user', handle: '@given2' },
      memo: null,
    });
  });

  it('PATCH changes only the fields it names: recipient_id replaces the inline recipient and back, null clears the memo, a bad amount stays as given', async () => {
    const rc = await h.request('POST', `${A}/recipients`, { key: biz.sandbox, body: { type: 'service_user', service_user: { handle: '@saved_patch' } } });
    expect(rc.status).toBe(201);
    const d = await h.request('POST', `${A}/disbursements`, {
      key: biz.sandbox,
      body: { name: 'Edits', items: [{ channel: 'service_user_usdc', source_amount: '5.00', recipient: { type: 'service_user', handle: '@inline1' }, memo: 'm1', reference: 'ref-1' }] },
    });
    const id = d.body.id;
    const [item] = await listItems(id);

    const toSaved = await patch(id, item.id, { recipient_id: rc.body.id });
    expect(toSaved.status).toBe(200);
    expect(toSaved.body).toMatchObject({ status: 'ready', recipient_id: rc.body.id, memo: 'm1', reference: 'ref-1', source_amount: '5.00' });
    expect(toSaved.body.recipient).toBeNull();

    const clearMemo = await patch(id, item.id, { memo: null });
    expect(clearMemo.body).toMatchObject({ memo: null, reference: 'ref-1', recipient_id: rc.body.id });

    const toInline = await patch(id, item.id, { recipient: { type: 'service_user', handle: '@inline2' } });
    expect(toInline.body).toMatchObject({ status: 'ready', recipient_id: null, recipient: { type: 'service_user', handle: '@inline2' } });

    const badAmount = await patch(id, item.id, { source_amount: 'lots' });
    expect(badAmount.body).toMatchObject({ status: 'needs_review', source_amount: 'lots', reference: 'ref-1' });
    expect(badAmount.body.review_reasons[0]).toMatchObject({ code: 'validation_error', param: 'source_amount' });
    expect(await storedInput(item.id)).toEqual({
      channel: 'service_user_usdc',
      source_amount: 'lots',
      recipient: { type: 'service_user', handle: '@inline2' },
      reference: 'ref-1',
    });

    // An edit of another field keeps the amount as given.
    const ref = await patch(id, item.id, { reference: 'ref-2' });
    expect(ref.body).toMatchObject({ status: 'needs_review', source_amount: 'lots', reference: 'ref-2' });
  });

  it('a CSV row is kept with its record and its fields under the item names', async () => {
    const d = await h.request('POST', `${A}/disbursements`, { key: biz.sandbox, body: { name: 'CSV' } });
    const form = new FormData();
    form.append('file', new Blob(['recipient,amount,memo\n@csvuser,3.25,hello\n'], { type: 'text/csv' }), 'items.csv');
    const res = await h.app.request(`${A}/disbursements/${d.body.id}/items/import`, { method: 'POST', body: form, headers: { Authorization: `Bearer ${biz.sandbox}` } });
    expect(res.status).toBe(200);
    const [item] = await listItems(d.body.id);
    expect(item).toMatchObject({ status: 'ready', source_amount: '3.25', memo: 'hello', channel: 'service_user_usdc', row_number: 2 });
    expect(await storedInput(item.id)).toEqual({
      csv: { recipient: '@csvuser', amount: '3.25', memo: 'hello' },
      source_amount: '3.25',
      memo: 'hello',
      recipient: { type: 'service_user', handle: '@csvuser' },
      channel: 'service_user_usdc',
    });
  });
});
