/**
 * Surface A batch disbursements (spec "Disbursement (Surface A)", "CSV formats", Surface A
 * `/disbursements*`; docs/disbursements.md). Parses and renders; src/core/disbursements.ts
 * reviews, stores, approves, launches and reports; workflows/disbursement.ts runs the batch.
 */
import { createRoute, z } from '@hono/zod-openapi';
import {
  approveDisbursement,
  createDisbursement,
  EXPORT_COLUMNS,
  exportResultsCsv,
  getDisbursement,
  importItems,
  launchDisbursement,
  listItems,
  MAX_CSV_BYTES,
  MAX_ITEMS,
  pauseDisbursement,
  rejectDisbursement,
  resumeDisbursement,
  retryFailedItems,
  submitForApproval,
  updateItem,
} from '../../core/disbursements';
import { DISBURSEMENT_ITEM_STATUSES, DISBURSEMENT_STATUSES } from '../../domain/disbursement-state';
import type { DisbursementItemInput, DisbursementItemPatch } from '../../domain/disbursements';
import { validationError } from '../../domain/errors';
import { renderDisbursement, renderDisbursementItem } from '../../wire/surface-a/disbursements';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { AUTH_ERRORS, AmountSchema, DateTimeSchema, errorResponses, feesObject, idempotencyHeaders, idParam as pathId, listEnvelope, pageQuery } from './schemas';

const TAG = 'Disbursements';
const idParam = pathId('id', 'dsb_01k0000000000000000000000');
const itemIdParam = pathId('item_id', 'dsi_01k0000000000000000000000');
const revisionParam = pathId('revision_id', 'rev_01k0000000000000000000000');

const ReviewReasonSchema = z
  .object({ code: z.string().openapi({ example: 'recipient_not_ready' }), message: z.string(), param: z.string().nullable() })
  .openapi('ReviewReason', { description: 'Why an item needs review: the error a payout with these fields would get' });

const FeesSchema = feesObject();

/**
 * An item as given. Fields are checked by the review, not by the request schema: a bad value makes
 * the item needs_review with a reason, never the whole request fail (spec rule 1).
 */
const ItemInputSchema = z
  .looseObject({
    channel: z.unknown().optional().openapi({ type: 'string', description: 'Channel id (required)', example: 'spei_mxn' }),
    source_amount: z.unknown().optional().openapi({ type: 'string', description: 'USDC Amount (required)', example: '100.00' }),
    recipient_id: z.unknown().optional().openapi({ type: 'string', description: 'Saved recipient; or give recipient' }),
    recipient: z.unknown().optional().openapi({ type: 'object', description: 'InlineRecipient; or give recipient_id' }),
    reference: z.unknown().optional().openapi({ type: 'string', description: 'At most 140 characters' }),
    memo: z.unknown().optional().openapi({ type: 'string' }),
  })
  .openapi('DisbursementItemInput');

const DisbursementSchema = z
  .object({
    id: z.string().openapi({ example: 'dsb_01k0000000000000000000000' }),
    object: z.literal('disbursement'),
    name: z.string(),
    status: z.enum(DISBURSEMENT_STATUSES).openapi({ description: 'See the transition table in docs/disbursements.md' }),
    revision_id: z.string().openapi({ description: 'Current execution version; changes with every money-critical edit' }),
    summary: z.object({
      item_count: z.number().int(),
      ready: z.number().int().openapi({ description: 'Items that passed review' }),
      needs_review: z.number().int(),
      total_source_amount: AmountSchema,
      total_fees: AmountSchema,
      by_type: z.record(z.string(), z.number().int()).openapi({ description: 'Recipient type -> item count' }),
      warnings: z.array(z.object({ code: z.literal('duplicate_recipient'), item_ids: z.array(z.string()) })),
    }),
    balance_check: z
      .object({ required: AmountSchema, available: AmountSchema, ok: z.boolean() })
      .openapi({ description: 'Before launch: what launch holds (items debit totals). Once launched: what retry-failed would hold.' }),
    approval: z.object({
      required: z.number().int().openapi({ description: "The business's approvals_required (default 1)" }),
      received: z.number().int().openapi({ description: 'Distinct keys that approved the current revision' }),
      revision_id: z.string().nullable(),
      submitted_by: z.string().nullable().openapi({ description: 'Key id of the submitter (it cannot approve)' }),
      approved: z.boolean(),
    }),
    progress: z
      .object({
        pending: z.number().int(),
        processing: z.number().int(),
        succeeded: z.number().int(),
        failed: z.number().int(),
        refunded: z.number().int(),
      })
      .nullable()
      .openapi({ description: 'Item counts once launched; null before' }),
    rejection: z.object({ reason: z.string().nullable(), rejected_at: z.string() }).nullable(),
    created_at: DateTimeSchema,
    submitted_at: z.string().nullable(),
    launched_at: z.string().nullable(),
    completed_at: z.string().nullable(),
  })
  .openapi('Disbursement');

