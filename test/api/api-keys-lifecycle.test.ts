import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyListResponse, ApiKeyRecordResponse, ApiKeyResponse } from '../../src/api/surface-a/api-keys';
import type { ErrorBody } from '../../src/api/surface-a/errors';
import { openDb } from '../../src/db/connection';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * API key lifecycle on Surface A (docs/api-keys.md): `GET /api-keys` lists keys without their
 * secret, `DELETE /api-keys/{id}` revokes (owner only; the next request is 401 api_key_revoked),
 * `POST /api-keys/{id}/roll` issues a replacement and keeps the old key for a grace period (then
 * 401 api_key_expired), the last owner key cannot be revoked, and the operator's
 * `npm run admin -- key revoke` revokes with an audit line. The two-process check is
 * test/e2e/api-key-revocation.test.ts.
 */

const A = '/sandbox/v1';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ worker: false });
});
afterAll(async () => h?.close());

async function member(owner: string, name = 'Bot', base = A): Promise<ApiKeyResponse> {
  const r = await h.request<ApiKeyResponse>('POST', `${base}/api-keys`, { key: owner, body: { name, policy: { per_payout_max: '5' } } });
  expect(r.status, r.text).toBe(201);
  return r.body;
}
const ownerKeyId = async (bizId: string, env: 'sandbox' | 'live') =>
  (await h.db.selectFrom('api_keys').select('id').where('business_id', '=', bizId).where('environment', '=', env).where('role', '=', 'owner').executeTakeFirstOrThrow()).id;

describe('api keys lifecycle: happy', () => {
  it('GET /api-keys lists every key of the business and environment with prefix and last four, never the key', async () => {
    const biz = await h.business();
    const bot = await member(biz.sandbox, 'Payroll bot');
    // Use the member key once so last_used_at is recorded.
    expect((await h.request('GET', `${A}/balance`, { key: bot.key })).status).toBe(200);
    const r = await h.request<ApiKeyListResponse>('GET', `${A}/api-keys`, { key: biz.sandbox });
    expect(r.status).toBe(200);
    expect(r.body.data.map((k) => k.role).sort()).toEqual(['member', 'owner']);
    const listed = r.body.data.find((k) => k.id === bot.id)!;
    expect(listed).toMatchObject({
      object: 'api_key',
      name: 'Payroll bot',
      prefix: bot.key!.slice(0, 12),
      last4: bot.key!.slice(-4),
      role: 'member',
      policy: { per_payout_max: '5.00' },
      expires_at: null,
      revoked_at: null,
    });
    expect(listed).not.toHaveProperty('key');
    expect(Date.parse(listed.last_used_at!)).not.toBeNaN();
    // Neither key's full value appears anywhere in the response, through either key.
    for (const key of [biz.sandbox, bot.key!]) {
      const text = (await h.request('GET', `${A}/api-keys`, { key })).text;
      expect(text.includes(biz.sandbox)).toBe(false);
      expect(text.includes(bot.key!)).toBe(false);
    }
    // The live address lists the live keys only.
    const live = await h.request<ApiKeyListResponse>('GET', '/v1/api-keys', { key: biz.live });
    expect(live.body.data.map((k) => k.id)).toEqual([await ownerKeyId(biz.id, 'live')]);
  });

  it('last_used_at is written at most once a minute per key', async () => {
    const biz = await h.business();
    const bot = await member(biz.sandbox);
    const used = async () =>
      (await h.db.selectFrom('api_keys').select('last_used_at').where('id', '=', bot.id).executeTakeFirstOrThrow()).last_used_at;
    await h.request('GET', `${A}/balance`, { key: bot.key });
    const first = await used();
    expect(first).not.toBeNull();
    await h.request('GET', `${A}/balance`, { key: bot.key });
    expect(await used()).toEqual(first);
    const realNow = h.core.now;
    h.core.now = () => new Date(Date.now() + 61_000);
    try {
      await h.request('GET', `${A}/balance`, { key: bot.key });
      expect(new Date((await used())!).getTime()).toBeGreaterThan(new Date(first!).getTime() + 60_000);
    } finally {
      h.core.now = realNow;
    }
  });

  it('DELETE /api-keys/{id} revokes at once: the next request is 401 api_key_revoked; a second DELETE returns it unchanged', async () => {
    const biz = await h.business();
    const bot = await member(biz.sandbox);
    expect((await h.request('GET', `${A}/balance`, { key: bot.key })).status).toBe(200);
    const r = await h.request<ApiKeyRecordResponse>('DELETE', `${A}/api-keys/${bot.id}`, { key: biz.sandbox });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: bot.id, role: 'member' });
    expect(Date.parse(r.body.revoked_at!)).not.toBeNaN();
    expect(r.text.includes(bot.key!)).toBe(false);
    const after = await h.request<ErrorBody>('GET', `${A}/balance`, { key: bot.key });
    expect([after.status, after.body.error.code]).toEqual([401, 'api_key_revoked']);
    const again = await h.request<ApiKeyRecordResponse>('DELETE', `${A}/api-keys/${bot.id}`, { key: biz.sandbox });
    expect([again.status, again.body.revoked_at]).toEqual([200, r.body.revoked_at]);
  });

  it('roll without expires_in: the replacement works (same name, role, policy) and the old key is revoked now', async () => {
    const biz = await h.business();
    const bot = await member(biz.sandbox, 'Rolled bot');
    const r = await h.request<ApiKeyResponse>('POST', `${A}/api-keys/${bot.id}/roll`, { key: biz.sandbox });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ name: 'Rolled bot', role: 'member', policy: { per_payout_max: '5.00' }, revoked_at: null, expires_at: null });
    expect(r.body.id).not.toBe(bot.id);
    expect(r.body.key).toMatch(/^sk_test_/);
    expect((await h.request('GET', `${A}/balance`, { key: r.body.key })).status).toBe(200);
    const old = await h.request<ErrorBody>('GET', `${A}/balance`, { key: bot.key });
    expect([old.status, old.body.error.code]).toEqual([401, 'api_key_revoked']);
  });

  it('roll with expires_in PT1H: the old key works until then, then 401 api_key_expired; the owner key can be rolled too', async () => {
    const biz = await h.business();
    const ownerId = await ownerKeyId(biz.id, 'sandbox');
    const r = await h.request<ApiKeyResponse>('POST', `${A}/api-keys/${ownerId}/roll`, { key: biz.sandbox, body: { expires_in: 'PT1H' } });
    expect(r.status, r.text).toBe(201);
    expect(r.body.role).toBe('owner');
    const list = await h.request<ApiKeyListResponse>('GET', `${A}/api-keys`, { key: r.body.key });
    const oldRecord = list.body.data.find((k) => k.id === ownerId)!;
    const expires = Date.parse(oldRecord.expires_at!);
    expect(Math.abs(expires - (Date.now() + 3600_000))).toBeLessThan(120_000);
    expect(oldRecord.revoked_at).toBeNull();
    expect((await h.request('GET', `${A}/balance`, { key: biz.sandbox })).status).toBe(200);
    const realNow = h.core.now;
    h.core.now = () => new Date(expires + 1000);
    try {
      const old = await h.request<ErrorBody>('GET', `${A}/balance`, { key: biz.sandbox });
      expect([old.status, old.body.error.code, old.body.error.param]).toEqual([401, 'api_key_expired', null]);
      expect((await h.request('GET', `${A}/balance`, { key: r.body.key })).status).toBe(200);
    } finally {
      h.core.now = realNow;
    }
  });
});

