import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPayoutsClient, createSurfaceClient, type Documents, PayoutsApiError, unwrap, type PayoutsClient } from '../../clients/typescript';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * The typed client (clients/typescript, docs/operations.md) against the real app in process:
 * a payout round trip through openapi-fetch with the generated types, errors as PayoutsApiError,
 * the environment from the key. That the committed types equal what the service serves is
 * `npm run client:check`, a CI step of its own (.ci/run).
 */
let h: Harness;
let biz: { id: string; sandbox: string; live: string };
let api: PayoutsClient;
const inProcess = (req: Request) => Promise.resolve(h.app.fetch(req));

beforeAll(async () => {
  h = await createHarness();
  biz = await h.business();
  api = createPayoutsClient({ baseUrl: 'http://payouts.test', apiKey: biz.sandbox, fetch: inProcess });
});
afterAll(async () => h?.close());

describe('typed client happy path', () => {
  it('funds, sends a payout with an Idempotency-Key, reads it back until succeeded, lists it', async () => {
    const funded = unwrap(await api.POST('/sandbox/fund', { body: { amount: '50.00' } }));
    expect(funded.available).toBe('50.00');

    const body = {
      channel: 'service_user_usdc',
      recipient: { type: 'service_user' as const, handle: '@maria' },
      source_amount: '12.50',
      reference: 'Invoice 7',
    };
    const created = unwrap(await api.POST('/payouts', { body, params: { header: { 'Idempotency-Key': 'client-po-1' } } }));
    expect(created).toMatchObject({ object: 'payout', status: 'submitted', source_amount: '12.50', channel: 'service_user_usdc' });
    const replay = unwrap(await api.POST('/payouts', { body, params: { header: { 'Idempotency-Key': 'client-po-1' } } }));
    expect(replay.id).toBe(created.id);

    let status: string = created.status;
    for (let i = 0; i < 300 && status !== 'succeeded'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = unwrap(await api.GET('/payouts/{id}', { params: { path: { id: created.id } } })).status;
    }
    expect(status).toBe('succeeded');

    const page = unwrap(await api.GET('/payouts', { params: { query: { limit: 10 } } }));
    expect(page.data.map((p) => p.id)).toContain(created.id);
    const balance = unwrap(await api.GET('/balance'));
    expect(balance.available).toBe('37.50');
  });

  it('createSurfaceClient types another surface by its generated paths (Surface C, sandbox)', async () => {
    const guide = createSurfaceClient<Documents.SurfaceCSandbox.paths>({ baseUrl: 'http://payouts.test', base: '/sandbox/guide/v1', apiKey: biz.sandbox, fetch: inProcess });
    const page = unwrap(await guide.GET('/payouts', { params: { query: { limit: 5 } } }));
    expect(Array.isArray(page.data)).toBe(true);
  });
});

describe('typed client errors', () => {
  it('unwrap throws PayoutsApiError with the code, param and request id of the error body', async () => {
    const res = await api.POST('/payouts', {
      body: { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: '1.2.3' },
    });
    expect(res.response.status).toBe(400);
    let caught: unknown;
    try {
      unwrap(res);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(PayoutsApiError);
    const err = caught as PayoutsApiError;
    expect(err).toMatchObject({ status: 400, code: 'validation_error', param: 'source_amount' });
    expect(err.requestId).toMatch(/^req_/);
  });

  it('unwrap also reads Surface B\'s error shape (code, param and request id from details)', async () => {
    const claim = createSurfaceClient<Documents.SurfaceBSandbox.paths>({ baseUrl: 'http://payouts.test', base: '/sandbox/claim/v1', apiKey: biz.sandbox, fetch: inProcess });
    const res = await claim.GET('/disbursements/{id}', { params: { path: { id: 'dsb_doesnotexist0000' } } });
    expect(res.response.status).toBe(404);
    let caught: unknown;
    try {
      unwrap(res);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(PayoutsApiError);
    expect((caught as PayoutsApiError).code).toBe('not_found');
    expect((caught as PayoutsApiError).requestId).toMatch(/^req_/);
  });

  it('a payout that does not exist is 404 not_found', async () => {
    const res = await api.GET('/payouts/{id}', { params: { path: { id: 'po_doesnotexist0000' } } });
    expect(() => unwrap(res)).toThrow(PayoutsApiError);
    expect(res.response.status).toBe(404);
  });
});

describe('typed client security', () => {
  it('the environment follows the key: a live key calls /v1, and another business cannot see the payout', async () => {
    const seen: string[] = [];
    const live = createPayoutsClient({
      baseUrl: 'http://payouts.test/',
      apiKey: biz.live,
      fetch: (req) => {
        seen.push(new URL(req.url).pathname);
        return inProcess(req);
      },
    });
    unwrap(await live.GET('/balance'));
    expect(seen).toEqual(['/v1/balance']);

    const other = await h.business();
    const otherApi = createPayoutsClient({ baseUrl: 'http://payouts.test', apiKey: other.sandbox, fetch: inProcess });
    const mine = unwrap(await api.GET('/payouts', { params: { query: { limit: 1 } } })).data[0];
    const res = await otherApi.GET('/payouts/{id}', { params: { path: { id: mine.id } } });
    expect(res.response.status).toBe(404);
  });

  it('a wrong key is 401 invalid_api_key; a live key forced onto the sandbox is 401 environment_mismatch', async () => {
    const bad = createPayoutsClient({ baseUrl: 'http://payouts.test', apiKey: 'sk_test_nope', fetch: inProcess });
    const r1 = await bad.GET('/balance');
    expect(r1.response.status).toBe(401);
    expect((r1.error as { error: { code: string } }).error.code).toBe('invalid_api_key');
    const forced = createPayoutsClient({ baseUrl: 'http://payouts.test', apiKey: biz.live, environment: 'sandbox', fetch: inProcess });
    const r2 = await forced.GET('/balance');
    expect(r2.response.status).toBe(401);
    expect((r2.error as { error: { code: string } }).error.code).toBe('environment_mismatch');
  });
});
