/**
 * Surface A API keys (spec "Endpoints": `POST /api-keys`, owner only; "Authentication" 3-5).
 * Parses and renders; src/core/api-keys.ts validates and issues.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { createApiKey } from '../../core/api-keys';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { AUTH_ERRORS, AmountInputSchema, DateTimeSchema, errorResponses, idempotencyHeaders, jsonContent } from './schemas';

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
    created_at: DateTimeSchema,
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
    headers: idempotencyHeaders('Makes a retried request safe: a retry never mints a second key'),
    body: { required: true, content: jsonContent(ApiKeyCreateSchema) },
  },
  responses: {
    201: { description: 'The key, with its secret (shown this once)', content: jsonContent(ApiKeySchema) },
    ...errorResponses({
      400: 'validation_error (param name, policy.<field>, policy.channels.<i>)',
      ...AUTH_ERRORS,
      403: 'permission_denied: only the owner key creates keys',
      409: 'idempotency_conflict or idempotency_in_flight',
    }),
  },
});

/** Request body of `POST /api-keys`. */
export type ApiKeyCreateBody = z.infer<typeof ApiKeyCreateSchema>;
/** Response body of `POST /api-keys` (the secret `key` is shown this once). */
export type ApiKeyResponse = z.infer<typeof ApiKeySchema>;

/** Registers `POST /api-keys` on the Surface A app. */
export function registerApiKeyRoutes(app: SurfaceRouter): void {
  app.openapi(createApiKeyRoute, async (c) => {
    const body = c.req.valid('json');
    return c.json(await createApiKey(c.get('core'), c.get('caller'), body), 201);
  });
}
