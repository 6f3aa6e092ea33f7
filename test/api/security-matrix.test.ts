import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { surfaceMounts, type SurfaceMount } from '../../src/api/surfaces';
import type { Environment } from '../../src/db/schema';
import type { Surface } from '../../src/api/types';
import { createHarness, type Harness } from '../helpers/harness';
import { emitLegacyEvent } from '../helpers/legacy-events';
import { newId } from '../../src/domain/ids';

/**
 * The security matrix (spec "Authentication" 1-2, "Errors"; docs/architecture.md), generated from the
 * route table: every operation of every OpenAPI document the service serves (enumerated from the
 * surface registry, src/api/surfaces.ts, so a new surface or route is covered without a new test)
 * is checked for:
 * - no key -> 401; a key of the other environment -> 401;
 * - for each path with a business-owned id: business 2's key with business 1's real ids -> 404,
 *   and business 1's own key with ids of its other environment -> 404; afterwards business 1's
 *   resources are unchanged;
 * - list operations without ids never show business 1's ids to business 2;
 * - every error body in the surface's error shape (its vocabulary's schema).
 * Routes served outside the documents must be public on purpose and are listed by name in
 * PUBLIC_ROUTES; any other undocumented route fails the test.
 *
 * A new surface adds an entry to SURFACE_FIXTURES below: how to create its resources for a
 * business and which resource each path parameter names. A path parameter the entry does not
 * know fails the test with a message saying what to add.
 */

/** Served without an API key on purpose (Hono route paths, with `:param`). */
const PUBLIC_ROUTES: readonly string[] = [
  'GET /health', // liveness and readiness; no tenant data
  'GET /docs', // Swagger UI over the OpenAPI documents
  'GET /docs/init.js', // its configuration: the list of OpenAPI documents
  'GET /docs/assets/:file', // Swagger UI's script, styles and icons (swagger-ui-dist)
  'GET /metrics', // Prometheus metrics, no tenant data (METRICS_TOKEN protects it when set; docs/operations.md)
  'GET /', // redirect to /docs
  'GET /r/:token', // public receipt page: the unguessable token is the credential
  'GET /c/:token', // claim page of a claim-link payout: the token sent to the recipient is the credential
  'POST /c/:token', // the recipient's claim from that page
  'POST /c/:token/start', // the recipient starts the claim flow on that page (Surface B `claimed`)
  'GET /checkout/:token', // Surface B's sandbox card checkout: the token in the checkout URL is the credential
  'POST /checkout/:token', // the payer completes or cancels it there
  'GET /pay/:token', // public payment link page: the unguessable token is the credential
  'GET /pay/:token/:requestToken', // public payment request page (same token, plus the request's)
  'POST /pay/:token/card', // that page's card form: starts a live card checkout (same token; docs/getting-paid.md "Card payments")
  'POST /pay/:token/:requestToken/card', // a request page's card form (same tokens)
  'POST /hooks/partner/:rail', // a payout partner's webhooks: accepted only with the partner's RSA signature (docs/rails.md "Payout partner")
  'POST /hooks/card/:processor', // the card processor's events: accepted only with the processor's signature (docs/getting-paid.md "Card payments")
  'POST /hooks/twilio/status', // Twilio's delivery status callbacks: accepted only with a valid X-Twilio-Signature (docs/notifications.md)
  'POST /hooks/twilio/inbound', // Twilio's inbound messages (STOP/START opt-outs): accepted only with a valid X-Twilio-Signature
  'GET /hooks/whatsapp', // the WhatsApp Cloud API's verification handshake (hub.verify_token)
  'POST /hooks/whatsapp', // WhatsApp status webhooks: accepted only with a valid X-Hub-Signature-256
  ...surfaceMounts().map((m) => `GET ${m.openapiPath}`), // the OpenAPI documents
];

/** A parameter that names something every business sees alike (e.g. a channel of the catalog). */
const SHARED = Symbol('shared');

