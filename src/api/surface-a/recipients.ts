/** Surface A saved recipients (spec "Recipient", "Receivability"); src/core/recipients.ts validates and stores. */
import { createRoute, z } from '@hono/zod-openapi';
import {
  checkRecipient,
  createRecipient,
  deleteRecipient,
  getRecipient,
  listRecipients,
  type RecipientRecord,
  updateRecipient,
} from '../../core/recipients';
import type { Core } from '../../core/context';
import { type RecipientScreeningStatus, recipientScreenings } from '../../core/screening/recipient-screening';
import { RECIPIENT_TYPES, type RecipientType } from '../../domain/channels';
import { validationError } from '../../domain/errors';
import { maskRecipientDetails } from '../../domain/recipients';
import { renderReceivability, renderRecipientObject } from '../../wire/surface-a/recipients';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import {
  AUTH_ERRORS,
  CountrySchema,
  CurrencySchema,
  DateTimeSchema,
  errorResponses,
  idempotencyHeaders,
  idParam,
  jsonContent as json,
  listEnvelope,
  pageQuery,
  RecipientTypeSchema,
} from './schemas';

const str = (description?: string) => z.string().optional().openapi(description ? { description } : {});

/** The type objects of spec "Recipient", all fields optional on input (missing ones make status needs_fields). */
const typeObjects = {
  bank_account: z
    .record(z.string(), z.unknown())
    .optional()
    .openapi('RecipientBankAccount', {
      description: 'Free-form: the fields of GET /channels/{channel}/requirements for the corridor (country / currency)',
      example: { holder_name: 'Ana López', clabe: '002010077777777771', recipient_kind: 'individual' },
    }),
  pagomovil: z
    .strictObject({
      phone_number: str('E.164, +58…'),
      bank_code: str('Four-digit bank code'),
      national_id: str('Cédula or RIF, e.g. V12345678'),
      holder_name: str(),
      date_of_birth: str('YYYY-MM-DD'),
    })
    .optional()
    .openapi('RecipientPagoMovil'),
  wallet: z
    .strictObject({ network: str('stellar'), address: str('Stellar account id (G…)') })
    .optional()
    .openapi('RecipientWallet'),
  phone: z.strictObject({ number: str('E.164, e.g. +525512345678') }).optional().openapi('RecipientPhone'),
  email: z.strictObject({ address: str('E-mail address') }).optional().openapi('RecipientEmail'),
  service_user: z.strictObject({ handle: str('Handle of a user of the service, e.g. @maria') }).optional().openapi('RecipientServiceUser'),
};

const KindSchema = z.enum(['individual', 'business']);
const NAME_MAX = 200;
const EXTERNAL_ID_MAX = 255;

const RecipientCreateSchema = z
  .strictObject({
    type: RecipientTypeSchema,
    country: CountrySchema.optional().openapi({ description: 'ISO 3166-1 alpha-2; chooses the bank corridor' }),
    currency: CurrencySchema.optional().openapi({ description: 'Payout currency; chooses the bank corridor' }),
    name: z.string().max(NAME_MAX).optional(),
    kind: KindSchema.optional(),
    external_id: z.string().max(EXTERNAL_ID_MAX).optional().openapi({ description: "The caller's own identifier" }),
    ...typeObjects,
  })
  .openapi('RecipientCreate', { description: 'Exactly one type object: the one named by type' });

const RecipientUpdateSchema = z
  .strictObject({
    type: RecipientTypeSchema,
    country: CountrySchema.nullable().optional().openapi({ description: 'null clears it' }),
    currency: CurrencySchema.nullable().optional().openapi({ description: 'null clears it' }),
    name: z.string().max(NAME_MAX).nullable().optional(),
    kind: KindSchema.nullable().optional(),
    external_id: z.string().max(EXTERNAL_ID_MAX).nullable().optional(),
    ...typeObjects,
  })
  .openapi('RecipientUpdate', {
    description:
      'type is required. A type object, when given, replaces the stored one (send full values, not masked ones); ' +
      'left out, the stored one is kept. Changing type needs the new type object. null clears an optional field.',
  });

/** Spec "Recipient" response (one masked type object, the one named by type). */
export const RecipientSchema = z
  .object({
    id: z.string().openapi({ example: 'rcp_01k0000000000000000000000' }),
    object: z.literal('recipient'),
    type: RecipientTypeSchema,
    country: z.string().nullable(),
    currency: z.string().nullable(),
    name: z.string().nullable(),
    kind: KindSchema.nullable(),
    external_id: z.string().nullable(),
    bank_account: z.record(z.string(), z.unknown()).optional().openapi({ description: 'Masked: account numbers show their last four characters' }),
    pagomovil: z.record(z.string(), z.unknown()).optional().openapi({ description: 'Masked: phone_number last four, national_id and date_of_birth last two' }),
    wallet: z.record(z.string(), z.unknown()).optional(),
    phone: z.record(z.string(), z.unknown()).optional(),
    email: z.record(z.string(), z.unknown()).optional(),
    service_user: z.record(z.string(), z.unknown()).optional(),
    status: z.enum(['ready', 'needs_fields']),
    missing_fields: z.array(z.string()),
    channels: z.array(z.string()).openapi({ description: 'Channels the recipient can be paid on' }),
    created_at: DateTimeSchema,
    screening: z
      .object({
        status: z.enum(['clear', 'potential_match', 'confirmed_match', 'unavailable']),
        screened_at: DateTimeSchema,
      })
      .nullable()
      .openapi('RecipientScreening', {
        description:
          'The last sanctions screening of the recipient (on create, on a change of its name or identity, and after a list change); null when never screened (no name). ' +
          'A confirmed match is refused on create and update; payouts to the recipient are screened again when they are made.',
      }),
  })
  .openapi('Recipient');

