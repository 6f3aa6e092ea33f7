import { createRoute, z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { surfaceA } from '../../src/api/surface-a';
import { buildSurfaceApp, defineErrorVocabulary, defineSurface, errorResponsesOf, type SurfaceRouter } from '../../src/api/surface';
import { surfaceMounts, surfaceOf } from '../../src/api/surfaces';
import type { AppEnv } from '../../src/api/types';
import { ApiError } from '../../src/domain/errors';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * The router factory (src/api/surface.ts) and the surface registry (src/api/surfaces.ts): what a new
 * surface gets by being defined, shown with a camelCase toy surface whose error vocabulary differs
 * from the core's the way Surface B's does.
 */

const ToyErrorSchema = z
  .object({ error: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) })
  .openapi('Error');
const toyErrors = defineErrorVocabulary({
  schema: ToyErrorSchema,
  codes: {
    insufficient_balance: { status: 422, code: 'balance_too_low' },
    validation_error: (e) => (e.param === 'phone' ? { code: 'invalid_phone' } : undefined),
  },
  body: (e) => ({ error: e.code, message: e.message, details: { ...(e.details ?? {}), param: e.param, requestId: e.requestId } }),
});
const toyErrorResponses = errorResponsesOf(toyErrors);

const echoRoute = createRoute({
  method: 'post',
  path: '/echo',
  operationId: 'createEcho',
  request: {
    body: {
      required: true,
      content: { 'application/json': { schema: z.object({ amountUsd: z.string().regex(/^\d+\.\d{2}$/), phone: z.string().startsWith('+').optional() }) } },
    },
  },
  responses: {
    200: { description: 'Echo', content: { 'application/json': { schema: z.object({ amountUsd: z.string(), businessId: z.string() }) } } },
    ...toyErrorResponses({ 400: 'bad request', 401: 'no key' }),
  },
});
const poorRoute = createRoute({
  method: 'get',
  path: '/poor',
  operationId: 'getPoor',
  responses: { 200: { description: 'never' }, ...toyErrorResponses({ 422: 'balance too low' }) },
});

const toy = defineSurface({
  id: 'B',
  name: 'Toy surface',
  liveBase: '/toy/v1',
  sandboxBase: '/sandbox/toy/v1',
  title: 'Toy',
  description: 'A surface built by the factory in a test',
  errors: toyErrors,
  register(app: SurfaceRouter) {
    app.openapi(echoRoute, (c) => c.json({ amountUsd: c.req.valid('json').amountUsd, businessId: c.get('caller').businessId }, 200));
    app.openapi(poorRoute, () => {
      throw new ApiError(402, 'insufficient_balance', 'Not enough', null, { neededUsd: '5.00' });
    });
  },
});

let h: Harness;
let app: Hono<AppEnv>;
let biz: { id: string; sandbox: string; live: string };

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz = await h.business();
  app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    c.set('core', h.core);
    c.set('requestId', 'req_test');
    await next();
  });
  app.route(toy.sandboxBase, buildSurfaceApp(toy, 'sandbox'));
  app.route(toy.liveBase, buildSurfaceApp(toy, 'live'));
});
afterAll(async () => h?.close());

const call = async (path: string, init: { method?: string; key?: string; body?: unknown } = {}) => {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (init.key) headers.Authorization = `Bearer ${init.key}`;
  const res = await app.request(path, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  return { status: res.status, body: await res.json() };
};

describe('surface factory: happy', () => {
  it('authenticates with the environment of the base address and runs the route', async () => {
    const r = await call('/sandbox/toy/v1/echo', { method: 'POST', key: biz.sandbox, body: { amountUsd: '5.00' } });
    expect(r).toEqual({ status: 200, body: { amountUsd: '5.00', businessId: biz.id } });
  });

  it('serves the OpenAPI 3.1 document without a key: its base as server, bearer security, the error schema as a component', async () => {
    const r = await call('/toy/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ openapi: '3.1.0', info: { title: 'Toy', version: '1.0.0' }, servers: [{ url: '/toy/v1' }], security: [{ bearer: [] }] });
    const doc = r.body as {
      components: { securitySchemes: Record<string, unknown>; schemas: { Error: { properties: Record<string, unknown> } } };
      paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: unknown }> }> }>>;
    };
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
    expect(Object.keys(doc.components.schemas.Error.properties)).toEqual(['error', 'message', 'details']);
    expect(doc.paths['/echo'].post.responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
  });
});

