import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitLegacyEvent } from '../helpers/legacy-events';
import { attemptWebhookDelivery } from '../../src/core/webhooks';
import { newId } from '../../src/domain/ids';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * docs/security.md: POST /webhooks refuses
 * non-public destinations (live: all of them; sandbox: all but loopback), and every delivery checks
 * again and never follows a redirect.
 */

let h: Harness;
let biz: { id: string; sandbox: string; live: string };

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
});
afterAll(async () => h?.close());

const register = (env: 'live' | 'sandbox', url: string) =>
  h.request('POST', env === 'live' ? '/v1/webhooks' : '/sandbox/v1/webhooks', { key: env === 'live' ? biz.live : biz.sandbox, body: { url, events: ['*'] } });

const REFUSED_EVERYWHERE = [
  'https://169.254.169.254/latest/meta-data',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://10.0.0.1/h',
  'https://192.168.1.1/h',
  'https://172.16.0.1/h',
  'https://100.64.1.1/h',
  'https://[fe80::1]/h',
  'https://[fd00::1]/h',
  'https://0.0.0.0/h',
  'https://[::]/h',
  'https://[::ffff:10.0.0.1]/h',
  'https://[::ffff:169.254.169.254]/h',
];
const LOOPBACK = ['https://127.0.0.1/h', 'https://[::1]/h', 'https://localhost/h', 'https://[::ffff:127.0.0.1]/h', 'https://2130706433/h'];

describe('registration (happy)', () => {
  it('public https hosts are accepted in both environments (an unresolvable name too: checked at delivery)', async () => {
    for (const env of ['live', 'sandbox'] as const) {
      expect((await register(env, 'https://93.184.216.34/h')).status).toBe(201);
      expect((await register(env, 'https://hooks.example.com/h')).status).toBe(201);
    }
  });
  it('the sandbox accepts loopback receivers (http and https)', async () => {
    for (const url of [...LOOPBACK, 'http://127.0.0.1:8080/h', 'http://localhost:3000/h']) {
      expect((await register('sandbox', url)).status, url).toBe(201);
    }
  });
});

describe('registration (error): refused classes are 400 validation_error param url', () => {
  it.each(REFUSED_EVERYWHERE)('%s, live and sandbox', async (url) => {
    for (const env of ['live', 'sandbox'] as const) {
      const r = await register(env, url);
      expect(r.status, `${env} ${url}`).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'url' });
      expect(r.body.error.message).toMatch(/refused/);
    }
  });
  it.each(LOOPBACK)('%s is refused on live', async (url) => {
    const r = await register('live', url);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('url');
  });
  it('nothing was stored for refused URLs', async () => {
    const rows = await h.db.selectFrom('webhook_endpoints').select('url').where('business_id', '=', biz.id).execute();
    for (const url of REFUSED_EVERYWHERE) expect(rows.map((r) => r.url)).not.toContain(new URL(url).toString());
  });
});

describe('delivery (security): checked again at every attempt; redirects not followed', () => {
  async function deliveryTo(environment: 'live' | 'sandbox', url: string): Promise<string> {
    const endpointId = newId('we');
    await h.db
      .insertInto('webhook_endpoints')
      .values({ id: endpointId, business_id: biz.id, environment, surface: 'A', url, events: JSON.stringify(['*']) as any, secret: 'whsec_test', deleted_at: null })
      .execute();
    const objectId = newId('po');
    const eventId = await h.db.transaction().execute((tx) =>
      emitLegacyEvent(tx, { businessId: biz.id, environment, type: 'payout.succeeded', objectType: 'payout', objectId, data: { id: objectId }, dedupeKey: `ssrf:${randomBytes(6).toString('hex')}` }),
    );
    const id = newId('whd');
    await h.db
      .insertInto('webhook_deliveries')
      .values({ id, business_id: biz.id, environment, event_id: eventId!, endpoint_id: endpointId, status: 'pending', attempt_count: 0, last_status_code: null, completed_at: null })
      .execute();
    return id;
  }

  it('an endpoint whose address became private (e.g. a stored row, or DNS changed) is a failed attempt, nothing sent', async () => {
    for (const url of ['https://10.0.0.1/h', 'https://169.254.169.254/h', 'https://metadata.google.internal/h']) {
      const id = await deliveryTo('live', url);
      const out = await attemptWebhookDelivery(h.core, id, 1);
      expect(out).toMatchObject({ result: 'failed', statusCode: null });
      expect((out as { error: string }).error).toMatch(/^endpoint address refused: /);
      const attempt = await h.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', id).executeTakeFirstOrThrow();
      expect(attempt.error).toMatch(/refused/);
      expect(attempt.error).not.toContain('whsec_');
    }
  });

  it('live refuses a loopback receiver at delivery too; the sandbox delivers to it', async () => {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    try {
      const liveOut = await attemptWebhookDelivery(h.core, await deliveryTo('live', url), 1);
      expect(liveOut.result).toBe('failed');
      expect(hits).toEqual([]);
      const sandboxOut = await attemptWebhookDelivery(h.core, await deliveryTo('sandbox', url), 1);
      expect(sandboxOut).toEqual({ result: 'succeeded', statusCode: 200 });
      expect(hits).toEqual(['/hooks']);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('a 3xx to a metadata or local address is a failed attempt and the Location is never requested', async () => {
    const targetHits: string[] = [];
    const target = createServer((req, res) => {
      targetHits.push(req.url ?? '');
      res.writeHead(200).end();
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
    const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/internal`;
    for (const location of ['http://169.254.169.254/latest/meta-data/', targetUrl]) {
      const redirector = createServer((_req, res) => res.writeHead(307, { Location: location }).end());
      await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', () => r()));
      try {
        const id = await deliveryTo('sandbox', `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/hooks`);
        const out = await attemptWebhookDelivery(h.core, id, 1);
        expect(out).toMatchObject({ result: 'failed', statusCode: 307, error: 'endpoint answered HTTP 307' });
        const d = await h.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        expect(d.status).toBe('pending'); // retried later, never succeeded through a redirect
      } finally {
        await new Promise((r) => redirector.close(r));
      }
    }
    expect(targetHits).toEqual([]);
    await new Promise((r) => target.close(r));
  });
});
