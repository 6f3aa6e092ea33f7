import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DisbursementResponse } from '../../src/api/surface-a/disbursements';
import type { ErrorBody } from '../../src/api/surface-a/errors';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * Surface A disbursements before launch (spec "Disbursement (Surface A)", "CSV formats", Surface A
 * /disbursements*, "Authentication" 3-5, "Errors"). Launch and the run are in
 * test/workflows/disbursement.test.ts.
 */

let h: Harness;
let biz: { id: string; sandbox: string; live: string };
let approverKey: string;

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
  const k = await h.request('POST', '/sandbox/v1/api-keys', { key: biz.sandbox, body: { name: 'Approver' } });
  expect(k.status).toBe(201);
  approverKey = k.body.key;
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';
const user = (i: number, amount = '10.00', extra: Record<string, unknown> = {}) => ({
  channel: 'service_user_usdc',
  source_amount: amount,
  recipient: { type: 'service_user', handle: `@user${i}` },
  reference: `inv-${i}`,
  ...extra,
});
const wallet = (i: number, amount = '20.00') => ({
  channel: 'stellar_usdc',
  source_amount: amount,
  recipient: { type: 'wallet', network: 'stellar', address: `G${'A'.repeat(50)}${String(i).padStart(5, '2').replace(/[0189]/g, 'B')}` },
});
const create = (key: string, body: unknown, headers: Record<string, string> = {}) => h.request('POST', `${A}/disbursements`, { key, body, headers });
const items = async (key: string, id: string, query = '') => (await h.request('GET', `${A}/disbursements/${id}/items${query}`, { key })).body;

async function importCsv(key: string, id: string, csv: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'items.csv');
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await h.app.request(`${A}/disbursements/${id}/items/import`, { method: 'POST', body: form, headers: { Authorization: `Bearer ${key}` } });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) };
}