describe('surface factory: error', () => {
  it("a zod validation failure is 400 validation_error in the surface's shape, naming the param", async () => {
    const r = await call('/sandbox/toy/v1/echo', { method: 'POST', key: biz.sandbox, body: { amountUsd: '5' } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'validation_error', details: { param: 'amountUsd', requestId: 'req_test' } });
    expect(ToyErrorSchema.safeParse(r.body).success).toBe(true);
  });

  it('a mapping can depend on the error: validation_error on phone becomes invalid_phone', async () => {
    const r = await call('/sandbox/toy/v1/echo', { method: 'POST', key: biz.sandbox, body: { amountUsd: '5.00', phone: '555' } });
    expect(r).toMatchObject({ status: 400, body: { error: 'invalid_phone', details: { param: 'phone' } } });
  });

  it("the vocabulary maps a core code to the surface's own status and code, keeping the core's details", async () => {
    const r = await call('/sandbox/toy/v1/poor', { key: biz.sandbox });
    expect(r).toEqual({
      status: 422,
      body: { error: 'balance_too_low', message: 'Not enough', details: { neededUsd: '5.00', param: null, requestId: 'req_test' } },
    });
  });

  it('defineSurface refuses base addresses that are equal or not of the form /x', () => {
    const base = { id: 'C' as const, name: 'x', title: 'x', description: 'x', errors: toyErrors, register: () => {} };
    expect(() => defineSurface({ ...base, liveBase: '/v9', sandboxBase: '/v9' })).toThrow(/must differ/);
    expect(() => defineSurface({ ...base, liveBase: 'v9', sandboxBase: '/sandbox/v9' })).toThrow(/must start/);
    expect(() => defineSurface({ ...base, liveBase: '/v9/', sandboxBase: '/sandbox/v9' })).toThrow(/must start and not end/);
  });
});

describe('surface factory: security', () => {
  it("401 in the surface's shape without a key and with a key of the other environment", async () => {
    const none = await call('/sandbox/toy/v1/echo', { method: 'POST', body: { amountUsd: '5.00' } });
    expect(none).toMatchObject({ status: 401, body: { error: 'authentication_required' } });
    const live = await call('/sandbox/toy/v1/echo', { method: 'POST', key: biz.live, body: { amountUsd: '5.00' } });
    expect(live).toMatchObject({ status: 401, body: { error: 'environment_mismatch' } });
    const sandboxOnLive = await call('/toy/v1/echo', { method: 'POST', key: biz.sandbox, body: { amountUsd: '5.00' } });
    expect(sandboxOnLive).toMatchObject({ status: 401, body: { error: 'environment_mismatch' } });
  });
});

describe('surface registry', () => {
  it('lists every surface at its live and sandbox base with its OpenAPI document, and the app serves each', async () => {
    const mounts = surfaceMounts();
    expect(mounts.filter((m) => m.surface === 'A').map((m) => [m.environment, m.base, m.openapiPath, m.label])).toEqual([
      ['live', '/v1', '/v1/openapi.json', 'Surface A (live)'],
      ['sandbox', '/sandbox/v1', '/sandbox/v1/openapi.json', 'Surface A (sandbox)'],
    ]);
    for (const m of mounts) {
      const r = await h.request<{ servers: { url: string }[] }>('GET', m.openapiPath);
      expect([r.status, r.body.servers[0].url], m.openapiPath).toEqual([200, m.base]);
    }
    const docs = await h.request('GET', '/docs/init.js');
    for (const m of mounts) expect(docs.text, m.label).toContain(`"url":"${m.openapiPath}"`);
  });

  it('finds the surface and environment of a path by its base address; other paths are Surface A', () => {
    expect(surfaceOf('/sandbox/v1/payouts')).toMatchObject({ surface: 'A', environment: 'sandbox', definition: surfaceA });
    expect(surfaceOf('/v1/payouts')).toMatchObject({ surface: 'A', environment: 'live' });
    expect(surfaceOf('/v1')).toMatchObject({ surface: 'A', environment: 'live' });
    expect(surfaceOf('/v10/x')).toMatchObject({ surface: 'A', environment: 'live' });
    expect(surfaceOf('/sandbox/elsewhere')).toMatchObject({ surface: 'A', environment: 'sandbox' });
  });
});