describe('api keys lifecycle: errors', () => {
  it('400 validation_error (param expires_in) for a duration over P7D or not ISO 8601; nothing is issued', async () => {
    const biz = await h.business();
    const bot = await member(biz.sandbox);
    const count = async () => (await h.db.selectFrom('api_keys').select('id').where('business_id', '=', biz.id).execute()).length;
    const before = await count();
    for (const expires_in of ['P8D', 'PT169H', 'banana', '3600000', 'P1M']) {
      const r = await h.request<ErrorBody>('POST', `${A}/api-keys/${bot.id}/roll`, { key: biz.sandbox, body: { expires_in } });
      expect([r.status, r.body.error.code, r.body.error.param], expires_in).toEqual([400, 'validation_error', 'expires_in']);
    }
    const unknownField = await h.request<ErrorBody>('POST', `${A}/api-keys/${bot.id}/roll`, { key: biz.sandbox, body: { grace: 'PT1H' } });
    expect(unknownField.status).toBe(400);
    expect(await count()).toBe(before);
    expect((await h.request('GET', `${A}/balance`, { key: bot.key })).status).toBe(200);
    // P7D exactly is accepted.
    expect((await h.request('POST', `${A}/api-keys/${bot.id}/roll`, { key: biz.sandbox, body: { expires_in: 'P7D' } })).status).toBe(201);
  });

  it('409 last_owner_key (param id) for the last owner key that stays; 409 api_key_inactive (param id) when rolling a revoked or rolled key', async () => {
    const biz = await h.business();
    const ownerId = await ownerKeyId(biz.id, 'sandbox');
    const last = await h.request<ErrorBody>('DELETE', `${A}/api-keys/${ownerId}`, { key: biz.sandbox });
    expect([last.status, last.body.error.code, last.body.error.param]).toEqual([409, 'last_owner_key', 'id']);
    expect((await h.request('GET', `${A}/balance`, { key: biz.sandbox })).status).toBe(200);

    // Roll the owner key with a grace period: the new owner key stays, so the old may be revoked,
    // but the new one may not (the old one is on its way out).
    const rolled = await h.request<ApiKeyResponse>('POST', `${A}/api-keys/${ownerId}/roll`, { key: biz.sandbox, body: { expires_in: 'PT1H' } });
    expect(rolled.status).toBe(201);
    const newest = await h.request<ErrorBody>('DELETE', `${A}/api-keys/${rolled.body.id}`, { key: rolled.body.key });
    expect([newest.status, newest.body.error.code, newest.body.error.param]).toEqual([409, 'last_owner_key', 'id']);
    const again = await h.request<ErrorBody>('POST', `${A}/api-keys/${ownerId}/roll`, { key: rolled.body.key });
    expect([again.status, again.body.error.code, again.body.error.param]).toEqual([409, 'api_key_inactive', 'id']);
    expect((await h.request('DELETE', `${A}/api-keys/${ownerId}`, { key: rolled.body.key })).status).toBe(200);
    const revoked = await h.request<ErrorBody>('POST', `${A}/api-keys/${ownerId}/roll`, { key: rolled.body.key });
    expect([revoked.status, revoked.body.error.code, revoked.body.error.param]).toEqual([409, 'api_key_inactive', 'id']);
  });
});

