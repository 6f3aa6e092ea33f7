/**
 * Surface A API keys (spec "Endpoints": `POST /api-keys`, owner only; "Authentication" 3-5).
 * Parses and renders; src/core/api-keys.ts validates and issues.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { createApiKey } from '../../core/api-keys';
import { idempotency } from '../middleware/idempotency';
import type { AppEnv } from '../types';
import { AUTH_ERRORS, AmountSchema, errorResponses } from './catalog-schemas';
import { newSurfaceARouter } from './index';

const PolicySchema = z
  .object({
    daily_budget: AmountSchema.optional().openapi({ description: 'USDC the key may pay out per UTC day' }),
    per_payout_max: AmountSchema.optional().openapi({ description: 'Largest source amount of one payout, USDC' }),
    channels: z.array(z.string()).optional().openapi({ description: 'Channel ids the key may use', example: ['spei_mxn'] }),
    approval_threshold: AmountSchema.optional().openapi({ description: 'Payouts above this wait for approval, USDC' }),
  })
  .strict()
  .openapi('ApiKeyPolicy', { description: 'Stored and returned; enforcement is not active yet' });

const ApiKeyCreateSchema = z
  .object({
    name: z.string().min(1).max(200).openapi({ example: 'Approver (finance)' }),
    policy: PolicySchema.nullable().optional(),
  })
  .openapi('ApiKeyCreate');

const ApiKeySchema = z
  .object({
    id: z.string().openapi({ example: 'key_01k0000000000000000000000' }),
    object: z.literal('api_key'),
    name: z.string(),
    key: z.string().optional().openapi({
      description:
        'The secret key. Returned once, in the first response only: an idempotent replay (Idempotent-Replayed: true) ' +
        'answers without it and says so in the header Secret-Omitted: key.',
      example: 'sk_test_…',
    }),
    prefix: z.string().openapi({ description: 'Display prefix of the key', example: 'sk_test_Ab12' }),
    role: z.literal('member'),
    policy: PolicySchema.nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('ApiKey');

const createApiKeyRoute = createRoute({
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
    headers: z.object({ 'Idempotency-Key': z.string().optional().openapi({ description: 'Makes a retried request safe' }) }),
    body: { required: true, content: { 'application/json': { schema: ApiKeyCreateSchema } } },
  },
  responses: {
    201: { description: 'The key, with its secret (shown this once)', content: { 'application/json': { schema: ApiKeySchema } } },
    ...errorResponses({
      400: 'validation_error (param name, policy.<field>, policy.channels.<i>)',
      ...AUTH_ERRORS,
      403: 'permission_denied: only the owner key creates keys',
      409: 'idempotency_conflict or idempotency_in_flight',
    }),
  },
});

/** Mounts `POST /api-keys` on the Surface A app (called from routes.ts). */
export function registerApiKeyRoutes(app: OpenAPIHono<AppEnv>): void {
  const router = newSurfaceARouter();
  router.openapi(createApiKeyRoute, async (c) => {
    const body = c.req.valid('json');
    return c.json(await createApiKey(c.get('core'), c.get('caller'), body), 201);
  });
  app.route('/', router);
}
