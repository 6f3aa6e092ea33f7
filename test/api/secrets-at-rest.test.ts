import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyringFor, openSecret, SecretUnreadableError, sealedKeyId, webhookSecretAad } from '../../src/core/secrets';
import { resealStoredSecrets } from '../../src/core/webhook-endpoints';
import { signingSecrets } from '../../src/core/webhooks';
import { newId } from '../../src/domain/ids';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * docs/security.md "Secrets at rest": webhook signing secrets (current and previous) are stored
 * AES-256-GCM encrypted under the configured key; a key rotation re-encrypts them while the old key
 * still reads; a dump of the database (pg_dump on PostgreSQL, every table's text on PGlite)
 * contains none of them in plain text.
 */
const k1 = randomBytes(32).toString('base64');
const k2 = randomBytes(32).toString('base64');
let h: Harness;
let biz: { id: string; sandbox: string; live: string };
const plaintexts: string[] = [];
const endpointIds: string[] = [];

beforeAll(async () => {
  h = await createHarness({ worker: false, env: { SECRETS_KEYS: `k1:${k1}` } });
  biz = await h.business();
  // Surface A: created, then rotated twice (current and previous both stored).
  const a = await h.request('POST', '/sandbox/v1/webhooks', { key: biz.sandbox, body: { url: 'https://example.com/a', events: ['*'] } });
  plaintexts.push(a.body.secret);
  for (let i = 0; i < 2; i++) {
    const r = await h.request('POST', `/sandbox/v1/webhooks/${a.body.id}/rotate-secret`, { key: biz.sandbox, body: { expire_previous_in: 'P1D' } });
    expect(r.status).toBe(200);
    plaintexts.push(r.body.secret);
  }
  // Surface B: the business chooses the secret, then rotates to another.
  const b = await h.request('POST', '/sandbox/claim/v1/webhooks', { key: biz.sandbox, body: { url: 'https://example.com/b', events: ['*'], secret: 'surface-b-chosen-secret-1' } });
  expect(b.status).toBe(201);
  const rb = await h.request('POST', `/sandbox/claim/v1/webhooks/${b.body.id}/rotate-secret`, { key: biz.sandbox, body: { secret: 'surface-b-chosen-secret-2', expirePreviousIn: 'P1D' } });
  expect(rb.status).toBe(200);
  plaintexts.push('surface-b-chosen-secret-1', 'surface-b-chosen-secret-2');
  // A row written before encryption (plain text), which the rotation seals.
  const legacyId = newId('we');
  await h.db
    .insertInto('webhook_endpoints')
    .values({ id: legacyId, business_id: biz.id, environment: 'sandbox', surface: 'A', url: 'https://example.com/legacy', events: JSON.stringify(['*']) as any, secret: 'whsec_legacy_plaintext_value', deleted_at: null })
    .execute();
  plaintexts.push('whsec_legacy_plaintext_value');
  endpointIds.push(a.body.id, b.body.id, legacyId);
});
afterAll(async () => h?.close());

const rows = () => h.db.selectFrom('webhook_endpoints').select(['id', 'secret', 'previous_secret', 'previous_secret_expires_at']).where('id', 'in', endpointIds).orderBy('id').execute();

/** Every table's rows as text (PGlite), or pg_dump's output (PostgreSQL). */
async function dump(): Promise<string> {
  if (h.databaseUrl) {
    // PGBIN, else the newest /usr/lib/postgresql/<v>/bin (a newer pg_dump reads an older server), else PATH.
    const installed = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)).map((v) => `/usr/lib/postgresql/${v}/bin/pg_dump`) : [];
    const bin = [process.env.PGBIN && `${process.env.PGBIN}/pg_dump`, ...installed].find((p) => p && existsSync(p)) ?? 'pg_dump';
    return execFileSync(bin, ['--data-only', '--no-owner', h.databaseUrl], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  }
  const tables = await sql<{ t: string }>`select table_name as t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(h.db);
  const parts: string[] = [];
  for (const { t } of tables.rows) {
    const r = await sql<{ x: string | null }>`select string_agg(r::text, E'\n') as x from ${sql.table(t)} r`.execute(h.db);
    parts.push(`-- ${t}\n${r.rows[0]?.x ?? ''}`);
  }
  return parts.join('\n');
}

describe('webhook signing secrets at rest', () => {
  it('are stored sealed under the configured key id and open to the secrets that sign', async () => {
    const stored = await rows();
    const sealed = stored.filter((r) => r.id !== endpointIds[2]);
    for (const r of sealed) {
      expect(sealedKeyId(r.secret)).toBe('k1');
      expect(sealedKeyId(r.previous_secret!)).toBe('k1');
    }
    const a = stored.find((r) => r.id === endpointIds[0])!;
    expect(signingSecrets(h.core, a)).toEqual([plaintexts[2], plaintexts[1]]);
    // A sealed value moved to another row does not open there.
    expect(() => openSecret(keyringFor(h.config), a.secret, webhookSecretAad(endpointIds[1]!))).toThrow(SecretUnreadableError);
  });

  it('a key rotation re-encrypts every secret under the new key while the old one still reads; all stay readable', async () => {
    const before = await rows();
    const both = keyringFor({ SECRETS_KEYS: `k2:${k2},k1:${k1}`, SECRETS_ACTIVE_KEY_ID: 'k2', NODE_ENV: undefined });
    // The old key's values read under the new configuration before anything is re-encrypted.
    const opened = (ring: typeof both, rs: typeof before) => rs.flatMap((r) => [openSecret(ring, r.secret, webhookSecretAad(r.id)), r.previous_secret && openSecret(ring, r.previous_secret, webhookSecretAad(r.id))]);
    const plainBefore = opened(both, before);
    const report = await resealStoredSecrets(h.db, both);
    expect(report).toMatchObject({ activeKeyId: 'k2', resealed: 5 });
    const after = await rows();
    for (const r of after) {
      expect(sealedKeyId(r.secret)).toBe('k2');
      if (r.previous_secret) expect(sealedKeyId(r.previous_secret)).toBe('k2');
    }
    // Every secret still reads, with the new key alone.
    const onlyNew = keyringFor({ SECRETS_KEYS: `k2:${k2}`, SECRETS_ACTIVE_KEY_ID: undefined, NODE_ENV: undefined });
    expect(opened(onlyNew, after)).toEqual(plainBefore);
    expect(plainBefore.filter(Boolean).sort()).toEqual([...plaintexts].sort().filter((p) => p !== plaintexts[0]));
    // The old key alone no longer opens anything; a second run changes nothing.
    const onlyOld = keyringFor({ SECRETS_KEYS: `k1:${k1}`, SECRETS_ACTIVE_KEY_ID: undefined, NODE_ENV: undefined });
    expect(() => openSecret(onlyOld, after[0]!.secret, webhookSecretAad(after[0]!.id))).toThrow(SecretUnreadableError);
    expect(await resealStoredSecrets(h.db, both)).toMatchObject({ resealed: 0, unchanged: 5 });
  });

  it('a database dump contains none of the secrets in plain text', async () => {
    const text = await dump();
    expect(text).toContain('enc:v1:k2:');
    for (const p of plaintexts) expect(text.includes(p), `dump contains ${p}`).toBe(false);
  });

  it('the embedded development key is refused in production', () => {
    expect(() => keyringFor({ SECRETS_KEYS: undefined, SECRETS_ACTIVE_KEY_ID: undefined, NODE_ENV: 'production' })).toThrow(/SECRETS_KEYS is required/);
  });
});