describe('api keys lifecycle: security', () => {
  it("another business's key id is 404 not_found (param id) on revoke and roll, and is not listed", async () => {
    const mine = await h.business();
    const theirs = await h.business();
    const bot = await member(mine.sandbox);
    for (const [method, path] of [['DELETE', `${A}/api-keys/${bot.id}`], ['POST', `${A}/api-keys/${bot.id}/roll`]] as const) {
      const r = await h.request<ErrorBody>(method, path, { key: theirs.sandbox });
      expect([r.status, r.body.error.code, r.body.error.param], method).toEqual([404, 'not_found', 'id']);
    }
    const list = await h.request<ApiKeyListResponse>('GET', `${A}/api-keys`, { key: theirs.sandbox });
    expect(list.body.data.map((k) => k.id)).not.toContain(bot.id);
    // The sandbox key's id on the live address (same business): 404 too.
    const live = await h.request<ErrorBody>('DELETE', `/v1/api-keys/${bot.id}`, { key: mine.live });
    expect([live.status, live.body.error.code]).toEqual([404, 'not_found']);
    expect((await h.request('GET', `${A}/balance`, { key: bot.key })).status).toBe(200);
  });

  it('401 without a key and with a key of the other environment; 403 permission_denied for a member key on revoke and roll', async () => {
    const biz = await h.business();
    const bot = await member(biz.sandbox);
    const other = await member(biz.sandbox, 'Other');
    for (const [method, path] of [['GET', `${A}/api-keys`], ['DELETE', `${A}/api-keys/${other.id}`], ['POST', `${A}/api-keys/${other.id}/roll`]] as const) {
      for (const [key, code] of [[undefined, 'authentication_required'], [biz.live, 'environment_mismatch']] as const) {
        const r = await h.request<ErrorBody>(method, path, { key });
        expect([r.status, r.body.error.code], `${method} ${path}`).toEqual([401, code]);
      }
    }
    for (const [method, path] of [['DELETE', `${A}/api-keys/${other.id}`], ['POST', `${A}/api-keys/${other.id}/roll`]] as const) {
      const r = await h.request<ErrorBody>(method, path, { key: bot.key });
      expect([r.status, r.body.error.code], method).toEqual([403, 'permission_denied']);
    }
    expect((await h.request('GET', `${A}/balance`, { key: other.key })).status).toBe(200);
  });
});

describe('npm run admin -- key revoke', () => {
  it('revokes a key with an audit line; refuses the last owner key without --force', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'admin-keys-'));
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'info' };
    delete env.DATABASE_URL; // PGlite under DATA_DIR
    const admin = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main/admin.ts', ...args], { cwd: ROOT, env }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    try {
      const created = await admin('business', 'create', '--name', 'Ops test', '--json');
      expect(created.code, created.stderr).toBe(0);
      const db = await openDb({ pgliteDir: dir });
      const keyId = (await db.selectFrom('api_keys').select('id').where('environment', '=', 'sandbox').executeTakeFirstOrThrow()).id;
      await db.destroy();

      const refused = await admin('key', 'revoke', keyId);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('last_owner_key');

      const r = await admin('key', 'revoke', keyId, '--force', '--json');
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ id: keyId, environment: 'sandbox', role: 'owner' });
      const audit = r.stderr.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.msg === 'api key revoked by operator');
      expect(audit).toMatchObject({ key_id: keyId, environment: 'sandbox', forced: true });
      expect(typeof audit.operator).toBe('string');

      const unknown = await admin('key', 'revoke', 'key_nope');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('not_found');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
