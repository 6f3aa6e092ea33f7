import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyResponse } from '../../src/api/surface-a/api-keys';
import type { ErrorBody } from '../../src/api/surface-a/errors';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * Surface A API keys (spec "Endpoints": POST /api-keys, owner only; "Authentication" 2-4): an owner
 * key issues member keys of its business and environment, returned once and stored hashed.
 */

let h: Harness;
let biz: { id: string; sandbox: string; live: string };
let approverKey: string;

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
  const k = await h.request<ApiKeyResponse>('POST', '/sandbox/v1/api-keys', { key: biz.sandbox, body: { name: 'Approver' } });
  expect(k.status).toBe(201);
  approverKey = k.body.key!; // present in a first response (absent only in an idempotent replay)
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';

describe('api keys: happy', () => {
  it('owner creates a member key, returned once, with its policy normalised', async () => {
    const r = await h.request('POST', `${A}/api-keys`, {
      key: biz.sandbox,
      body: { name: 'Payroll bot', policy: { daily_budget: '1000', per_payout_max: '50.5', channels: ['spei_mxn'], approval_threshold: '200' } },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      object: 'api_key',
      name: 'Payroll bot',
      role: 'member',
      policy: { daily_budget: '1000.00', per_payout_max: '50.50', channels: ['spei_mxn'], approval_threshold: '200.00' },
    });
    expect(r.body.id).toMatch(/^key_/);
    expect(r.body.key).toMatch(/^sk_test_/);
    const row = await h.db.selectFrom('api_keys').selectAll().where('id', '=', r.body.id).executeTakeFirstOrThrow();
    expect(row.key_hash).not.toBe(r.body.key);
    expect(row.environment).toBe('sandbox');
    // The new key works.
    expect((await h.request('GET', `${A}/channels`, { key: r.body.key })).status).toBe(200);
  });

  it('renders one key identically in POST, GET, DELETE and its audit record; the stored policy keeps its column spelling', async () => {
    const policy = { approval_threshold: '9', per_payout_max: '3', daily_budget: '10', channels: ['spei_mxn'] };
    const created = await h.request<ApiKeyResponse>('POST', `${A}/api-keys`, { key: biz.sandbox, body: { name: 'Wire bot', policy } });
    expect(created.status).toBe(201);
    const { key: _secret, ...record } = created.body;
    expect(Object.keys(record)).toEqual(['id', 'object', 'name', 'prefix', 'last4', 'role', 'policy', 'created_at', 'last_used_at', 'expires_at', 'revoked_at']);
    expect(Object.keys(record.policy!)).toEqual(['channels', 'daily_budget', 'per_payout_max', 'approval_threshold']);
    const listed = await h.request<{ data: unknown[]; next_cursor: string | null }>('GET', `${A}/api-keys?limit=200`, { key: biz.sandbox });
    expect(JSON.stringify(listed.body.data.find((k) => (k as { id: string }).id === record.id))).toBe(JSON.stringify(record));
    const row = await h.db.selectFrom('api_keys').select('policy').where('id', '=', record.id).executeTakeFirstOrThrow();
    expect(row.policy).toEqual({ daily_budget: '10.00', per_payout_max: '3.00', approval_threshold: '9.00', channels: ['spei_mxn'] });
    const audit = await h.db.selectFrom('audit_events').select('after').where('object_id', '=', record.id).where('action', '=', 'api_key.created').executeTakeFirstOrThrow();
    expect(audit.after).toEqual(record);
    const revoked = await h.request<Record<string, unknown>>('DELETE', `${A}/api-keys/${record.id}`, { key: biz.sandbox });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ ...record, revoked_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });
  });

  it('a live owner key creates a live key', async () => {
    const r = await h.request('POST', '/v1/api-keys', { key: biz.live, body: { name: 'live approver' } });
    expect(r.status).toBe(201);
    expect(r.body.key).toMatch(/^sk_live_/);
  });
});

describe('api keys: error', () => {
  it('403 permission_denied for a non-owner key; 400 for an unknown policy channel', async () => {
    const r = await h.request('POST', `${A}/api-keys`, { key: approverKey, body: { name: 'sneaky' } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('permission_denied');
    const bad = await h.request('POST', `${A}/api-keys`, { key: biz.sandbox, body: { name: 'x', policy: { channels: ['nope'] } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('policy.channels.0');
  });
});

describe('api keys: security', () => {
  it('401 without a key, with a live key on the sandbox address and with an unknown key; no key is created', async () => {
    const before = await h.db.selectFrom('api_keys').select('id').where('business_id', '=', biz.id).execute();
    for (const [key, code] of [
      [undefined, 'authentication_required'],
      [biz.live, 'environment_mismatch'],
      ['sk_test_not_a_key', 'invalid_api_key'],
    ] as const) {
      const r = await h.request<ErrorBody>('POST', `${A}/api-keys`, { key, body: { name: 'x' } });
      expect([r.status, r.body.error.code, r.body.error.param]).toEqual([401, code, null]);
    }
    const after = await h.db.selectFrom('api_keys').select('id').where('business_id', '=', biz.id).execute();
    expect(after).toHaveLength(before.length);
  });

  it('a member key belongs to its business and environment only', async () => {
    const member = await h.request<ApiKeyResponse>('POST', `${A}/api-keys`, { key: biz.sandbox, body: { name: 'scoped' } });
    expect(member.status).toBe(201);
    const hook = await h.request<{ id: string }>('POST', `${A}/webhooks`, { key: biz.sandbox, body: { url: 'https://example.com/k', events: ['payout.*'] } });
    expect(hook.status).toBe(201);
    // Same business: the member key sees the owner's endpoint.
    const mine = await h.request<{ data: { id: string }[] }>('GET', `${A}/webhooks`, { key: member.body.key });
    expect(mine.body.data.map((w) => w.id)).toContain(hook.body.id);
    // Another business's owner does not.
    const other = await h.business();
    const theirs = await h.request<{ data: { id: string }[] }>('GET', `${A}/webhooks`, { key: other.sandbox });
    expect(theirs.body.data.map((w) => w.id)).not.toContain(hook.body.id);
    // The sandbox member key is refused on the live address.
    const live = await h.request<ErrorBody>('GET', '/v1/webhooks', { key: member.body.key });
    expect([live.status, live.body.error.code]).toEqual([401, 'environment_mismatch']);
    // A member key cannot mint further keys (only the owner can).
    const mint = await h.request<ErrorBody>('POST', `${A}/api-keys`, { key: member.body.key, body: { name: 'child' } });
    expect([mint.status, mint.body.error.code]).toEqual([403, 'permission_denied']);
  });
});
