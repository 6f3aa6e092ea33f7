import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findHostileJson, hasHostileChars, jsonDepth, MAX_JSON_DEPTH } from '../../src/api/middleware/hostile-input';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { surfaceMounts } from '../../src/api/surfaces';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * docs/security.md: NUL characters and unpaired
 * surrogates in query, path, header and body; JSON nested deeper than 32 levels; undeclared methods.
 */

let h: Harness;
let biz: { id: string; sandbox: string; live: string };

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
});
afterAll(async () => h?.close());

const A = '/sandbox/v1';
const LONE_HIGH = '\ud800';
const LONE_LOW = 'x\udc00y';

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

function expectValidation(r: { status: number; body: any }, param: string | null) {
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe('validation_error');
  expect(r.body.error.param).toBe(param);
  expect(r.body.error.request_id).toMatch(/\S/);
}

describe('hostile input, happy: ordinary input passes', () => {
  it('emoji (paired surrogates), accents and escapes are accepted', async () => {
    const r = await h.request('POST', `${A}/webhooks`, {
      key: biz.sandbox,
      rawBody: JSON.stringify({ url: 'https://example.com/h?n=caf\u00e9\ud83d\ude00', events: ['payout.*'] }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(r.status).toBe(201);
  });

  it('JSON nested exactly 32 levels reaches the route (its own validation answers)', async () => {
    const r = await h.request('POST', `${A}/quotes`, { key: biz.sandbox, rawBody: deepObject(MAX_JSON_DEPTH - 1).replace(/^/, '{"x":').concat('}'), headers: { 'Content-Type': 'application/json' } });
    expect(r.status).toBe(400);
    // the route's validator answered (a missing channel), not the depth guard
    expect(r.body.error.param).not.toBeNull();
  });

  it('unit: depth scanner honours strings and escapes; finder reports dotted paths', () => {
    expect(jsonDepth('{"a":"[[[[\\"[[[","b":[1,{"c":[]}]}')).toBe(4);
    expect(jsonDepth(deep(40), 32)).toBe(33);
    expect(jsonDepth('"\\\\"[')).toBe(1);
    expect(hasHostileChars('ok \ud83d\ude00')).toBe(false);
    expect(hasHostileChars('a\u0000b')).toBe(true);
    expect(hasHostileChars(LONE_HIGH)).toBe(true);
    expect(hasHostileChars(LONE_LOW)).toBe(true);
    expect(findHostileJson({ items: [{ ok: 'x' }, { name: 'a\u0000' }] })).toEqual({ path: 'items.1.name' });
    expect(findHostileJson({ a: { b: ['fine'] } })).toBeUndefined();
  });
});

describe('hostile input, error: 400 validation_error with the param, on Surface A', () => {
  it('NUL in a query parameter (was a 500)', async () => {
    expectValidation(await h.request('GET', `${A}/payouts?channel=F%00`, { key: biz.sandbox }), 'channel');
    expectValidation(await h.request('GET', `${A}/recipients?type=pagomovil&external_id=%00`, { key: biz.sandbox }), 'external_id');
  });

  it('NUL in a path parameter is named after the route parameter', async () => {
    expectValidation(await h.request('GET', `${A}/payouts/po_%00x`, { key: biz.sandbox }), 'id');
    expectValidation(await h.request('GET', `${A}/channels/spei%00/requirements`, { key: biz.sandbox }), 'channel');
    expectValidation(await h.request('PATCH', `${A}/disbursements/d_1/items/%00`, { key: biz.sandbox, body: {} }), 'item_id');
  });

  it('NUL or an unpaired surrogate in a JSON body names the dotted path (was a 500)', async () => {
    const nul = await h.request('POST', `${A}/recipients`, {
      key: biz.sandbox,
      body: { type: 'bank_account', country: 'MX', currency: 'MXN', name: 'Ana\u0000', bank_account: { holder_name: 'Ana', clabe: '002010077777777771', recipient_kind: 'individual' } },
    });
    expectValidation(nul, 'name');
    const sur = await h.request('POST', `${A}/recipients`, {
      key: biz.sandbox,
      body: { type: 'bank_account', country: 'MX', currency: 'MXN', name: 'Ana', bank_account: { holder_name: `Ana${LONE_HIGH}`, clabe: '002010077777777771', recipient_kind: 'individual' } },
    });
    expectValidation(sur, 'bank_account.holder_name');
    const low = await h.request('POST', `${A}/webhooks`, { key: biz.sandbox, body: { url: 'https://example.com/h', events: ['payout.*', LONE_LOW] } });
    expectValidation(low, 'events.1');
  });

  it('the escaped forms \\u0000 and \\ud800 in raw JSON text are caught too', async () => {
    const r = await h.request('POST', `${A}/quotes`, {
      key: biz.sandbox,
      rawBody: '{"channel":"spei_mxn","source_amount":"10","reference":"a\\u0000"}',
      headers: { 'Content-Type': 'application/json' },
    });
    expectValidation(r, 'reference');
    const s = await h.request('POST', `${A}/quotes`, {
      key: biz.sandbox,
      rawBody: '{"channel":"spei_mxn\\udfff","source_amount":"10"}',
      headers: { 'Content-Type': 'application/json' },
    });
    expectValidation(s, 'channel');
  });

  it('NUL in a form field or an uploaded CSV', async () => {
    const form = new FormData();
    form.set('file', new Blob(['name,amount\nAna\u0000,10\n'], { type: 'text/csv' }), 'items.csv');
    const res = await h.app.request(`${A}/disbursements/d_x/items/import`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${biz.sandbox}` },
      body: form,
    });
    expectValidation({ status: res.status, body: await res.json() }, 'file');
  });

  it('a malformed multipart body is 400 param body (was a 500 found by Schemathesis)', async () => {
    const boundary = 'a222103b9b30b1f9e8be6882ecedb1d2';
    const res = await h.app.request(`${A}/disbursements/d_x/items/import`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${biz.sandbox}`, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body: `--${boundary}\r\n[]--${boundary}--\r\n`,
    });
    expectValidation({ status: res.status, body: await res.json() }, 'body');
  });

  it('JSON deeper than 32 levels: 400 before parsing, also 10,000 levels (was a 500)', async () => {
    for (const raw of [deep(MAX_JSON_DEPTH + 1), deepObject(10_000), `{"bank_account":${deep(3000)}}`]) {
      const r = await h.request('POST', `${A}/recipients`, { key: biz.sandbox, rawBody: raw, headers: { 'Content-Type': 'application/json' } });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.message).toContain('32 levels');
    }
  });

  it('nothing was stored by the refused requests', async () => {
    const list = await h.request('GET', `${A}/recipients`, { key: biz.sandbox });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
  });
});

describe('amounts past 12 digits before the point: 400 naming the field, on every surface (were 500s found by Schemathesis)', () => {
  const HUGE = '99999999999999999999999999';
  it('Surface A: quotes (was amount_out_of_range: the channel limit answered, not the format)', async () => {
    expectValidation(await h.request('POST', `${A}/quotes`, { key: biz.sandbox, body: { channel: 'spei_mxn', source_amount: HUGE } }), 'source_amount');
    expectValidation(await h.request('POST', `${A}/quotes`, { key: biz.sandbox, body: { channel: 'spei_mxn', destination_amount: `${HUGE}.00` } }), 'destination_amount');
  });

  it('Surface B: card top-up and disbursement (each was a 500: the amount overflowed a bigint column)', async () => {
    const B = '/sandbox/claim/v1';
    const card = await h.request('POST', `${B}/funding/card`, {
      key: biz.sandbox,
      body: { amountUsd: HUGE, successUrl: 'https://example.com/ok', cancelUrl: 'https://example.com/no' },
    });
    expect([card.status, card.body.error, card.body.details.param]).toEqual([400, 'validation_error', 'amountUsd']);
    const d = await h.request('POST', `${B}/disbursements`, { key: biz.sandbox, body: { amountUsd: HUGE, currency: 'USD', recipientPhone: '+525512345678' } });
    expect([d.status, d.body.error, d.body.details.param]).toEqual([400, 'validation_error', 'amountUsd']);
    // below 12 digits but above what one deposit may be: refused now, not when the payer pays
    const big = await h.request('POST', `${B}/funding/card`, {
      key: biz.sandbox,
      body: { amountUsd: '10000000.01', successUrl: 'https://example.com/ok', cancelUrl: 'https://example.com/no' },
    });
    expect([big.status, big.body.error, big.body.details.param]).toEqual([400, 'validation_error', 'amountUsd']);
    const fund = await h.request('POST', `${B}/sandbox/fund`, { key: biz.sandbox, body: { amountUsd: '1000000000000' } });
    expect([fund.status, fund.body.error, fund.body.details.param]).toEqual([400, 'validation_error', 'amountUsd']);
  });

  it('Surface C: payouts', async () => {
    const r = await h.request('POST', '/sandbox/guide/v1/payouts', { key: biz.sandbox, body: { amount: `${HUGE}.00`, currency: 'USD', email: 'ana@example.com' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'amount' });
  });

  it('nothing was recorded, and the balance is untouched', async () => {
    const bal = await h.request('GET', `${A}/balance`, { key: biz.sandbox });
    expect([bal.body.available, bal.body.held]).toEqual(['0.00', '0.00']);
    const topups = await h.db.selectFrom('card_topups').select('id').where('business_id', '=', biz.id).execute();
    expect(topups).toEqual([]);
  });

  it('a numeric overflow that gets past parsing is a 400, not a 500 (PostgreSQL 22003)', async () => {
    const { toApiError } = await import('../../src/api/errors');
    const e = toApiError(Object.assign(new Error('value "1e20" is out of range for type bigint'), { code: '22003' }));
    expect([e.status, e.code]).toEqual([400, 'validation_error']);
    expect(toApiError(new Error('boom')).status).toBe(500);
  });
});

describe('hostile input, every surface answers in its own error shape', () => {
  /** Value of the first `param` key anywhere in an error body (each surface nests it differently). */
  const paramOf = (body: unknown): unknown => {
    const stack = [body];
    while (stack.length) {
      const v = stack.pop();
      if (v && typeof v === 'object') {
        if ('param' in v) return (v as { param: unknown }).param;
        stack.push(...Object.values(v));
      }
    }
    return undefined;
  };

  it('every surface of the registry, live and sandbox: 400 validation_error naming the param', async () => {
    const mounts = surfaceMounts();
    expect(mounts.length).toBeGreaterThanOrEqual(2);
    for (const m of mounts) {
      const key = m.environment === 'live' ? biz.live : biz.sandbox;
      const r = await h.request('GET', `${m.base}/anything?q=%00`, { key });
      expect(r.status, m.base).toBe(400);
      expect(JSON.stringify(r.body), m.base).toContain('validation_error');
      expect(paramOf(r.body), m.base).toBe('q');
      const body = await h.request('POST', `${m.base}/anything`, { key, body: { nested: { name: `a${LONE_HIGH}` } } });
      expect(body.status, m.base).toBe(400);
      expect(paramOf(body.body), m.base).toBe('nested.name');
    }
  });

  it('Surface A shape: {error: {code, param, request_id}} on live and sandbox', async () => {
    for (const base of ['/sandbox/v1', '/v1']) {
      const r = await h.request('GET', `${base}/payouts?q=%00`, { key: biz.live });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', param: 'q' });
    }
  });

  it('public pages: NUL in the token', async () => {
    expectValidation(await h.request('GET', '/r/tok%00en'), 'token');
    expectValidation(await h.request('GET', '/c/%00'), 'token');
  });

  it('a header with an unpaired surrogate cannot even be sent (Headers are byte strings); NUL in a header value is refused on the wire by Node', () => {
    expect(() => new Headers({ 'X-Test': 'a\u0000b' })).toThrow();
  });
});

describe('the OpenAPI documents say so', () => {
  it('every operation of every served document documents 400, 413 with a body, and 429 when authenticated', async () => {
    for (const m of surfaceMounts()) {
      const doc = (await h.request('GET', m.openapiPath)).body;
      for (const [path, item] of Object.entries<any>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(item)) {
          if (!['get', 'post', 'patch', 'put', 'delete'].includes(method)) continue;
          expect(op.responses['400'], `${m.base} ${method} ${path}`).toBeDefined();
          if (op.requestBody) expect(op.responses['413'], `${method} ${path}`).toBeDefined();
          expect(op.responses['429'], `${m.base} ${method} ${path}`).toBeDefined();
          const idem = (op.parameters ?? []).some((p: any) => p.name === 'Idempotency-Key') || JSON.stringify(op.requestBody ?? {}).includes('idempotencyKey');
          if (idem) expect(op.responses['409'], `${m.base} ${method} ${path}`).toBeDefined();
        }
      }
    }
  });
});

describe('undeclared methods: 405 with Allow, in the surface shape', () => {
  it('TRACE over real HTTP (fetch refuses to send it)', async () => {
    const server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((r) => server.once('listening', r));
    try {
      const { port } = server.address() as AddressInfo;
      const t = await new Promise<{ status: number; allow: string | undefined; body: any }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, method: 'TRACE', path: `${A}/payouts`, headers: { Authorization: `Bearer ${biz.sandbox}` } }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body: JSON.parse(text) }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(t.status).toBe(405);
      expect(t.allow).toBe('GET, HEAD, POST');
      expect(t.body.error).toMatchObject({ code: 'method_not_allowed', param: null });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('PUT and DELETE on known paths', async () => {
    const p = await h.request('PUT', `${A}/payouts/po_123`, { key: biz.sandbox });
    expect(p.status).toBe(405);
    expect(p.headers.get('Allow')).toBe('GET, HEAD');
    const d = await h.request('DELETE', `${A}/balance`, { key: biz.sandbox });
    expect(d.status).toBe(405);
    expect(d.headers.get('Allow')).toBe('GET, HEAD');
  });

  it('405 comes before authentication (the answer does not depend on the key)', async () => {
    const r = await h.request('PATCH', `${A}/webhooks`);
    expect(r.status).toBe(405);
    expect(r.headers.get('Allow')).toBe('GET, HEAD, POST');
  });

  it('an unknown path stays 404; a declared method still routes', async () => {
    expect((await h.request('PUT', `${A}/nope`, { key: biz.sandbox })).status).toBe(404);
    expect((await h.request('GET', `${A}/balance`, { key: biz.sandbox })).status).toBe(200);
    expect((await h.request('HEAD', `${A}/balance`, { key: biz.sandbox })).status).toBe(200);
  });
});

describe('hostile input, security', () => {
  it('refusals happen before authentication and leak nothing of other tenants', async () => {
    const r = await h.request('GET', `${A}/payouts?channel=%00`);
    expectValidation(r, 'channel');
    const other = await h.business();
    const r2 = await h.request('GET', `${A}/recipients/rcp_%00`, { key: other.sandbox });
    expectValidation(r2, 'id');
  });
});
