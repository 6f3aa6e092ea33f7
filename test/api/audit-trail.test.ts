import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAuditEvent, verifyAuditChain } from '../../src/core/audit';
import { pauseChannel, resumeChannel } from '../../src/core/channel-pauses';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * docs/security.md "Audit trail": privileged acts leave a record with actor and source, hash-chained
 * per business; `audit verify` (verifyAuditChain) finds a record changed or removed by hand; Surface A
 * `GET /audit-events` lists a business's own trail with filters and never a secret.
 */
let h: Harness;
let biz: { id: string; sandbox: string; live: string };
let other: { id: string; sandbox: string; live: string };
const A = '/sandbox/v1';
const from = { 'User-Agent': 'audit-test/1.0', 'X-Forwarded-For': '203.0.113.7', 'X-Request-ID': 'req_audit_test_1' };

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
  other = await h.business();
});
afterAll(async () => h?.close());

const trail = async (key: string, query = '') => (await h.request('GET', `${A}/audit-events${query}`, { key })).body;

describe('audit trail: privileged acts are recorded with actor and source', () => {
  it('revoking a key records api_key.revoked: the revoking key, the request source, before and after', async () => {
    const k = await h.request('POST', `${A}/api-keys`, { key: biz.sandbox, body: { name: 'To revoke' }, headers: from });
    expect(k.status).toBe(201);
    const r = await h.request('DELETE', `${A}/api-keys/${k.body.id}`, { key: biz.sandbox, headers: from });
    expect(r.status).toBe(200);
    const ownerKeyId = (await h.db.selectFrom('api_keys').select('id').where('business_id', '=', biz.id).where('environment', '=', 'sandbox').where('role', '=', 'owner').executeTakeFirstOrThrow()).id;
    const list = await trail(biz.sandbox, `?action=api_key.revoked&object=${k.body.id}`);
    expect(list.data).toHaveLength(1);
    const e = list.data[0];
    expect(e).toMatchObject({
      object: 'audit_event',
      action: 'api_key.revoked',
      actor: { type: 'api_key', id: ownerKeyId },
      object_type: 'api_key',
      object_id: k.body.id,
      source: { forwarded_for: '203.0.113.7', user_agent: 'audit-test/1.0', request_id: 'req_audit_test_1' },
    });
    expect(e.before.revoked_at).toBeNull();
    expect(e.after.revoked_at).toBe(r.body.revoked_at);
    // The creation is there too, and no secret anywhere in the trail.
    const all = await h.request('GET', `${A}/audit-events?object=${k.body.id}`, { key: biz.sandbox });
    expect(all.body.data.map((x: { action: string }) => x.action)).toEqual(['api_key.revoked', 'api_key.created']);
    expect(all.text).not.toContain(k.body.key);
  });

  it('approving a batch records disbursement.approved with the approving key', async () => {
    const approver = await h.request('POST', `${A}/api-keys`, { key: biz.sandbox, body: { name: 'Approver' } });
    const d = await h.request('POST', `${A}/disbursements`, {
      key: biz.sandbox,
      body: { name: 'Audit batch', items: [{ channel: 'service_user_usdc', source_amount: '1.00', recipient: { type: 'service_user', handle: '@audit1' } }] },
    });
    expect(d.status).toBe(201);
    const sub = await h.request('POST', `${A}/disbursements/${d.body.id}/submit-for-approval`, { key: biz.sandbox });
    expect(sub.status).toBe(200);
    const ok = await h.request('POST', `${A}/disbursements/${d.body.id}/approvals/${sub.body.revision_id}/approve`, { key: approver.body.key, headers: from });
    expect(ok.status).toBe(200);
    const list = await trail(biz.sandbox, `?object=${d.body.id}`);
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({
      action: 'disbursement.approved',
      actor: { type: 'api_key', id: approver.body.id },
      source: { user_agent: 'audit-test/1.0', request_id: 'req_audit_test_1' },
      before: { status: 'awaiting_approval' },
      after: { status: 'approved', approvals_received: 1 },
    });
    // filter by actor
    const byActor = await trail(biz.sandbox, `?actor=${approver.body.id}`);
    expect(byActor.data.map((x: { action: string }) => x.action)).toEqual(['disbursement.approved']);
  });

  it('pausing and resuming a channel (npm run admin) records the operator in the platform chain', async () => {
    await pauseChannel(h.db, 'spei_mxn', { operator: 'ops', reason: 'bank incident' });
    expect(await resumeChannel(h.db, 'spei_mxn')).toBe(true);
    const rows = await h.db.selectFrom('audit_events').selectAll().where('business_id', '=', 'platform').where('object_id', '=', 'spei_mxn').orderBy('seq').execute();
    expect(rows.map((r) => r.action)).toEqual(['channel.paused', 'channel.resumed']);
    expect(rows[0]).toMatchObject({ actor_type: 'operator', object_type: 'channel' });
    expect(rows[0]!.actor_id).toMatch(/.+@.+/);
    expect(rows[0]!.user_agent).toMatch(/^npm run admin/);
    expect(rows[0]!.after).toMatchObject({ paused: true, reason: 'bank incident' });
  });

  it('webhook endpoint creation, secret rotation and deletion are recorded without the secret; the trail is per business', async () => {
    const ep = await h.request('POST', `${A}/webhooks`, { key: biz.sandbox, body: { url: 'https://example.com/audit', events: ['*'] } });
    const rot = await h.request('POST', `${A}/webhooks/${ep.body.id}/rotate-secret`, { key: biz.sandbox, body: {} });
    expect(rot.status).toBe(200);
    expect((await h.request('DELETE', `${A}/webhooks/${ep.body.id}`, { key: biz.sandbox })).status).toBeLessThan(300);
    const list = await h.request('GET', `${A}/audit-events?object=${ep.body.id}`, { key: biz.sandbox });
    expect(list.body.data.map((x: { action: string }) => x.action)).toEqual(['webhook_endpoint.deleted', 'webhook_endpoint.secret_rotated', 'webhook_endpoint.created']);
    expect(list.text).not.toContain(ep.body.secret);
    expect(list.text).not.toContain(rot.body.secret);
    const stored = JSON.stringify(await h.db.selectFrom('audit_events').selectAll().execute(), (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    expect(stored).not.toContain(ep.body.secret);
    expect(stored).not.toContain(rot.body.secret);
    // Another business sees none of it; the live base shows the live trail only.
    expect((await trail(other.sandbox)).data).toEqual([]);
    expect((await h.request('GET', `/v1/audit-events`, { key: biz.live })).body.data).toEqual([]);
  });

  it('filters by time and pages with a cursor; a bad time is 400 validation_error with its param', async () => {
    const page1 = await trail(biz.sandbox, '?limit=2');
    expect(page1.data).toHaveLength(2);
    expect(page1.next_cursor).toEqual(expect.any(String));
    const page2 = await trail(biz.sandbox, `?limit=2&cursor=${page1.next_cursor}`);
    expect(page2.data[0].id < page1.data[1].id).toBe(true);
    const future = await trail(biz.sandbox, `?created_gte=${new Date(Date.now() + 3_600_000).toISOString()}`);
    expect(future.data).toEqual([]);
    const bad = await h.request('GET', `${A}/audit-events?created_lte=yesterday`, { key: biz.sandbox });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_error', param: 'created_lte' });
  });
});

describe('audit trail: hash chain and audit verify', () => {
  it('concurrent writers of one business keep one unbroken chain', async () => {
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        recordAuditEvent(h.db, { businessId: other.id, environment: 'sandbox', actor: { type: 'system', id: 'test' }, action: 'test.concurrent', objectType: 'test', objectId: `t${i}` }),
      ),
    );
    const report = await verifyAuditChain(h.db, { businessId: other.id });
    expect(report.problems).toEqual([]);
    expect(report.heads[0]!.seq).toBe(12);
  });

  it('reports a record changed by hand in SQL, and a removed one', async () => {
    expect((await verifyAuditChain(h.db)).problems).toEqual([]);
    const victim = await h.db.selectFrom('audit_events').select(['id', 'seq']).where('business_id', '=', biz.id).where('action', '=', 'disbursement.approved').executeTakeFirstOrThrow();
    // Changing a record takes the owner in migration mode (the table refuses it otherwise).
    await h.db.transaction().execute(async (tx) => {
      await sql`set local payouts.migration = 'on'`.execute(tx);
      await sql`update audit_events set actor_id = 'key_someone_else' where id = ${victim.id}`.execute(tx);
    });
    const changed = await verifyAuditChain(h.db);
    expect(changed.problems).toEqual([expect.objectContaining({ businessId: biz.id, id: victim.id, problem: 'hash_mismatch' })]);

    const removed = await h.db.selectFrom('audit_events').select(['id', 'seq']).where('business_id', '=', other.id).where('seq', '=', 5n).executeTakeFirstOrThrow();
    await h.db.transaction().execute(async (tx) => {
      await sql`set local payouts.migration = 'on'`.execute(tx);
      await sql`delete from audit_events where id = ${removed.id}`.execute(tx);
    });
    const gaps = await verifyAuditChain(h.db, { businessId: other.id });
    expect(gaps.problems.map((p) => p.problem).sort()).toEqual(['broken_link', 'missing_record']);
    expect(gaps.problems.find((p) => p.problem === 'missing_record')).toMatchObject({ seq: 5 });
  });
});