/** Spec "Receivability". */
export const ReceivabilitySchema = z
  .object({
    receivable: z.boolean(),
    country: z.string().nullable().openapi({ description: 'From the phone number; null for an e-mail', example: 'MX' }),
    methods: z.array(z.string()).openapi({ example: ['spei_bank', 'service_wallet'] }),
    kyc_required_for: z.array(z.string()).openapi({ description: 'Subset of methods', example: ['spei_bank'] }),
  })
  .openapi('Receivability');

/** The wire Recipient: fields in spec order, the type object masked (spec "Recipient"; the core's event shape without `updated_at`), then its last screening. */
export function renderRecipient(r: RecipientRecord, screening: RecipientScreeningStatus | null = null): RecipientResponse {
  const { updated_at: _updatedAt, ...wire } = renderRecipientObject({ ...r, details: maskRecipientDetails(r.type, r.details) });
  return { ...wire, screening: screening && { status: screening.outcome, screened_at: screening.screenedAt.toISOString() } } as RecipientResponse;
}

/** {@link renderRecipient} of each of `records` with its last screening (one query). */
async function renderRecipients(core: Core, records: RecipientRecord[]): Promise<RecipientResponse[]> {
  const screenings = await recipientScreenings(core.db, records.map((r) => r.id));
  return records.map((r) => renderRecipient(r, screenings.get(r.id) ?? null));
}

type TypeObjectBody = { type: RecipientType } & Partial<Record<RecipientType, Record<string, unknown> | undefined>>;

/**
 * The type object of a body (spec "Recipient": exactly one type, whose object is named by it).
 * Another type's object is 400 validation_error naming it; the named object missing is 400 naming
 * it when `required`, else undefined.
 */
function typeObjectOf(body: TypeObjectBody, required: boolean): Record<string, unknown> | undefined {
  for (const t of RECIPIENT_TYPES) {
    if (t !== body.type && body[t] !== undefined) {
      throw validationError(t, `A ${body.type} recipient takes only the ${body.type} object, not ${t}`);
    }
  }
  const details = body[body.type];
  if (details === undefined && required) {
    throw validationError(body.type, `${body.type} is required for a recipient of type ${body.type}`);
  }
  return details;
}

const IdParams = z.object({ id: idParam('id', 'rcp_01k0000000000000000000000') });

const RecipientListSchema = listEnvelope(RecipientSchema);

const RecipientCheckQuerySchema = z.object({
  type: z.enum(['phone', 'email']),
  number: z.string().optional().openapi({ description: 'E.164 phone number (type phone)', example: '+525512345678' }),
  address: z.string().optional().openapi({ description: 'E-mail address (type email)' }),
});

/** Request body of `POST /recipients`. */
export type RecipientCreateBody = z.infer<typeof RecipientCreateSchema>;
/** Request body of `PATCH /recipients/{id}`. */
export type RecipientUpdateBody = z.infer<typeof RecipientUpdateSchema>;
/** Response body of `POST /recipients`, `GET|PATCH /recipients/{id}` (spec "Recipient"). */
export type RecipientResponse = z.infer<typeof RecipientSchema>;
/** Response body of `GET /recipients`. */
export type RecipientListResponse = z.infer<typeof RecipientListSchema>;
/** Query of `GET /recipients/check`. */
export type RecipientCheckQuery = z.infer<typeof RecipientCheckQuerySchema>;
/** Response body of `GET /recipients/check` (spec "Receivability"). */
export type ReceivabilityResponse = z.infer<typeof ReceivabilitySchema>;

const createRecipientRoute = createRoute({
  operationId: 'createRecipient',
  method: 'post',
  path: '/recipients',
  tags: ['Recipients'],
  summary: 'Save a recipient',
  description:
    'Saves a destination with exactly one type. Missing corridor fields give status needs_fields with missing_fields; ' +
    'a present but invalid field is 400 naming it (e.g. bank_account.clabe). Accepts Idempotency-Key.',
  middleware: [idempotency('A')] as const,
  request: {
    headers: idempotencyHeaders('Replays return the first response'),
    body: { required: true, content: json(RecipientCreateSchema) },
  },
  responses: {
    201: { description: 'The recipient', content: json(RecipientSchema) },
    ...errorResponses({
      400: 'validation_error naming the field',
      ...AUTH_ERRORS,
      409: 'idempotency_conflict: the key was used with another body',
      422: 'recipient_not_ready: no corridor for the bank account (param country)',
    }),
  },
});