describe('disbursements: happy', () => {
  describe('POST /disbursements: review before any money moves', () => {
    it('201 with ready and needs_review items and their reasons; nothing rejected wholesale', async () => {
      const r = await create(biz.sandbox, {
        name: 'March payroll',
        items: [
          user(1),
          wallet(2),
          user(3, 'abc'),
          { channel: 'nope_xyz', source_amount: '5', recipient: { type: 'service_user', handle: '@x123' } },
          { channel: 'service_user_usdc', source_amount: '5' },
          { channel: 'claim_link', source_amount: '5', recipient: { type: 'phone', number: '12345' } },
          user(7, '0.001'),
        ],
      });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ object: 'disbursement', name: 'March payroll', status: 'needs_review' });
      expect(r.body.id).toMatch(/^dsb_/);
      expect(r.body.revision_id).toMatch(/^rev_/);
      expect(r.body.summary).toMatchObject({ item_count: 7, ready: 2, needs_review: 5, by_type: { service_user: 4, wallet: 1, phone: 1 } });
      // 10.00 + 20.00; fees: stellar 0.01 + 0.2 % of 20 = 0.05.
      expect(r.body.summary.total_source_amount).toBe('30.00');
      expect(r.body.summary.total_fees).toBe('0.05');
      expect(r.body.balance_check).toEqual({ required: '30.05', available: '0.00', ok: false });
      expect(r.body.approval).toMatchObject({ required: 1, received: 0, revision_id: r.body.revision_id, approved: false });
      expect(r.body.progress).toBeNull();

      const list = await items(biz.sandbox, r.body.id);
      expect(list.data.map((i: any) => i.status)).toEqual(['ready', 'ready', 'needs_review', 'needs_review', 'needs_review', 'needs_review', 'needs_review']);
      const reasons = list.data.map((i: any) => i.review_reasons[0] ?? null);
      expect(reasons[0]).toBeNull();
      expect(reasons[2]).toMatchObject({ code: 'validation_error', param: 'items.2.source_amount' });
      expect(reasons[3]).toMatchObject({ code: 'validation_error', param: 'items.3.channel' });
      expect(reasons[4]).toMatchObject({ code: 'validation_error', param: 'items.4.recipient_id' });
      expect(reasons[5]).toMatchObject({ code: 'validation_error', param: 'items.5.recipient.number' });
      expect(reasons[6].param).toBe('items.6.source_amount');
      expect(list.data[0]).toMatchObject({
        object: 'disbursement_item',
        seq: 1,
        channel: 'service_user_usdc',
        source_amount: '10.00',
        source_currency: 'USDC',
        debit_total: '10.00',
        reference: 'inv-1',
        recipient: { type: 'service_user', handle: '@user1' },
        recipient_type: 'service_user',
        payout_id: null,
        attempts: 0,
      });
      expect(list.data[1].fees).toEqual({ provider: '0.01', service: '0.04', fx_spread: '0.00', total: '0.05', currency: 'USDC' });
      expect(list.data[2].source_amount).toBe('abc');
    });

    it('an empty disbursement is draft; the same Idempotency-Key replays the creation', async () => {
      const a = await create(biz.sandbox, { name: 'Empty', items: [] }, { 'Idempotency-Key': 'dsb-empty-1' });
      expect(a.status).toBe(201);
      expect(a.body.status).toBe('draft');
      const b = await create(biz.sandbox, { name: 'Empty', items: [] }, { 'Idempotency-Key': 'dsb-empty-1' });
      expect(b.status).toBe(201);
      expect(b.headers.get('Idempotent-Replayed')).toBe('true');
      expect(b.body.id).toBe(a.body.id);
      const c = await create(biz.sandbox, { name: 'Other', items: [] }, { 'Idempotency-Key': 'dsb-empty-1' });
      expect(c.status).toBe(409);
      expect(c.body.error.code).toBe('idempotency_conflict');
    });

    it('warns duplicate_recipient with the item ids', async () => {
      const r = await create(biz.sandbox, { name: 'Dups', items: [user(1), user(2), user(1, '5.00'), wallet(4), wallet(4)] });
      expect(r.status).toBe(201);
      const list = await items(biz.sandbox, r.body.id);
      const ids = list.data.map((i: any) => i.id);
      expect(r.body.summary.warnings).toEqual([
        { code: 'duplicate_recipient', item_ids: [ids[0], ids[2]] },
        { code: 'duplicate_recipient', item_ids: [ids[3], ids[4]] },
      ]);
    });

    it('reviews items naming saved recipients (prefetched), and unknown ones need review', async () => {
      const rc = await h.request('POST', `${A}/recipients`, { key: biz.sandbox, body: { type: 'service_user', service_user: { handle: '@saved_one' } } });
      expect(rc.status).toBe(201);
      const r = await create(biz.sandbox, {
        name: 'Saved',
        items: [
          { channel: 'service_user_usdc', source_amount: '3', recipient_id: rc.body.id },
          { channel: 'service_user_usdc', source_amount: '3', recipient_id: 'rcp_missing' },
          { channel: 'stellar_usdc', source_amount: '3', recipient_id: rc.body.id },
        ],
      });
      const list = await items(biz.sandbox, r.body.id);
      expect(list.data[0]).toMatchObject({ status: 'ready', recipient_id: rc.body.id, recipient_type: 'service_user', debit_total: '3.00' });
      expect(list.data[1].review_reasons[0]).toMatchObject({ code: 'not_found', param: 'items.1.recipient_id' });
      expect(list.data[2].review_reasons[0]).toMatchObject({ code: 'validation_error', param: 'items.2.recipient_id' });
    });
  });

  describe('POST /disbursements/{id}/items/import (CSV)', () => {
    it('appends rows; a malformed row and bad values need review with their line number', async () => {
      const d = await create(biz.sandbox, { name: 'From CSV', items: [] });
      const csv = [
        'Recipient,Amount,Memo,Reference',
        '@alice_1,10.00,thanks,csv-1',
        '+14155552671,5,,csv-2',
        '@bob_22,7.5,too,many,fields,here',
        '@carol_3,abc,,csv-4',
        '',
        'maria@example.com,2.00,,',
        '+58 4121234567,3,,',
      ].join('\n');
      const r = await importCsv(biz.sandbox, d.body.id, csv);
      expect(r.status).toBe(200);
      expect(r.body.summary).toMatchObject({ item_count: 6, ready: 3, needs_review: 3 });
      expect(r.body.status).toBe('needs_review');
      const list = await items(biz.sandbox, d.body.id);
      const byLine = Object.fromEntries(list.data.map((i: any) => [i.row_number, i]));
      expect(byLine[2]).toMatchObject({ status: 'ready', channel: 'service_user_usdc', source_amount: '10.00', memo: 'thanks', reference: 'csv-1' });
      expect(byLine[3]).toMatchObject({ status: 'ready', channel: 'claim_link', recipient: { type: 'phone', number: '+14155552671' } });
      expect(byLine[4].status).toBe('needs_review');
      expect(byLine[4].review_reasons[0].code).toBe('csv_parse_error');
      expect(byLine[4].review_reasons[0].message).toMatch(/Line 4/);
      expect(byLine[5].review_reasons[0]).toMatchObject({ code: 'validation_error', param: 'source_amount' });
      expect(byLine[7]).toMatchObject({ status: 'ready', channel: 'claim_link', recipient: { type: 'email', address: 'maria@example.com' } });
      expect(byLine[8].status).toBe('needs_review');
      expect(list.data.map((i: any) => i.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('the channel form field applies to rows without one; pagomovil columns build the recipient (masked on output)', async () => {
      const d = await create(biz.sandbox, { name: 'Pago', items: [user(1)] });
      const csv = [
        'recipient,amount,type,pagomovil_bank_code,pagomovil_national_id,pagomovil_holder_name,pagomovil_dob,channel',
        '+584121234567,12.00,pagomovil,0102,V12345678,Ana Perez,1990-01-31,',
        '@dave_44,1,,,,,,',
      ].join('\n');
      const r = await importCsv(biz.sandbox, d.body.id, csv, { channel: 'service_user_usdc' });
      expect(r.status).toBe(200);
      const list = await items(biz.sandbox, d.body.id);
      expect(list.data[1]).toMatchObject({ status: 'ready', channel: 'pagomovil_ves', row_number: 2, recipient_type: 'pagomovil' });
      expect(list.data[1].recipient.national_id).toBe('••••78');
      expect(list.data[1].recipient.phone_number).toBe('••••4567');
      expect(list.data[2]).toMatchObject({ status: 'ready', channel: 'service_user_usdc' });
    });
  });

  describe('editing, approvals and launch refusals', () => {
    it('PATCH fixes an item; a money-critical change after approval makes a new revision and voids the approval', async () => {
      const d = await create(biz.sandbox, { name: 'Approvals', items: [user(1), user(2, 'bad')] });
      const id = d.body.id;
      const list = await items(biz.sandbox, id);
      const [a, b] = list.data;

      // Launch refused while an item needs review; so is submission.
      const l0 = await h.request('POST', `${A}/disbursements/${id}/launch`, { key: biz.sandbox });
      expect(l0.status).toBe(409);
      expect(l0.body.error.code).toBe('items_need_review');
      const s0 = await h.request('POST', `${A}/disbursements/${id}/submit-for-approval`, { key: biz.sandbox });
      expect(s0.body.error.code).toBe('items_need_review');

      const fix = await h.request('PATCH', `${A}/disbursements/${id}/items/${b.id}`, { key: biz.sandbox, body: { source_amount: '4.00' } });
      expect(fix.status).toBe(200);
      expect(fix.body).toMatchObject({ status: 'ready', source_amount: '4.00', review_reasons: [] });
      let cur = (await h.request('GET', `${A}/disbursements/${id}`, { key: biz.sandbox })).body;
      expect(cur.status).toBe('ready');

      // Launch refused without approvals.
      const l1 = await h.request('POST', `${A}/disbursements/${id}/launch`, { key: biz.sandbox });
      expect(l1.status).toBe(409);
      expect(l1.body.error.code).toBe('approval_required');

      const sub = await h.request('POST', `${A}/disbursements/${id}/submit-for-approval`, { key: biz.sandbox });
      expect(sub.status).toBe(200);
      expect(sub.body.status).toBe('awaiting_approval');
      const ev = await h.db.selectFrom('events').select(['type', 'data']).where('object_id', '=', id).execute();
      expect(ev.map((e) => e.type)).toEqual(['disbursement.awaiting_approval']);

      const l2 = await h.request('POST', `${A}/disbursements/${id}/launch`, { key: biz.sandbox });
      expect(l2.body.error.code).toBe('approval_required');

      // The submitter can never approve.
      const rev1 = sub.body.revision_id;
      const self = await h.request('POST', `${A}/disbursements/${id}/approvals/${rev1}/approve`, { key: biz.sandbox });
      expect(self.status).toBe(403);
      expect(self.body.error.code).toBe('self_approval_forbidden');

      const ok = await h.request('POST', `${A}/disbursements/${id}/approvals/${rev1}/approve`, { key: approverKey });
      expect(ok.status).toBe(200);
      expect(ok.body.status).toBe('approved');
      expect(ok.body.approval).toMatchObject({ required: 1, received: 1, revision_id: rev1, approved: true });

      // A non-critical edit keeps the revision and the approval.
      const memo = await h.request('PATCH', `${A}/disbursements/${id}/items/${a.id}`, { key: biz.sandbox, body: { memo: 'note' } });
      expect(memo.status).toBe(200);
      cur = (await h.request('GET', `${A}/disbursements/${id}`, { key: biz.sandbox })).body;
      expect(cur).toMatchObject({ status: 'approved', revision_id: rev1 });

      // A money-critical edit after approval: new revision, the old approval no longer counts.
      const edit = await h.request('PATCH', `${A}/disbursements/${id}/items/${a.id}`, { key: biz.sandbox, body: { source_amount: '11.00' } });
      expect(edit.status).toBe(200);
      cur = (await h.request('GET', `${A}/disbursements/${id}`, { key: biz.sandbox })).body;
      expect(cur.revision_id).not.toBe(rev1);
      expect(cur.status).toBe('awaiting_approval');
      expect(cur.approval).toMatchObject({ received: 0, revision_id: cur.revision_id, approved: false });
      const l3 = await h.request('POST', `${A}/disbursements/${id}/launch`, { key: biz.sandbox });
      expect(l3.body.error.code).toBe('approval_required');

      const stale = await h.request('POST', `${A}/disbursements/${id}/approvals/${rev1}/approve`, { key: approverKey });
      expect(stale.status).toBe(409);
      expect(stale.body.error.code).toBe('stale_revision');

      // The same key approving twice counts once.
      const again1 = await h.request('POST', `${A}/disbursements/${id}/approvals/${cur.revision_id}/approve`, { key: approverKey });
      const again2 = await h.request('POST', `${A}/disbursements/${id}/approvals/${cur.revision_id}/approve`, { key: approverKey });
      expect(again1.status).toBe(200);
      expect(again2.body.approval.received).toBe(1);
      expect(again2.body.status).toBe('approved');

      // Approved but unfunded: 402.
      const l4 = await h.request('POST', `${A}/disbursements/${id}/launch`, { key: biz.sandbox });
      expect(l4.status).toBe(402);
      expect(l4.body.error.code).toBe('insufficient_balance');
      expect(l4.body.error.message).toMatch(/15\.00 USDC needed/);
      const after = (await h.request('GET', `${A}/disbursements/${id}`, { key: biz.sandbox })).body;
      expect(after.status).toBe('approved');
    });

    it('approvals_required 2 needs two distinct keys besides the submitter', async () => {
      const b2 = await h.business({ approvalsRequired: 2 });
      const k1 = (await h.request('POST', `${A}/api-keys`, { key: b2.sandbox, body: { name: 'one' } })).body.key;
      const k2 = (await h.request('POST', `${A}/api-keys`, { key: b2.sandbox, body: { name: 'two' } })).body.key;
      const d = await create(b2.sandbox, { name: 'Two approvals', items: [user(1)] });
      const sub = await h.request('POST', `${A}/disbursements/${d.body.id}/submit-for-approval`, { key: k1 });
      const rev = sub.body.revision_id;
      expect((await h.request('POST', `${A}/disbursements/${d.body.id}/approvals/${rev}/approve`, { key: k1 })).status).toBe(403);
      const one = await h.request('POST', `${A}/disbursements/${d.body.id}/approvals/${rev}/approve`, { key: b2.sandbox });
      expect(one.body).toMatchObject({ status: 'awaiting_approval', approval: { required: 2, received: 1 } });
      const two = await h.request('POST', `${A}/disbursements/${d.body.id}/approvals/${rev}/approve`, { key: k2 });
      expect(two.body).toMatchObject({ status: 'approved', approval: { required: 2, received: 2, approved: true } });
    });

    it('reject sends the disbursement back to drafting with the reason and a new revision', async () => {
      const d = await create(biz.sandbox, { name: 'Reject me', items: [user(1)] });
      const sub = await h.request('POST', `${A}/disbursements/${d.body.id}/submit-for-approval`, { key: biz.sandbox });
      const rev = sub.body.revision_id;
      const r = await h.request('POST', `${A}/disbursements/${d.body.id}/approvals/${rev}/reject`, { key: approverKey, body: { reason: 'wrong month' } });
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('ready');
      expect(r.body.revision_id).not.toBe(rev);
      expect(r.body.rejection.reason).toBe('wrong month');
      const late = await h.request('POST', `${A}/disbursements/${d.body.id}/approvals/${rev}/approve`, { key: approverKey });
      expect(late.status).toBe(409);
      expect(late.body.error.code).toBe('invalid_state');
      const noBody = await h.request('POST', `${A}/disbursements/${d.body.id}/approvals/${r.body.revision_id}/reject`, { key: approverKey });
      expect(noBody.status).toBe(409);
    });
  });
});

describe('disbursements: error', () => {
  describe('POST /disbursements', () => {
    it('400 validation_error param items for more than 5,000 items', async () => {
      const many = Array.from({ length: 5001 }, (_, i) => user(i));
      const r = await create(biz.sandbox, { name: 'Too big', items: many });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'items' });
    });

    it('400 param name without a name', async () => {
      const r = await create(biz.sandbox, { items: [user(1)] });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe('name');
    });
  });

  describe('POST /disbursements/{id}/items/import (CSV)', () => {
    it('400 param file for a missing required column or no file; 409 once submitted', async () => {
      const d = await create(biz.sandbox, { name: 'Bad CSV', items: [user(1)] });
      const r = await importCsv(biz.sandbox, d.body.id, 'recipient,memo\n@a_1,x\n');
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'file' });
      const form = new FormData();
      form.append('channel', 'claim_link');
      const res = await h.app.request(`${A}/disbursements/${d.body.id}/items/import`, {
        method: 'POST',
        body: form,
        headers: { Authorization: `Bearer ${biz.sandbox}` },
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.param).toBe('file');
      await h.request('POST', `${A}/disbursements/${d.body.id}/submit-for-approval`, { key: biz.sandbox });
      const late = await importCsv(biz.sandbox, d.body.id, 'recipient,amount\n@late_1,1\n');
      expect(late.status).toBe(409);
      expect(late.body.error.code).toBe('invalid_state');
      expect(late.body.error.message).toMatch(/awaiting_approval/);
    });

    it('400 param file when the import would pass 5,000 items', async () => {
      const d = await create(biz.sandbox, { name: 'Full', items: Array.from({ length: 4999 }, (_, i) => user(i)) });
      expect(d.status).toBe(201);
      const r = await importCsv(biz.sandbox, d.body.id, 'recipient,amount\n@x_1,1\n@x_2,1\n');
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe('file');
    });
  });

  describe('state machine', () => {
    it('state machine: pause, resume and retry-failed before launch are 409 invalid_state naming the status', async () => {
      const d = await create(biz.sandbox, { name: 'Early', items: [user(1)] });
      for (const op of ['pause', 'resume', 'items/retry-failed']) {
        const r = await h.request('POST', `${A}/disbursements/${d.body.id}/${op}`, { key: biz.sandbox });
        expect(r.status).toBe(409);
        expect(r.body.error.code).toBe('invalid_state');
        expect(r.body.error.message).toMatch(/status ready/);
      }
    });
  });
});

