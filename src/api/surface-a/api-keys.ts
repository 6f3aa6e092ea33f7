/** Surface A API keys (spec "Authentication" 3-5; docs/api-keys.md), over src/core/api-keys.ts. */
import { createRoute, z } from '@hono/zod-openapi';
import { createApiKey, listApiKeys, revokeApiKey, rollApiKey } from '../../core/api-keys';
import type { ApiKeyPolicy, CreatedApiKey } from '../../domain/api-keys';
import { renderApiKey } from '../../wire/surface-a/api-keys';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import {
  AUTH_ERRORS,
  AmountInputSchema,
  DateTimeSchema,
  errorResponses,
  idempotencyHeaders,
  idParam,
  jsonContent,
  listEnvelope,
  pageQuery,
} from './schemas';

const PolicySchema = z
  .object({
    daily_budget: AmountInputSchema.optional().openapi({ description: 'USDC the key may pay out per UTC day' }),
    per_payout_max: AmountInputSchema.optional().openapi({ description: 'Largest source amount of one payout, USDC' }),
    channels: z.array(z.string()).optional().openapi({ description: 'Channel ids the key may use', example: ['spei_mxn'] }),
    approval_threshold: AmountInputSchema.optional().openapi({ description: 'Payouts above this wait for approval, USDC' }),
  })
  .strict()
  .openapi('ApiKeyPolicy', { description: 'Stored and returned; enforcement is not active yet' });

const ApiKeyCreateSchema = z
  .object({
    name: z.string().min(1).max(200).openapi({ example: 'Approver (finance)' }),
    policy: PolicySchema.nullable().optional(),
  })
  .openapi('ApiKeyCreate');

const ApiKeyFields = {
  id: z.string().openapi({ example: 'key_01k0000000000000000000000' }),
  object: z.literal('api_key'),
  name: z.string(),
  prefix: z.string().openapi({ description: 'First 12 characters of the key, for display', example: 'sk_test_Ab12' }),
  last4: z
    .string()
    .nullable()
    .openapi({ description: 'Last four characters of the key, for display; null for keys issued before they were recorded', example: 'x9Qz' }),
  role: z.enum(['owner', 'member']).openapi({ description: 'owner: may also create, revoke and roll keys' }),
  policy: PolicySchema.nullable(),
  created_at: DateTimeSchema,
  last_used_at: DateTimeSchema.nullable().openapi({ description: 'Last authenticated request (recorded at most once a minute per key)' }),
  expires_at: DateTimeSchema.nullable().openapi({ description: 'When a rolled key stops working (then 401 api_key_expired); null: no expiry' }),
  revoked_at: DateTimeSchema.nullable().openapi({ description: 'When the key was revoked (then 401 api_key_revoked); null: not revoked' }),
};

const ApiKeySchema = z
  .object(ApiKeyFields)
  .openapi('ApiKey', { description: 'An API key without its secret: only its prefix and last four characters are ever shown again' });

const CreatedApiKeySchema = z
  .object({
    ...ApiKeyFields,
    key: z.string().optional().openapi({
      description:
        'The secret key. Returned once, in the first response only: an idempotent replay (Idempotent-Replayed: true) ' +
        'answers without it and says so in the header Secret-Omitted: key.',
      example: 'sk_test_…',
    }),
  })
  .openapi('CreatedApiKey');

const ApiKeyListSchema = listEnvelope(ApiKeySchema).openapi('ApiKeyList');

const RollApiKeySchema = z
  .object({
    expires_in: z.string().nullable().optional().openapi({
      description: 'How long the old key keeps working, an ISO 8601 duration of at most P7D; omitted or null: the old key is revoked now',
      example: 'PT24H',
    }),
  })
  .strict()
  .openapi('ApiKeyRoll');

const keyIdParams = z.object({ id: idParam('id', 'key_01k0000000000000000000000') });

const createApiKeyRoute = createRoute({
  operationId: 'createApiKey',
  method: 'post',
  path: '/api-keys',
  tags: ['API keys'],
  summary: 'Create an API key (owner only)',
  description:
    'Issues a member key of the same business and environment. A member key can do everything except create keys; ' +
    'on batches, the key that submits a disbursement can never approve it, so a second key is the approver. ' +
    'Send an Idempotency-Key: a retry then never mints a second key (the replay answers without the key).',
  middleware: [idempotency('A', { secretFields: ['key'] })] as const,
  request: {
    headers: idempotencyHeaders('Makes a retried request safe: a retry never mints a second key'),
    body: { required: true, content: jsonContent(ApiKeyCreateSchema) },
  },
  responses: {
    201: { description: 'The key, with its secret (shown this once)', content: jsonContent(CreatedApiKeySchema) },
    ...errorResponses({
      400: 'validation_error (param name, policy.<field>, policy.channels.<i>)',
      ...AUTH_ERRORS,
      403: 'permission_denied: only the owner key creates keys',
      409: 'idempotency_conflict or idempotency_in_flight',
    }),
  },
});

