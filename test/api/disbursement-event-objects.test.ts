import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDisbursement } from '../../src/core/disbursements/read';
import { emitLegacyEvent } from '../helpers/legacy-events';
import { eventObjectData } from '../../src/domain/event-objects';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * Disbursement events record the domain object (docs/webhooks.md "Event data") and are rendered
 * per surface when listed: the same bytes as the Surface A rendering stored before.
 */

let h: Harness;
let biz: { id: string; sandbox: string; live: string };

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';
const item = (i: number) => ({
  channel: 'service_user_usdc',
  source_amount: `${i}.25`,
  recipient: { type: 'service_user', handle: `@payee${i}` },
  reference: `inv-${i}`,
});

describe('disbursement events as domain objects', () => {
  it('submit-for-approval records the disbursement as a domain object; GET /events renders it as GET /disbursements/{id} does', async () => {
    const c = await h.request('POST', `${A}/disbursements`, { key: biz.sandbox, body: { name: 'Event objects', items: [item(1), item(2), item(2)] } });
    expect(c.status, c.text).toBe(201);
    const s = await h.request('POST', `${A}/disbursements/${c.body.id}/submit-for-approval`, { key: biz.sandbox });
    expect(s.status, s.text).toBe(200);
    expect(s.body.status).toBe('awaiting_approval');

    const row = await h.db
      .selectFrom('events')
      .select(['id', 'data', 'data_format'])
      .where('object_id', '=', c.body.id)
      .where('type', '=', 'disbursement.awaiting_approval')
      .executeTakeFirstOrThrow();
    expect(row.data_format).toBe('domain');
    expect((row.data as Record<string, unknown>).object).toBe('disbursement');
    expect((row.data as Record<string, unknown>).revisionId).toBe(s.body.revision_id);

    const e = await h.request('GET', `${A}/events/${row.id}`, { key: biz.sandbox });
    expect(e.status, e.text).toBe(200);
    expect(e.body.data.object).toEqual(s.body);
    expect(e.body.data.object.summary.warnings).toEqual([{ code: 'duplicate_recipient', item_ids: expect.any(Array) }]);
    expect(e.body.data.object.summary.total_source_amount).toBe('5.75');
  });

  it('an event recorded as the domain object lists with the same bytes as one recorded as Surface A rendered it', async () => {
    const c = await h.request('POST', `${A}/disbursements`, { key: biz.sandbox, body: { name: 'Same bytes', items: [item(3), item(4)] } });
    expect(c.status, c.text).toBe(201);
    const wire = (await h.request('GET', `${A}/disbursements/${c.body.id}`, { key: biz.sandbox })).body;
    const dRow = await h.db.selectFrom('disbursements').selectAll().where('id', '=', c.body.id).executeTakeFirstOrThrow();
    const emit = (data: Record<string, unknown>, dataFormat: 'surface_a' | 'domain', tag: string) =>
      h.db.transaction().execute((tx) =>
        emitLegacyEvent(tx, { businessId: biz.id, environment: 'sandbox', type: 'disbursement.awaiting_approval', objectType: 'disbursement', objectId: dRow.id, data, dataFormat, dedupeKey: `test:${dRow.id}:${tag}` }),
      );
    const legacy = (await emit(wire, 'surface_a', 'legacy')) as string;
    const domain = (await emit(eventObjectData({ object: 'disbursement', value: await loadDisbursement(h.db, dRow) }), 'domain', 'domain')) as string;
    const [x, y] = await Promise.all([legacy, domain].map((id) => h.request('GET', `${A}/events/${id}`, { key: biz.sandbox })));
    expect([x.status, y.status]).toEqual([200, 200]);
    const same = (text: string, id: string) => text.replace(id, 'ID').replace(/"created_at":"[^"]+","data"/, '"created_at":"T","data"');
    expect(same(y.text, domain)).toBe(same(x.text, legacy));
  });
});