interface SurfaceFixtures {
  /** Creates business 1's resources in both environments; resource name -> id. */
  create(h: Harness, biz: Biz): Promise<Record<Environment, Record<string, string>>>;
  /** Which resource the path parameter `param` of the path template names, or SHARED. */
  resourceOf(template: string, param: string): string | typeof SHARED;
  /** A valid request body per `METHOD /template`, so validation passes and the 404 is reached. */
  bodies: Record<string, { json?: unknown; csv?: string }>;
}

type Biz = { id: string; sandbox: string; live: string };

const A_ID_SEGMENTS: Record<string, string> = {
  payouts: 'payout',
  recipients: 'recipient',
  webhooks: 'webhook_endpoint',
  disbursements: 'disbursement',
  'virtual-accounts': 'virtual_account',
  deposits: 'deposit',
  'payment-links': 'payment_link',
  'payment-requests': 'payment_request',
  events: 'event',
  'api-keys': 'api_key',
};

const SURFACE_FIXTURES: Partial<Record<Surface, SurfaceFixtures>> = {
  A: {
    async create(h, biz) {
      const out = { live: {}, sandbox: {} } as Record<Environment, Record<string, string>>;
      const ok = async (method: string, path: string, key: string, body: unknown, status: number) => {
        const r = await h.request(method, path, { key, body });
        expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
        return r.body;
      };
      await ok('POST', '/sandbox/v1/sandbox/fund', biz.sandbox, { amount: '1000' }, 200);
      const payout = await ok('POST', '/sandbox/v1/payouts', biz.sandbox, {
        channel: 'service_user_usdc',
        recipient: { type: 'service_user', handle: '@matrix' },
        source_amount: '5.00',
      }, 201);
      const sandboxAccount = await ok('POST', '/sandbox/v1/virtual-accounts', biz.sandbox, { currency: 'USD' }, 201);
      const deposit = await ok('POST', '/sandbox/v1/sandbox/deposits', biz.sandbox, {
        virtual_account_id: sandboxAccount.id,
        amount: '10.00',
        currency: 'USD',
        reference: 'matrix',
        sender_name: 'Matrix Sender',
      }, 201);
      for (const env of ['sandbox', 'live'] as const) {
        const base = env === 'live' ? '/v1' : '/sandbox/v1';
        const key = biz[env];
        const link = await ok('POST', `${base}/payment-links`, key, { name: 'Matrix', methods: ['bank_transfer'] }, 201);
        const request = await ok('POST', `${base}/payment-requests`, key, {
          payment_link_id: link.id,
          amount: '1.00',
          currency: 'USD',
          reference: 'M-1',
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
        }, 201);
        const recipient = await ok('POST', `${base}/recipients`, key, { type: 'phone', phone: { number: '+525512345678' } }, 201);
        const webhook = await ok('POST', `${base}/webhooks`, key, { url: 'https://example.com/hooks', events: ['payout.*'] }, 201);
        const disbursement = await ok('POST', `${base}/disbursements`, key, {
          name: 'Matrix',
          items: [{ channel: 'service_user_usdc', source_amount: '1.00', recipient: { type: 'service_user', handle: '@item' } }],
        }, 201);
        const items = await ok('GET', `${base}/disbursements/${disbursement.id}/items`, key, undefined, 200);
        // An event and a delivery of it to this endpoint (the harness runs no worker: written here).
        const objectId = newId('po');
        const eventId = await h.db.transaction().execute((tx) =>
          emitLegacyEvent(tx, { businessId: biz.id, environment: env, type: 'payout.succeeded', objectType: 'payout', objectId, data: { id: objectId }, dedupeKey: `matrix:${objectId}` }),
        );
        const deliveryId = newId('whd');
        await h.db
          .insertInto('webhook_deliveries')
          .values({ id: deliveryId, business_id: biz.id, environment: env, event_id: eventId!, endpoint_id: webhook.id, status: 'failed', attempt_count: 1, last_status_code: 500, completed_at: new Date() })
          .execute();
        const apiKey = await ok('POST', `${base}/api-keys`, key, { name: 'Matrix member' }, 201);
        out[env] = {
          api_key: apiKey.id,
          // The live environment has no rail, so no live payout can exist: business 1's sandbox
          // payout stands in (another business's id, and another environment's).
          payout: payout.id,
          recipient: recipient.id,
          webhook_endpoint: webhook.id,
          disbursement: disbursement.id,
          disbursement_item: items.data[0].id,
          disbursement_revision: disbursement.revision_id,
          // No live banking partner ships, so no live virtual account can exist: the sandbox one stands in.
          virtual_account: sandboxAccount.id,
          // Deposits arrive only through the sandbox simulator: the sandbox one stands in for live.
          deposit: deposit.id,
          payment_link: link.id,
          payment_request: request.id,
          event: eventId!,
          webhook_delivery: deliveryId,
        };
      }
      return out;
    },
    resourceOf(template, param) {
      if (param === 'channel') return SHARED; // the channel catalog is the same for every business
      if (param === 'item_id') return 'disbursement_item';
      if (param === 'revision_id') return 'disbursement_revision';
      if (param === 'delivery_id') return 'webhook_delivery';
      const segment = template.split('/').find((s) => s in A_ID_SEGMENTS);
      if (param === 'id' && segment) return A_ID_SEGMENTS[segment];
      throw new Error(`security matrix: no fixture for {${param}} of Surface A ${template}; add it to SURFACE_FIXTURES.A`);
    },
    bodies: {
      'PATCH /recipients/{id}': { json: { type: 'phone' } },
      'PATCH /disbursements/{id}/items/{item_id}': { json: { memo: 'x' } },
      'POST /disbursements/{id}/items/import': { csv: 'recipient,amount\n@someone,1.00\n' },
      'POST /sandbox/payouts/{id}/claim': { json: { method: 'bank_transfer' } },
      'PATCH /payment-links/{id}': { json: { published: true } },
      'POST /webhooks/{id}/resend': { json: { created_after: '2026-01-01T00:00:00Z' } },
      'POST /webhooks/{id}/rotate-secret': { json: {} },
    },
  },
  B: {
    async create(h, biz) {
      const out = { live: {}, sandbox: {} } as Record<Environment, Record<string, string>>;
      const ok = async (method: string, path: string, key: string, body: unknown, status: number) => {
        const r = await h.request(method, path, { key, body });
        expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
        return r.body;
      };
      await ok('POST', '/sandbox/claim/v1/sandbox/fund', biz.sandbox, { amountUsd: '100.00' }, 200);
      // No live banking partner: the sandbox funding account stands in on live (as for Surface A).
      const account = await ok('POST', '/sandbox/claim/v1/funding/accounts', biz.sandbox, { currency: 'USD' }, 201);
      const disbursement = await ok('POST', '/sandbox/claim/v1/disbursements', biz.sandbox, { recipientPhone: '+525512345678', amountUsd: '5.00' }, 201);
      for (const env of ['sandbox', 'live'] as const) {
        const base = env === 'live' ? '/claim/v1' : '/sandbox/claim/v1';
        const phone = env === 'live' ? '+525511110001' : '+525511110002';
        const recipient = await ok('POST', `${base}/recipients`, biz[env], { phone, externalId: `matrix-${env}` }, 201);
        // No live claim-link rail: business 1's sandbox disbursement stands in on live (as for Surface A).
        const webhook = await ok('POST', `${base}/webhooks`, biz[env], { url: 'https://example.com/hooks', events: ['*'], secret: 'matrix-secret-long-enough' }, 201);
        const objectId = newId('po');
        const eventId = await h.db.transaction().execute((tx) =>
          emitLegacyEvent(tx, { businessId: biz.id, environment: env, type: 'payout.succeeded', objectType: 'payout', objectId, data: { id: objectId }, dedupeKey: `matrix-b:${objectId}` }),
        );
        // An event Surface B receives (GET /events/{id}); the payout event above is not one (not a claim link).
        const depositId = newId('dep');
        const bEventId = await h.db.transaction().execute((tx) =>
          emitLegacyEvent(tx, { businessId: biz.id, environment: env, type: 'deposit.credited', objectType: 'deposit', objectId: depositId, data: { id: depositId, credited_amount: '1.00' }, dedupeKey: `matrix-b:${depositId}` }),
        );
        const deliveryId = newId('whd');
        await h.db
          .insertInto('webhook_deliveries')
          .values({ id: deliveryId, business_id: biz.id, environment: env, event_id: eventId!, endpoint_id: webhook.id, status: 'failed', attempt_count: 1, last_status_code: 500, completed_at: new Date() })
          .execute();
        out[env] = { disbursement: disbursement.id, funding_account: account.id, recipient: recipient.id, recipient_phone: phone, recipient_external_id: `matrix-${env}`, webhook_endpoint: webhook.id, webhook_delivery: deliveryId, event: bEventId! };
      }
      return out;
    },
    resourceOf(template, param) {
      const segment = template.split('/')[1];
      if (param === 'id' && segment === 'disbursements') return 'disbursement';
      if (param === 'id' && segment === 'funding') return 'funding_account';
      if (param === 'id' && segment === 'recipients') return 'recipient';
      if (param === 'id' && segment === 'webhooks') return 'webhook_endpoint';
      if (param === 'id' && segment === 'events') return 'event';
      if (param === 'deliveryId') return 'webhook_delivery';
      if (param === 'phone') return 'recipient_phone';
      if (param === 'externalId') return 'recipient_external_id';
      throw new Error(`security matrix: no fixture for {${param}} of Surface B ${template}; add it to SURFACE_FIXTURES.B`);
    },
    bodies: {
      'POST /webhooks/{id}/resend': { json: { createdAfter: '2026-01-01T00:00:00Z' } },
      'POST /webhooks/{id}/rotate-secret': { json: { secret: 'matrix-rotated-secret-long' } },
    },
  },
  C: {
    async create(h, biz) {
      const out = { live: {}, sandbox: {} } as Record<Environment, Record<string, string>>;
      const ok = async (method: string, path: string, key: string, body: unknown, status: number) => {
        const r = await h.request(method, path, { key, body });
        expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
        return r.body;
      };
      await ok('POST', '/sandbox/guide/v1/sandbox/fund', biz.sandbox, { amount: '100' }, 200);
      const payout = await ok('POST', '/sandbox/guide/v1/payouts', biz.sandbox, { email: 'matrix@example.com', amount: '5.00', currency: 'USD' }, 201);
      for (const env of ['sandbox', 'live'] as const) {
        const base = env === 'live' ? '/guide/v1' : '/sandbox/guide/v1';
        const recipient = await ok('POST', `${base}/recipients`, biz[env], { phone_number: '+525512345678' }, 201);
        const webhook = await ok('POST', `${base}/webhooks`, biz[env], { url: 'https://example.com/hooks', events: ['payout.*'] }, 201);
        const link = await ok('POST', `${base}/payment-links`, biz[env], { name: 'Matrix', methods: ['bank_transfer'] }, 201);
        // No live claim-link rail: business 1's sandbox payout stands in on live (as for Surface A).
        const objectId = newId('po');
        const eventId = await h.db.transaction().execute((tx) =>
          emitLegacyEvent(tx, { businessId: biz.id, environment: env, type: 'payout.succeeded', objectType: 'payout', objectId, data: { id: objectId }, dedupeKey: `matrix-c:${objectId}` }),
        );
        const deliveryId = newId('whd');
        await h.db
          .insertInto('webhook_deliveries')
          .values({ id: deliveryId, business_id: biz.id, environment: env, event_id: eventId!, endpoint_id: webhook.id, status: 'failed', attempt_count: 1, last_status_code: 500, completed_at: new Date() })
          .execute();
        out[env] = { payout: payout.id, recipient: recipient.id, payment_link: link.id, webhook_endpoint: webhook.id, webhook_delivery: deliveryId, event: eventId! };
      }
      return out;
    },
    resourceOf(template, param) {
      const segment = template.split('/')[1];
      if (param === 'id' && segment === 'payouts') return 'payout';
      if (param === 'id' && segment === 'recipients') return 'recipient';
      if (param === 'id' && segment === 'payment-links') return 'payment_link';
      if (param === 'id' && segment === 'webhooks') return 'webhook_endpoint';
      if (param === 'id' && segment === 'events') return 'event';
      if (param === 'delivery_id') return 'webhook_delivery';
      throw new Error(`security matrix: no fixture for {${param}} of Surface C ${template}; add it to SURFACE_FIXTURES.C`);
    },
    bodies: {
      'POST /webhooks/{id}/resend': { json: { created_after: '2026-01-01T00:00:00Z' } },
      'POST /webhooks/{id}/rotate-secret': { json: {} },
    },
  },
};