const ItemSchema = z
  .object({
    id: z.string().openapi({ example: 'dsi_01k0000000000000000000000' }),
    object: z.literal('disbursement_item'),
    disbursement_id: z.string(),
    seq: z.number().int().openapi({ description: '1-based position in the batch' }),
    row_number: z.number().int().nullable().openapi({ description: 'CSV line (header = 1) of an imported item' }),
    status: z.enum(DISBURSEMENT_ITEM_STATUSES),
    channel: z.string().nullable(),
    source_amount: z.string().nullable(),
    source_currency: z.string(),
    destination_amount: z.string().nullable(),
    destination_currency: z.string().nullable(),
    rate: z.string().nullable(),
    fees: FeesSchema.nullable(),
    debit_total: AmountSchema.nullable(),
    recipient_id: z.string().nullable(),
    recipient: z.record(z.string(), z.unknown()).nullable().openapi({ description: 'Inline recipient, bank and identity fields masked' }),
    recipient_type: z.string().nullable(),
    reference: z.string().nullable(),
    memo: z.string().nullable(),
    review_reasons: z.array(ReviewReasonSchema),
    payout_id: z.string().nullable().openapi({ description: 'Payout of the current attempt' }),
    attempts: z.number().int().openapi({ description: 'Attempts of this item (retry-failed adds one)' }),
    failure: z.object({ code: z.string(), message: z.string() }).nullable(),
    provider_reference: z.string().nullable(),
    delivered_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('DisbursementItem');

const DisbursementItemListSchema = listEnvelope(ItemSchema).openapi('DisbursementItemList');

const DisbursementCreateSchema = z
  .object({
    name: z.string().min(1).max(200).openapi({ example: 'Payroll March' }),
    items: z.array(ItemInputSchema).max(MAX_ITEMS).optional().openapi({ description: `0 to ${MAX_ITEMS} items` }),
  })
  .openapi('DisbursementCreate');

const DisbursementRejectSchema = z.object({ reason: z.string().max(1000).optional() }).openapi('DisbursementReject');

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

const ERR_404 = { 404: 'not_found: no such disbursement (or item) in this business and environment' } as const;

const createRouteDef = createRoute({
  operationId: 'createDisbursement',
  method: 'post',
  path: '/disbursements',
  tags: [TAG],
  summary: 'Create a disbursement (batch of payouts)',
  description:
    `Up to ${MAX_ITEMS} items; each is reviewed before any money moves and becomes ready or needs_review with its reasons ` +
    '(params prefixed items.<i>.). An empty items list is allowed (import a CSV next).',
  middleware: [idempotency('A')] as const,
  request: {
    headers: idempotencyHeaders('Makes a retried request safe'),
    body: {
      required: true,
      content: {
        'application/json': {
          schema: DisbursementCreateSchema,
        },
      },
    },
  },
  responses: {
    201: json(DisbursementSchema, 'The disbursement with its review summary'),
    ...errorResponses({ 400: 'validation_error (name; items: more than 5,000)', ...AUTH_ERRORS, 409: 'idempotency_conflict' }),
  },
});

const getRouteDef = createRoute({
  operationId: 'getDisbursement',
  method: 'get',
  path: '/disbursements/{id}',
  tags: [TAG],
  summary: 'Get a disbursement with its review summary',
  request: { params: z.object({ id: idParam }) },
  responses: { 200: json(DisbursementSchema, 'The disbursement'), ...errorResponses({ ...AUTH_ERRORS, ...ERR_404 }) },
});

const listItemsRouteDef = createRoute({
  operationId: 'listDisbursementItems',
  method: 'get',
  path: '/disbursements/{id}/items',
  tags: [TAG],
  summary: 'List the items of a disbursement',
  description: 'In batch order (seq). Filter by item status.',
  request: {
    params: z.object({ id: idParam }),
    query: z.object({ ...pageQuery, status: z.enum(DISBURSEMENT_ITEM_STATUSES).optional() }),
  },
  responses: {
    200: json(DisbursementItemListSchema, 'List envelope'),
    ...errorResponses({ 400: 'validation_error (status, limit, cursor)', ...AUTH_ERRORS, ...ERR_404 }),
  },
});

const patchItemRouteDef = createRoute({
  operationId: 'updateDisbursementItem',
  method: 'patch',
  path: '/disbursements/{id}/items/{item_id}',
  tags: [TAG],
  summary: 'Edit an item',
  description:
    'Editable while drafting or awaiting approval; once launched, failed items are editable (correction mode; retry-failed then retries them). ' +
    'A change to channel, source_amount, recipient_id or recipient creates a new revision_id: approvals of older revisions no longer count. ' +
    'The item is reviewed again. null clears reference or memo.',
  request: {
    params: z.object({ id: idParam, item_id: itemIdParam }),
    body: { required: true, content: { 'application/json': { schema: ItemInputSchema } } },
  },
  responses: {
    200: json(ItemSchema, 'The item after review'),
    ...errorResponses({ ...AUTH_ERRORS, ...ERR_404, 409: 'invalid_state: not editable in this status' }),
  },
});

const importRouteDef = createRoute({
  operationId: 'importDisbursementItems',
  method: 'post',
  path: '/disbursements/{id}/items/import',
  tags: [TAG],
  summary: 'Import items from a CSV file',
  description:
    `multipart/form-data with file (CSV, at most ${MAX_CSV_BYTES} bytes; 413 payload_too_large above) and optional channel. ` +
    'Header row required; columns recipient and amount required; memo, reference, type, pagomovil_bank_code, ' +
    'pagomovil_national_id, pagomovil_holder_name, pagomovil_dob and channel optional. The channel of a row: its channel column, ' +
    "else the channel form field when it pays the row's recipient type, else the type's only channel (phone/email: claim_link). Rows the parser cannot read " +
    `become items needing review (code csv_parse_error) with their line number. At most ${MAX_ITEMS} items in all (400, param file). ` +
    'Appends to a drafting disbursement.',
  middleware: [idempotency('A')] as const,
  request: {
    params: z.object({ id: idParam }),
    body: {
      required: true,
      content: {
        'multipart/form-data': {
          schema: z.object({
            file: z.any().openapi({ type: 'string', format: 'binary', description: 'The CSV file' }),
            channel: z.string().optional().openapi({ description: 'Channel of rows without a channel column value' }),
          }),
        },
      },
    },
  },
  responses: {
    200: json(DisbursementSchema, 'The disbursement with the imported items reviewed'),
    ...errorResponses({
      400: 'validation_error (file: missing, unreadable, missing column, more than 5,000 items)',
      ...AUTH_ERRORS,
      ...ERR_404,
      409: 'invalid_state: not drafting',
      413: 'payload_too_large',
    }),
  },
});

/** A POST operation on a disbursement with no body (submit, launch, pause, resume, retry-failed), named `operationId`. */
function actionRoute(operationId: string, path: string, summary: string, description: string, errors: Record<number, string>) {
  return createRoute({
    operationId,
    method: 'post',
    path,
    tags: [TAG],
    summary,
    description,
    request: { params: z.object({ id: idParam }) },
    responses: { 200: json(DisbursementSchema, 'The disbursement'), ...errorResponses({ ...AUTH_ERRORS, ...ERR_404, ...errors }) },
  });
}

const submitRouteDef = actionRoute(
  'submitDisbursementForApproval',
  '/disbursements/{id}/submit-for-approval',
  'Submit for approval',
  'ready -> awaiting_approval; event disbursement.awaiting_approval. The submitting key can never approve this disbursement.',
  { 409: 'items_need_review; invalid_state (no items, or not drafting)' },
);
const launchRouteDef = actionRoute(
  'launchDisbursement',
  '/disbursements/{id}/launch',
  'Launch',
  'Holds the batch total, starts the batch (processing) and emits disbursement.launched. ' +
    'Refused while items need review (409 items_need_review), while approvals are outstanding (409 approval_required) ' +
    'or when the balance does not cover the batch (402 insufficient_balance).',
  { 402: 'insufficient_balance', 409: 'items_need_review; approval_required; invalid_state' },
);
const pauseRouteDef = actionRoute('pauseDisbursement', '/disbursements/{id}/pause', 'Pause', 'No new item starts; items in flight finish.', {
  409: 'invalid_state: not processing',
});
const resumeRouteDef = actionRoute('resumeDisbursement', '/disbursements/{id}/resume', 'Resume', 'Items start again.', { 409: 'invalid_state: not paused' });
const retryRouteDef = actionRoute(
  'retryFailedDisbursementItems',
  '/disbursements/{id}/items/retry-failed',
  'Retry failed items',
  'Every failed item whose failure code is retryable (provider_timeout), or which was corrected since it failed, gets a new ' +
    'attempt with a new payout; its debit total is held again. An item never gets a second payout once one succeeded.',
  { 402: 'insufficient_balance', 409: 'invalid_state (status, or no retryable item); approval_required (a correction awaits approval)' },
);

const approveRouteDef = createRoute({
  operationId: 'approveDisbursementRevision',
  method: 'post',
  path: '/disbursements/{id}/approvals/{revision_id}/approve',
  tags: [TAG],
  summary: 'Approve a revision',
  description:
    "Counts once per key. Enough approvals (the business's approvals_required) make the disbursement approved. " +
    'The submitting key cannot approve (403 self_approval_forbidden); an older revision is 409 stale_revision.',
  request: { params: z.object({ id: idParam, revision_id: revisionParam }) },
  responses: {
    200: json(DisbursementSchema, 'The disbursement'),
    ...errorResponses({
      ...AUTH_ERRORS,
      403: 'self_approval_forbidden',
      ...ERR_404,
      409: 'stale_revision; items_need_review; invalid_state',
    }),
  },
});

const rejectRouteDef = createRoute({
  operationId: 'rejectDisbursementRevision',
  method: 'post',
  path: '/disbursements/{id}/approvals/{revision_id}/reject',
  tags: [TAG],
  summary: 'Reject a revision',
  description: 'Back to drafting with a new revision; the reason is recorded (rejection.reason).',
  request: {
    params: z.object({ id: idParam, revision_id: revisionParam }),
    body: {
      required: false,
      content: { 'application/json': { schema: DisbursementRejectSchema } },
    },
  },
  responses: {
    200: json(DisbursementSchema, 'The disbursement'),
    ...errorResponses({ ...AUTH_ERRORS, ...ERR_404, 409: 'stale_revision; invalid_state' }),
  },
});

const exportRouteDef = createRoute({
  operationId: 'exportDisbursementCsv',
  method: 'get',
  path: '/disbursements/{id}/export.csv',
  tags: [TAG],
  summary: 'Export the results as CSV',
  description: `One row per item, streamed. Columns: ${EXPORT_COLUMNS.join(', ')}. Bank and identity fields are masked.`,
  request: { params: z.object({ id: idParam }) },
  responses: {
    200: { description: 'text/csv', content: { 'text/csv': { schema: z.string() } } },
    ...errorResponses({ ...AUTH_ERRORS, ...ERR_404 }),
  },
});

/** Request body of `POST /disbursements`. */
export type DisbursementCreateBody = z.infer<typeof DisbursementCreateSchema>;
/** Request body of `PATCH /disbursements/{id}/items/{item_id}` (and one element of `items`). */
export type DisbursementItemInputBody = z.infer<typeof ItemInputSchema>;
/** Request body of `POST /disbursements/{id}/approvals/{revision_id}/reject`. */
export type DisbursementRejectBody = z.infer<typeof DisbursementRejectSchema>;
/** Response body of every disbursement operation except the item ones and the export. */
export type DisbursementResponse = z.infer<typeof DisbursementSchema>;
/** Response body of `PATCH /disbursements/{id}/items/{item_id}`. */
export type DisbursementItemResponse = z.infer<typeof ItemSchema>;
/** Response body of `GET /disbursements/{id}/items`. */
export type DisbursementItemListResponse = z.infer<typeof DisbursementItemListSchema>;

/** Wire item field -> domain field (src/domain/disbursements.ts DisbursementItemInput). */
const ITEM_FIELDS = {
  channel: 'channel',
  source_amount: 'sourceAmount',
  recipient_id: 'recipientId',
  recipient: 'recipient',
  reference: 'reference',
  memo: 'memo',
} as const satisfies Record<string, keyof DisbursementItemPatch>;

/** The fields present in an item body, by their domain names; other keys go to `extra` when `keepExtra`. */
function itemFields(body: DisbursementItemInputBody, keepExtra: boolean): DisbursementItemInput {
  const out: DisbursementItemInput = {};
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (Object.hasOwn(ITEM_FIELDS, k)) out[ITEM_FIELDS[k as keyof typeof ITEM_FIELDS]] = v;
    else extra[k] = v;
  }
  if (keepExtra && Object.keys(extra).length) out.extra = extra;
  return out;
}

/** Registers the disbursement routes on the Surface A app. */
export function registerDisbursementRoutes(app: SurfaceRouter): void {
  app.openapi(createRouteDef, async (c) => {
    const body = c.req.valid('json');
    const input = { name: body.name, items: body.items?.map((it) => itemFields(it, true)) };
    const out = await createDisbursement(c.get('core'), c.get('caller'), input, { idempotencyKey: c.get('idempotencyKey') });
    return c.json(renderDisbursement(out), 201);
  });

  app.openapi(getRouteDef, async (c) => c.json(renderDisbursement(await getDisbursement(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200));

  app.openapi(listItemsRouteDef, async (c) => {
    const q = c.req.valid('query');
    const page = await listItems(c.get('core'), c.get('caller'), c.req.valid('param').id, q);
    return c.json({ data: page.data.map(renderDisbursementItem), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(patchItemRouteDef, async (c) => {
    const { id, item_id } = c.req.valid('param');
    return c.json(renderDisbursementItem(await updateItem(c.get('core'), c.get('caller'), id, item_id, itemFields(c.req.valid('json'), false))), 200);
  });

  app.openapi(importRouteDef, async (c) => {
    const form = await c.req.parseBody();
    const file = form.file;
    if (!file || typeof file === 'string') throw validationError('file', 'file is required: a CSV file sent as multipart/form-data');
    const channel = typeof form.channel === 'string' ? form.channel : undefined;
    const text = file.size > MAX_CSV_BYTES ? '' : await file.text();
    const out = await importItems(c.get('core'), c.get('caller'), c.req.valid('param').id, { text, size: file.size }, { channel });
    return c.json(renderDisbursement(out), 200);
  });

  app.openapi(submitRouteDef, async (c) => c.json(renderDisbursement(await submitForApproval(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200));
  app.openapi(launchRouteDef, async (c) => c.json(renderDisbursement(await launchDisbursement(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200));
  app.openapi(pauseRouteDef, async (c) => c.json(renderDisbursement(await pauseDisbursement(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200));
  app.openapi(resumeRouteDef, async (c) => c.json(renderDisbursement(await resumeDisbursement(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200));
  app.openapi(retryRouteDef, async (c) => c.json(renderDisbursement(await retryFailedItems(c.get('core'), c.get('caller'), c.req.valid('param').id)), 200));

  app.openapi(approveRouteDef, async (c) => {
    const { id, revision_id } = c.req.valid('param');
    return c.json(renderDisbursement(await approveDisbursement(c.get('core'), c.get('caller'), id, revision_id)), 200);
  });

  app.openapi(rejectRouteDef, async (c) => {
    const { id, revision_id } = c.req.valid('param');
    const reason = c.req.valid('json').reason;
    return c.json(renderDisbursement(await rejectDisbursement(c.get('core'), c.get('caller'), id, revision_id, reason)), 200);
  });

  app.openapi(exportRouteDef, async (c) => {
    const id = c.req.valid('param').id;
    const stream = await exportResultsCsv(c.get('core'), c.get('caller'), id);
    return c.body(stream, 200, {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${id}-results.csv"`,
    });
  });
}
