/** Surface C recipients (spec "Surface C"; fields beyond id and object: docs/surface-c.md), over src/core/contacts. */
import { createRoute, z } from '@hono/zod-openapi';
import { type ContactRecipient, createContactRecipient, getContactRecipient } from '../../core/contacts';
import { ApiError } from '../../domain/errors';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { AUTH_ERRORS, DateTimeSchema, errorResponses, IDEMPOTENCY_DESCRIPTION, idempotencyHeaders, idParam, jsonContent } from './schemas';

/** Surface C Recipient. */
export const RecipientSchema = z
  .object({
    id: z.string().openapi({ example: 'rcp_01k0000000000000000000000' }),
    object: z.literal('recipient'),
    phone_number: z.string().nullable().openapi({ description: 'E.164', example: '+525512345678' }),
    email: z.string().nullable().openapi({ example: 'ana@example.com' }),
    country: z.string().nullable().openapi({ description: 'ISO 3166-1 alpha-2; the phone number\'s country when not given', example: 'MX' }),
    name: z.string().nullable(),
    external_id: z.string().nullable().openapi({ description: 'Your own identifier, unique per business and environment' }),
    created_at: DateTimeSchema,
  })
  .openapi('Recipient');
/** A Surface C recipient on the wire. */
export type WireRecipient = z.infer<typeof RecipientSchema>;

const CreateRecipientBody = z
  .object({
    phone_number: z.string().optional().openapi({ description: 'E.164 phone number; give phone_number and/or email', example: '+525512345678' }),
    email: z.string().optional().openapi({ description: 'E-mail address; give phone_number and/or email', example: 'ana@example.com' }),
    country: z.string().optional().openapi({ description: 'ISO 3166-1 alpha-2; must match the phone number\'s country', example: 'MX' }),
    name: z.string().optional().openapi({ description: 'Extension: the recipient\'s name (at most 200 characters)' }),
    external_id: z.string().optional().openapi({ description: 'Extension: your own identifier (at most 255 characters, unique)' }),
  })
  .openapi('RecipientCreate');
/** Body of POST /recipients. */
export type CreateRecipientBody = z.infer<typeof CreateRecipientBody>;

/** The wire form of a contact recipient. */
export function renderRecipient(r: ContactRecipient): WireRecipient {
  return {
    id: r.id,
    object: 'recipient',
    phone_number: r.phone,
    email: r.email,
    country: r.country,
    name: r.name,
    external_id: r.externalId,
    created_at: r.createdAt.toISOString(),
  };
}

const PARAMS: Record<string, string> = { phone: 'phone_number', externalId: 'external_id' };

/** Renames the core's contact params to Surface C's (`phone` -> `phone_number`, `externalId` -> `external_id`). */
function renamed<T>(run: () => Promise<T>): Promise<T> {
  return run().catch((e: unknown) => {
    if (e instanceof ApiError && e.param && PARAMS[e.param]) throw new ApiError(e.status, e.code, e.message.replace(/^phone\b/, 'phone_number'), PARAMS[e.param], e.details);
    throw e;
  });
}

const createRecipientRoute = createRoute({
  operationId: 'createRecipient',
  method: 'post',
  path: '/recipients',
  tags: ['Recipients'],
  summary: 'Create a recipient',
  description: 'A person reached by phone number and/or e-mail. Pay them with POST /payouts {recipient_id}.',
  middleware: [idempotency('C')] as const,
  request: {
    headers: idempotencyHeaders(IDEMPOTENCY_DESCRIPTION),
    body: { required: true, content: jsonContent(CreateRecipientBody) },
  },
  responses: {
    201: { description: 'The recipient', content: jsonContent(RecipientSchema) },
    ...errorResponses({
      400: 'validation_error (phone_number missing with email, email, country, name, external_id) or invalid_phone (phone_number not E.164)',
      ...AUTH_ERRORS,
      409: 'idempotency_conflict, or external_id_taken (param external_id)',
    }),
  },
});

const getRecipientRoute = createRoute({
  operationId: 'getRecipient',
  method: 'get',
  path: '/recipients/{id}',
  tags: ['Recipients'],
  summary: 'Retrieve a recipient',
  request: { params: z.object({ id: idParam('id', 'rcp_01k0000000000000000000000') }) },
  responses: {
    200: { description: 'The recipient', content: jsonContent(RecipientSchema) },
    ...errorResponses({ ...AUTH_ERRORS, 404: 'not_found: no such recipient in this business and environment' }),
  },
});

/** Registers POST /recipients and GET /recipients/{id}. */
export function registerRecipientRoutes(app: SurfaceRouter): void {
  app.openapi(createRecipientRoute, async (c) => {
    const body = c.req.valid('json');
    const r = await renamed(() =>
      createContactRecipient(c.get('core'), c.get('caller'), {
        phone: body.phone_number,
        email: body.email,
        country: body.country,
        name: body.name,
        externalId: body.external_id,
      }),
    );
    return c.json(renderRecipient(r), 201);
  });

  app.openapi(getRecipientRoute, async (c) => {
    const r = await getContactRecipient(c.get('core'), c.get('caller'), c.req.valid('param').id);
    return c.json(renderRecipient(r), 200);
  });
}