interface Operation {
  mount: SurfaceMount;
  method: string;
  /** OpenAPI path template relative to the base, e.g. `/payouts/{id}`. */
  template: string;
  params: string[];
  hasBody: boolean;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: unknown }>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let h: Harness;
let biz1: Biz;
let biz2: Biz;
const operations: Operation[] = [];
let documentOperationCount = 0;
const ids = new Map<Surface, Record<Environment, Record<string, string>>>();
/** Business 1's Surface A resources as read before the matrix ran. */
const before = new Map<{ url: string; key: string }, string>();

/** GET addresses of business 1's Surface A resources (with the key that reads them). */
function ownedResourcePaths(): { url: string; key: string }[] {
  const a = ids.get('A');
  if (!a) return [];
  return surfaceMounts()
    .filter((m) => m.surface === 'A')
    .flatMap((m) => {
      const own = a[m.environment];
      const key = biz1[m.environment];
      return [
        { url: `${m.base}/disbursements/${own.disbursement}`, key },
        { url: `${m.base}/disbursements/${own.disbursement}/items`, key },
        { url: `${m.base}/recipients/${own.recipient}`, key },
        { url: `${m.base}/webhooks`, key },
        { url: `${m.base}/payouts/${own.payout}`, key: biz1.sandbox },
      ].map((p) => (p.url.startsWith('/v1/payouts') ? { url: p.url.replace('/v1/', '/sandbox/v1/'), key: biz1.sandbox } : p));
    });
}