describe('disbursements: security', () => {
    it('another tenant gets 404 for every disbursement route', async () => {
      const d = await create(biz.sandbox, { name: 'Mine', items: [user(1)] });
      const other = await h.business();
      const itemId = (await items(biz.sandbox, d.body.id)).data[0].id;
      const calls: [string, string, unknown?][] = [
        ['GET', `/disbursements/${d.body.id}`],
        ['GET', `/disbursements/${d.body.id}/items`],
        ['PATCH', `/disbursements/${d.body.id}/items/${itemId}`, { memo: 'x' }],
        ['POST', `/disbursements/${d.body.id}/submit-for-approval`],
        ['POST', `/disbursements/${d.body.id}/launch`],
        ['POST', `/disbursements/${d.body.id}/pause`],
        ['GET', `/disbursements/${d.body.id}/export.csv`],
      ];
      for (const [method, path, body] of calls) {
        const r = await h.request(method, `${A}${path}`, { key: other.sandbox, ...(body ? { body } : {}) });
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.body.error.code).toBe('not_found');
      }
      // The live environment of the same business does not see sandbox disbursements either.
      expect((await h.request('GET', `/v1/disbursements/${d.body.id}`, { key: biz.live })).status).toBe(404);
    });

  it('401 without a key and with a live key on the sandbox address, on every disbursement route; nothing is created', async () => {
    const d = await create(biz.sandbox, { name: 'Guarded', items: [user(1)] });
    const id = d.body.id;
    const calls: [string, string, unknown?][] = [
      ['POST', '/disbursements', { name: 'x', items: [] }],
      ['GET', `/disbursements/${id}`],
      ['GET', `/disbursements/${id}/items`],
      ['POST', `/disbursements/${id}/submit-for-approval`],
      ['POST', `/disbursements/${id}/approvals/${d.body.revision_id}/approve`],
      ['POST', `/disbursements/${id}/launch`],
      ['GET', `/disbursements/${id}/export.csv`],
    ];
    for (const [method, path, body] of calls) {
      for (const key of [undefined, biz.live]) {
        const r = await h.request<ErrorBody>(method, `${A}${path}`, { key, ...(body ? { body } : {}) });
        expect([r.status, r.body.error.code], `${method} ${path} ${key ? 'live key' : 'no key'}`).toEqual([401, key ? 'environment_mismatch' : 'authentication_required']);
      }
    }
    const after = await h.request<DisbursementResponse>('GET', `${A}/disbursements/${id}`, { key: biz.sandbox });
    expect([after.body.status, after.body.revision_id]).toEqual(['ready', d.body.revision_id]);
    const rows = await h.db.selectFrom('disbursements').select('id').where('business_id', '=', biz.id).where('name', '=', 'x').execute();
    expect(rows).toEqual([]);
  });

  it("another business's key cannot approve, reject or import into a disbursement (404), which stays as it was", async () => {
    const d = await create(biz.sandbox, { name: 'Not yours', items: [user(1)] });
    const sub = await h.request<DisbursementResponse>('POST', `${A}/disbursements/${d.body.id}/submit-for-approval`, { key: biz.sandbox });
    const other = await h.business();
    const rev = sub.body.revision_id;
    const approve = await h.request<ErrorBody>('POST', `${A}/disbursements/${d.body.id}/approvals/${rev}/approve`, { key: other.sandbox });
    expect([approve.status, approve.body.error.code]).toEqual([404, 'not_found']);
    const reject = await h.request<ErrorBody>('POST', `${A}/disbursements/${d.body.id}/approvals/${rev}/reject`, { key: other.sandbox, body: { reason: 'x' } });
    expect([reject.status, reject.body.error.code]).toEqual([404, 'not_found']);
    const form = new FormData();
    form.append('file', new Blob(['recipient,amount\n@intruder_1,1\n'], { type: 'text/csv' }), 'items.csv');
    const imp = await h.request<ErrorBody>('POST', `${A}/disbursements/${d.body.id}/items/import`, { key: other.sandbox, form });
    expect([imp.status, imp.body.error.code]).toEqual([404, 'not_found']);
    const after = await h.request<DisbursementResponse>('GET', `${A}/disbursements/${d.body.id}`, { key: biz.sandbox });
    expect(after.body).toMatchObject({ status: 'awaiting_approval', revision_id: rev, approval: { received: 0 }, summary: { item_count: 1 } });
  });
});
