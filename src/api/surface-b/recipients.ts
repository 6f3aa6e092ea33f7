/** Surface B recipients (spec "Endpoints", Surface B; fields are ours, docs/surface-b.md), over src/core/contacts. */
import { createRoute, z } from '@hono/zod-openapi';
import {
  type ContactRecipient,
  createContactRecipient,
  getContactRecipient,
  getContactRecipientByExternalId,
  getContactRecipientByPhone,
  listContactRecipients,
} from '../../core/contacts';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { COMMON_ERRORS, DateTimeSchema, errorResponses, IdempotencyKeyField, idempotencyKeyFromBody, idParam, jsonContent, listOf, pageQuery } from './schemas';

const RecipientCreateSchema = z
  .object({
    phone: z.string().optional().openapi({ description: 'E.164; give phone and/or email', example: '+525512345678' }),
    email: z.string().optional().openapi({ example: 'ana@example.com' }),
    name: z.string().optional().openapi({ description: 'At most 200 characters', example: 'Ana López' }),
    externalId: z.string().optional().openapi({ description: 'Your identifier; unique per organisation (409 external_id_taken)', example: 'cust_42' }),
    country: z.string().optional().openapi({ description: "ISO 3166-1 alpha-2; defaults to the phone's country and must match it", example: 'MX' }),
    idempotencyKey: IdempotencyKeyField,
  })
  .openapi('RecipientCreate');

const RecipientSchema = z
  .object({
    id: z.string().openapi({ example: 'rcp_01k0000000000000000000000' }),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    name: z.string().nullable(),
    externalId: z.string().nullable(),
    country: z.string().nullable(),
    createdAt: DateTimeSchema,
  })
  .openapi('Recipient');

const RecipientList = listOf(RecipientSchema).openapi('RecipientList');

/** Request body of `POST /recipients`. */
export type RecipientCreateBody = z.infer<typeof RecipientCreateSchema>;
/** Response body of the recipient operations. */
export type RecipientResponse = z.infer<typeof RecipientSchema>;

/** The wire form of a contact recipient. */
export function renderRecipient(r: ContactRecipient): RecipientResponse {
  return { id: r.id, phone: r.phone, email: r.email, name: r.name, externalId: r.externalId, country: r.country, createdAt: r.createdAt.toISOString() };
}

const createRecipientRoute = createRoute({
  operationId: 'createRecipient',
  method: 'post',
  path: '/recipients',
  tags: ['Recipients'],
  summary: 'Save a recipient (a person reached by phone and/or e-mail)',
  middleware: [idempotency('B', { keyFrom: idempotencyKeyFromBody })] as const,
  request: { body: { required: true, content: jsonContent(RecipientCreateSchema) } },
  responses: {
    201: { description: 'The recipient', content: jsonContent(RecipientSchema) },
    ...errorResponses({ 400: 'validation_error, invalid_phone', ...COMMON_ERRORS, 409: 'external_id_taken, idempotency_conflict' }),
  },
});

const getRecipientRoute = createRoute({
  operationId: 'getRecipient',
  method: 'get',
  path: '/recipients/{id}',
  tags: ['Recipients'],
  summary: 'One recipient',
  request: { params: z.object({ id: idParam('id', 'rcp_01k0000000000000000000000') }) },
  responses: { 200: { description: 'The recipient', content: jsonContent(RecipientSchema) }, ...errorResponses({ ...COMMON_ERRORS, 404: 'not_found' }) },
});

const byPhoneRoute = createRoute({
  operationId: 'getRecipientByPhone',
  method: 'get',
  path: '/recipients/by-phone/{phone}',
  tags: ['Recipients'],
  summary: 'The recipient with a phone number (the newest if several)',
  request: { params: z.object({ phone: idParam('phone', '%2B525512345678').openapi({ description: 'E.164, URL-encoded (+ as %2B)' }) }) },
  responses: { 200: { description: 'The recipient', content: jsonContent(RecipientSchema) }, ...errorResponses({ 400: 'invalid_phone', ...COMMON_ERRORS, 404: 'not_found' }) },
});

const byExternalIdRoute = createRoute({
  operationId: 'getRecipientByExternalId',
  method: 'get',
  path: '/recipients/by-external-id/{externalId}',
  tags: ['Recipients'],
  summary: 'The recipient with your externalId',
  request: { params: z.object({ externalId: idParam('externalId', 'cust_42') }) },
  responses: { 200: { description: 'The recipient', content: jsonContent(RecipientSchema) }, ...errorResponses({ ...COMMON_ERRORS, 404: 'not_found' }) },
});

const listRecipientsRoute = createRoute({
  operationId: 'listRecipients',
  method: 'get',
  path: '/recipients',
  tags: ['Recipients'],
  summary: 'List recipients, newest first',
  request: { query: z.object(pageQuery) },
  responses: {
    200: { description: 'A page of recipients', content: jsonContent(RecipientList) },
    ...errorResponses({ 400: 'validation_error (limit, after)', ...COMMON_ERRORS }),
  },
});

/** Registers the Surface B recipient operations. */
export function registerRecipientRoutes(app: SurfaceRouter): void {
  app.openapi(createRecipientRoute, async (c) => {
    const b = c.req.valid('json');
    const r = await createContactRecipient(c.get('core'), c.get('caller'), b);
    return c.json(renderRecipient(r), 201);
  });
  app.openapi(byPhoneRoute, async (c) => {
    const r = await getContactRecipientByPhone(c.get('core'), c.get('caller'), c.req.valid('param').phone);
    return c.json(renderRecipient(r), 200);
  });
  app.openapi(byExternalIdRoute, async (c) => {
    const r = await getContactRecipientByExternalId(c.get('core'), c.get('caller'), c.req.valid('param').externalId);
    return c.json(renderRecipient(r), 200);
  });
  app.openapi(getRecipientRoute, async (c) => {
    const r = await getContactRecipient(c.get('core'), c.get('caller'), c.req.valid('param').id);
    return c.json(renderRecipient(r), 200);
  });
  app.openapi(listRecipientsRoute, async (c) => {
    const q = c.req.valid('query');
    const page = await listContactRecipients(c.get('core'), c.get('caller'), q);
    return c.json({ data: page.data.map(renderRecipient), nextCursor: page.nextCursor }, 200);
  });
}