beforeAll(async () => {
  h = await createHarness({ worker: false });
  biz1 = await h.business({ verified: true }); // verified: virtual accounts need it
  biz2 = await h.business();
  for (const mount of surfaceMounts()) {
    const doc = await h.request<OpenApiDocument>('GET', mount.openapiPath);
    expect(doc.status, mount.openapiPath).toBe(200);
    for (const [template, item] of Object.entries(doc.body.paths)) {
      for (const method of Object.keys(item).filter((m) => METHODS.includes(m))) {
        documentOperationCount++;
        const params = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        operations.push({ mount, method: method.toUpperCase(), template, params, hasBody: item[method].requestBody !== undefined });
      }
    }
  }
  for (const surface of new Set(surfaceMounts().map((m) => m.surface))) {
    const fixtures = SURFACE_FIXTURES[surface];
    if (!fixtures) throw new Error(`security matrix: Surface ${surface} has no entry in SURFACE_FIXTURES`);
    ids.set(surface, await fixtures.create(h, biz1));
  }
  for (const path of ownedResourcePaths()) before.set(path, (await h.request('GET', path.url, { key: path.key })).text);
}, 120_000);
afterAll(async () => h?.close());

const label = (op: Operation) => `${op.mount.label} ${op.method} ${op.template}`;
const concretePath = (op: Operation, values: Record<string, string>) =>
  op.mount.base + op.template.replace(/\{([^}]+)\}/g, (_, p: string) => encodeURIComponent(values[p] ?? `${p}_matrix`));

