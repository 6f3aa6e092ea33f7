import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
let biz: { id: string; sandbox: string; live: string };

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
});
afterAll(async () => h?.close());

describe('platform: happy', () => {
  describe('request ids, documents and health', () => {
    it('echoes a well-formed X-Request-ID', async () => {
      const r = await h.request('GET', '/sandbox/v1/nothing', { key: biz.sandbox, headers: { 'X-Request-ID': 'abc-123' } });
      expect(r.headers.get('X-Request-ID')).toBe('abc-123');
      expect(r.body.error.request_id).toBe('abc-123');
    });

    it('serves the OpenAPI 3.1 document without a key', async () => {
      const r = await h.request('GET', '/sandbox/v1/openapi.json');
      expect(r.status).toBe(200);
      expect(r.body.openapi).toBe('3.1.0');
      expect(r.body.info.version).toBe('1.0.0');
    });

    it('health reports database and Temporal', async () => {
      const r = await h.request('GET', '/health');
      expect(r.status).toBe(200);
      expect(r.body.checks).toEqual({ database: 'ok', temporal: 'ok' });
    });
  });
});

describe('platform: error', () => {
  describe('unknown routes and oversized bodies', () => {
    it('unknown routes are 404 not_found in the surface shape with X-Request-ID', async () => {
      const r = await h.request('GET', '/sandbox/v1/nothing-here', { key: biz.sandbox });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
      expect(r.headers.get('X-Request-ID')).toMatch(/^req_/);
    });

    it('oversized bodies are 413 payload_too_large', async () => {
      const r = await h.request('POST', '/sandbox/v1/quotes', {
        key: biz.sandbox,
        rawBody: JSON.stringify({ pad: 'x'.repeat(h.config.MAX_BODY_BYTES + 10) }),
        headers: { 'Content-Type': 'application/json' },
      });
      expect(r.status).toBe(413);
      expect(r.body.error.code).toBe('payload_too_large');
    });
  });
});

describe('platform: security', () => {
  describe('authentication (spec "Authentication")', () => {
    it('401 authentication_required without an Authorization header, in the Surface A error shape', async () => {
      const r = await h.request('GET', '/sandbox/v1/channels');
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('authentication_required');
      expect(r.body.error.param).toBeNull();
      expect(r.body.error.request_id).toBe(r.headers.get('X-Request-ID'));
    });

    it('401 invalid_api_key for an unknown key', async () => {
      const r = await h.request('GET', '/sandbox/v1/channels', { key: 'sk_test_nope' });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('invalid_api_key');
    });

    it('401 environment_mismatch for a live key on the sandbox address and back', async () => {
      const a = await h.request('GET', '/sandbox/v1/channels', { key: biz.live });
      expect(a.status).toBe(401);
      expect(a.body.error.code).toBe('environment_mismatch');
      expect(a.body.error.message).toMatch(/live key/);
      const b = await h.request('GET', '/v1/channels', { key: biz.sandbox });
      expect(b.status).toBe(401);
      expect(b.body.error.code).toBe('environment_mismatch');
    });

    it('401 api_key_revoked for a revoked key', async () => {
      const other = await h.business();
      await h.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('business_id', '=', other.id).execute();
      const r = await h.request('GET', '/sandbox/v1/channels', { key: other.sandbox });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('api_key_revoked');
    });

    it('stores keys hashed, never in clear', async () => {
      const rows = await h.db.selectFrom('api_keys').select(['key_hash', 'prefix']).where('business_id', '=', biz.id).execute();
      expect(rows).toHaveLength(2);
      for (const r of rows) {
        expect(r.key_hash).toMatch(/^[0-9a-f]{64}$/);
        expect([biz.sandbox, biz.live]).not.toContain(r.key_hash);
        expect(r.prefix.length).toBeLessThan(16);
      }
    });
  });
});