const listRecipientsRoute = createRoute({
  operationId: 'listRecipients',
  method: 'get',
  path: '/recipients',
  tags: ['Recipients'],
  summary: 'List recipients',
  description: 'Newest first. Filters: type, country, external_id (extension).',
  request: {
    query: z.object({
      type: RecipientTypeSchema.optional(),
      country: CountrySchema.optional(),
      external_id: z.string().optional().openapi({ description: 'Extension: the caller identifier given on create' }),
      ...pageQuery,
    }),
  },
  responses: {
    200: {
      description: 'A page of recipients',
      content: json(RecipientListSchema),
    },
    ...errorResponses({ 400: 'Invalid filter, limit or cursor', ...AUTH_ERRORS }),
  },
});

const checkRoute = createRoute({
  operationId: 'checkRecipient',
  method: 'get',
  path: '/recipients/check',
  tags: ['Recipients'],
  summary: 'Check whether a phone number or e-mail can receive',
  request: {
    query: RecipientCheckQuerySchema,
  },
  responses: {
    200: { description: 'How the recipient can be paid', content: json(ReceivabilitySchema) },
    ...errorResponses({ 400: 'validation_error (param type, number or address)', ...AUTH_ERRORS }),
  },
});

const getRecipientRoute = createRoute({
  operationId: 'getRecipient',
  method: 'get',
  path: '/recipients/{id}',
  tags: ['Recipients'],
  summary: 'Get a recipient',
  request: { params: IdParams },
  responses: {
    200: { description: 'The recipient', content: json(RecipientSchema) },
    ...errorResponses({ ...AUTH_ERRORS, 404: 'No such recipient in this business and environment' }),
  },
});

const updateRecipientRoute = createRoute({
  operationId: 'updateRecipient',
  method: 'patch',
  path: '/recipients/{id}',
  tags: ['Recipients'],
  summary: 'Update a recipient',
  request: { params: IdParams, body: { required: true, content: json(RecipientUpdateSchema) } },
  responses: {
    200: { description: 'The recipient', content: json(RecipientSchema) },
    ...errorResponses({
      400: 'validation_error naming the field',
      ...AUTH_ERRORS,
      404: 'No such recipient in this business and environment',
      409: 'external_id_taken: the recipient was made on Surface B or C, and another of those recipients has this external_id',
      422: 'recipient_not_ready: no corridor for the bank account',
    }),
  },
});

const deleteRecipientRoute = createRoute({
  operationId: 'deleteRecipient',
  method: 'delete',
  path: '/recipients/{id}',
  tags: ['Recipients'],
  summary: 'Delete a recipient',
  request: { params: IdParams },
  responses: {
    204: { description: 'Deleted' },
    ...errorResponses({ ...AUTH_ERRORS, 404: 'No such recipient in this business and environment' }),
  },
});

/**
 * Registers the recipient routes on a Surface A router; `/recipients/check` before
 * `/recipients/{id}` so "check" is not taken for an id.
 */
export function registerRecipientRoutes(app: SurfaceRouter): void {
  app.openapi(createRecipientRoute, async (c) => {
    const body = c.req.valid('json');
    const details = typeObjectOf(body, true) as Record<string, unknown>;
    const r = await createRecipient(c.get('core'), c.get('caller'), {
      type: body.type,
      country: body.country,
      currency: body.currency,
      name: body.name,
      kind: body.kind,
      externalId: body.external_id,
      details,
    });
    return c.json((await renderRecipients(c.get('core'), [r]))[0]!, 201);
  });

  app.openapi(listRecipientsRoute, async (c) => {
    const q = c.req.valid('query');
    const page = await listRecipients(c.get('core'), c.get('caller'), {
      type: q.type,
      country: q.country,
      externalId: q.external_id,
      limit: q.limit,
      cursor: q.cursor,
    });
    return c.json({ data: await renderRecipients(c.get('core'), page.data), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(checkRoute, (c) => {
    const q = c.req.valid('query');
    return c.json(renderReceivability(checkRecipient(c.get('core'), c.get('caller'), q)), 200);
  });

  app.openapi(getRecipientRoute, async (c) => {
    const { id } = c.req.valid('param');
    return c.json((await renderRecipients(c.get('core'), [await getRecipient(c.get('core'), c.get('caller'), id)]))[0]!, 200);
  });

  app.openapi(updateRecipientRoute, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const r = await updateRecipient(c.get('core'), c.get('caller'), id, {
      type: body.type,
      country: body.country,
      currency: body.currency,
      name: body.name,
      kind: body.kind,
      externalId: body.external_id,
      details: typeObjectOf(body, false),
    });
    return c.json((await renderRecipients(c.get('core'), [r]))[0]!, 200);
  });

  app.openapi(deleteRecipientRoute, async (c) => {
    const { id } = c.req.valid('param');
    await deleteRecipient(c.get('core'), c.get('caller'), id);
    return c.body(null, 204);
  });
}