/** Calls `op` with `key` and the body it needs to pass validation. */
function call(op: Operation, path: string, key: string | undefined) {
  const body = SURFACE_FIXTURES[op.mount.surface]?.bodies[`${op.method} ${op.template}`];
  if (body?.csv !== undefined) {
    const form = new FormData();
    form.append('file', new Blob([body.csv], { type: 'text/csv' }), 'items.csv');
    return h.request(op.method, path, { key, form });
  }
  return h.request(op.method, path, { key, body: body?.json ?? (op.hasBody ? {} : undefined) });
}

function expectErrorShape(op: Operation, r: { status: number; body: unknown; text: string }, status: number, what: string) {
  expect(r.status, `${label(op)} ${what}: ${r.text}`).toBe(status);
  const parsed = op.mount.definition.errors.schema.safeParse(r.body);
  expect(parsed.success, `${label(op)} ${what}: error body not in Surface ${op.mount.surface}'s shape: ${r.text}`).toBe(true);
}

/** Business 1's ids of `environment` for the params of `op`, or null when no param is business-owned. */
function ownedIds(op: Operation, environment: Environment): Record<string, string> | null {
  const fixtures = SURFACE_FIXTURES[op.mount.surface]!;
  const values: Record<string, string> = {};
  let owned = false;
  for (const p of op.params) {
    const resource = fixtures.resourceOf(op.template, p);
    if (resource === SHARED) continue;
    const id = ids.get(op.mount.surface)![environment][resource];
    if (!id) throw new Error(`security matrix: ${label(op)}: fixtures created no '${resource}'`);
    values[p] = id;
    owned = true;
  }
  return owned ? values : null;
}