const listApiKeysRoute = createRoute({
  operationId: 'listApiKeys',
  method: 'get',
  path: '/api-keys',
  tags: ['API keys'],
  summary: 'List API keys',
  description:
    'Every key of the business in this environment, revoked and expired ones included, newest first. ' +
    'Never the secret: each key shows its prefix and last four characters.',
  request: { query: z.object(pageQuery) },
  responses: {
    200: { description: 'List envelope', content: jsonContent(ApiKeyListSchema) },
    ...errorResponses({ 400: 'validation_error (limit, cursor)', ...AUTH_ERRORS }),
  },
});

const revokeApiKeyRoute = createRoute({
  operationId: 'revokeApiKey',
  method: 'delete',
  path: '/api-keys/{id}',
  tags: ['API keys'],
  summary: 'Revoke an API key (owner only)',
  description:
    'The key stops working at once: the next request with it, on any API process, is 401 api_key_revoked. ' +
    'Revoking a revoked key returns it unchanged. The last owner key of the business cannot be revoked (roll it instead).',
  request: { params: keyIdParams },
  responses: {
    200: { description: 'The revoked key', content: jsonContent(ApiKeySchema) },
    ...errorResponses({
      ...AUTH_ERRORS,
      403: 'permission_denied: only the owner key revokes keys',
      404: 'not_found (param id): no such key in this business and environment',
      409: 'last_owner_key (param id): the last owner key that stays cannot be revoked',
    }),
  },
});

const rollApiKeyRoute = createRoute({
  operationId: 'rollApiKey',
  method: 'post',
  path: '/api-keys/{id}/roll',
  tags: ['API keys'],
  summary: 'Roll an API key (owner only)',
  description:
    'Issues a replacement with the same name, role and policy (its secret shown this once). The old key keeps working for ' +
    'expires_in (at most P7D), then answers 401 api_key_expired; without expires_in it is revoked now. ' +
    'Send an Idempotency-Key: a retry then never mints a second replacement.',
  middleware: [idempotency('A', { secretFields: ['key'] })] as const,
  request: {
    headers: idempotencyHeaders('Makes a retried request safe: a retry never mints a second replacement'),
    params: keyIdParams,
    body: { required: false, content: jsonContent(RollApiKeySchema) },
  },
  responses: {
    201: { description: 'The replacement key, with its secret (shown this once)', content: jsonContent(CreatedApiKeySchema) },
    ...errorResponses({
      400: 'validation_error (param expires_in)',
      ...AUTH_ERRORS,
      403: 'permission_denied: only the owner key rolls keys',
      404: 'not_found (param id): no such key in this business and environment',
      409: 'api_key_inactive (param id): the key is revoked, expired or already rolled; idempotency_conflict or idempotency_in_flight',
    }),
  },
});

/** Request body of `POST /api-keys`. */
export type ApiKeyCreateBody = z.infer<typeof ApiKeyCreateSchema>;
/** Response body of `POST /api-keys` and `POST /api-keys/{id}/roll` (the secret `key` is shown this once). */
export type ApiKeyResponse = z.infer<typeof CreatedApiKeySchema>;
/** A key without its secret, as in `GET /api-keys` and `DELETE /api-keys/{id}`. */
export type ApiKeyRecordResponse = z.infer<typeof ApiKeySchema>;
/** Response body of `GET /api-keys`. */
export type ApiKeyListResponse = z.infer<typeof ApiKeyListSchema>;
/** Request body of `POST /api-keys/{id}/roll`. */
export type ApiKeyRollBody = z.infer<typeof RollApiKeySchema>;

type PolicyBody = z.infer<typeof PolicySchema>;

function policyInput(p: PolicyBody | null | undefined): ApiKeyPolicy | null | undefined {
  if (!p) return p;
  return { dailyBudget: p.daily_budget, perPayoutMax: p.per_payout_max, channels: p.channels, approvalThreshold: p.approval_threshold };
}

const renderCreatedApiKey = (k: CreatedApiKey) => ({ ...renderApiKey(k), key: k.key });

/** Registers `POST /api-keys`, `GET /api-keys`, `DELETE /api-keys/{id}` and `POST /api-keys/{id}/roll` on the Surface A app. */
export function registerApiKeyRoutes(app: SurfaceRouter): void {
  app.openapi(createApiKeyRoute, async (c) => {
    const body = c.req.valid('json');
    return c.json(renderCreatedApiKey(await createApiKey(c.get('core'), c.get('caller'), { name: body.name, policy: policyInput(body.policy) })), 201);
  });
  app.openapi(listApiKeysRoute, async (c) => {
    const page = await listApiKeys(c.get('core'), c.get('caller'), c.req.valid('query'));
    return c.json({ data: page.data.map(renderApiKey), next_cursor: page.nextCursor }, 200);
  });
  app.openapi(revokeApiKeyRoute, async (c) => c.json(renderApiKey(await revokeApiKey(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200));
  app.openapi(rollApiKeyRoute, async (c) => {
    const body = c.req.header('Content-Type')?.includes('json') ? c.req.valid('json') : {};
    const key = await rollApiKey(c.get('core'), c.get('caller'), c.req.valid('param').id, { expiresIn: body?.expires_in });
    return c.json(renderCreatedApiKey(key), 201);
  });
}