describe('security matrix over every operation of every OpenAPI document', () => {
  it('documents the surfaces of the registry, each with operations', () => {
    expect(operations.length).toBeGreaterThan(0);
    for (const mount of surfaceMounts()) expect(operations.some((op) => op.mount.openapiPath === mount.openapiPath), mount.label).toBe(true);
  });

  it('every served route is documented or listed as public on purpose', () => {
    const documented = new Set(operations.map((op) => `${op.method} ${op.mount.base}${op.template.replace(/\{([^}]+)\}/g, ':$1')}`));
    const served = new Set(h.app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`));
    const undocumented = [...served].filter((r) => !documented.has(r) && !PUBLIC_ROUTES.includes(r));
    expect(undocumented).toEqual([]);
    for (const r of PUBLIC_ROUTES) expect(served.has(r), `${r} is listed as public but not served`).toBe(true);
  });

  it('public routes answer without a key', async () => {
    for (const r of PUBLIC_ROUTES.filter((x) => x.startsWith('GET '))) {
      const res = await h.request('GET', r.slice(4).replace(/:(\w+)/g, 'matrix_$1'));
      expect(res.status, r).not.toBe(401);
    }
  });

  it('401 without a key and with a key of the other environment; 404 for another business\'s ids; error bodies in the surface shape', async () => {
    let covered = 0;
    let idChecks = 0;
    for (const op of operations) {
      const env = op.mount.environment;
      const other: Environment = env === 'live' ? 'sandbox' : 'live';
      const own = ownedIds(op, env);
      const path = concretePath(op, own ?? {});

      expectErrorShape(op, await call(op, path, undefined), 401, 'without a key');
      expectErrorShape(op, await call(op, path, biz1[other]), 401, `with a ${other} key`);
      const bogus = await call(op, path, `${biz1[env].slice(0, 8)}not_a_real_key`);
      expectErrorShape(op, bogus, 401, 'with an unknown key');

      if (own) {
        expectErrorShape(op, await call(op, path, biz2[env]), 404, "with another business's ids");
        const otherEnvIds = ownedIds(op, other)!;
        if (Object.keys(otherEnvIds).some((p) => otherEnvIds[p] !== own[p])) {
          expectErrorShape(op, await call(op, concretePath(op, otherEnvIds), biz1[env]), 404, `with ids of the ${other} environment`);
        }
        idChecks++;
      } else if (op.method === 'GET') {
        const r = await call(op, path, biz2[env]);
        const leaked = Object.values(ids.get(op.mount.surface)![env]).filter((id) => r.text.includes(id));
        expect(leaked, `${label(op)} shows business 1's ids to business 2`).toEqual([]);
      }
      covered++;
    }
    console.log(
      `security matrix: ${covered} operations covered (${idChecks} with business-owned ids) of ${documentOperationCount} in ` +
        `${surfaceMounts().length} OpenAPI documents`,
    );
    expect(covered).toBe(documentOperationCount);
  }, 300_000);

  it("business 1's resources are unchanged by business 2's calls", async () => {
    expect(before.size).toBeGreaterThan(0);
    for (const [path, text] of before) {
      const now = await h.request('GET', path.url, { key: path.key });
      expect([now.status, now.text], path.url).toEqual([200, text]);
    }
  });
});
