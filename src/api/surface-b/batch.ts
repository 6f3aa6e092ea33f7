/**
 * Surface B `POST /disbursements/batch` (spec "Endpoints", Surface B; "Batch create"; "Limits": at
 * most 10,000 entries). A thin adapter over src/core/claim-flow/batch.ts: all or nothing, every bad
 * entry reported by index in `details.errors`.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { createClaimBatch, MAX_BATCH_ENTRIES } from '../../core/claim-flow';
import { formatAmount, type Money } from '../../domain/money';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { DisbursementSchema, renderClaimDisbursement } from './disbursements';
import { AmountUsdSchema, LedgerUsdSchema, COMMON_ERRORS, DateTimeSchema, errorResponses, groupDigits, IdempotencyKeyField, idempotencyKeyFromBody, jsonContent } from './schemas';

const BatchEntrySchema = z
  .object({
    recipientPhone: z.string().optional().openapi({ example: '+525512345678' }),
    recipientEmail: z.string().optional(),
    amountUsd: AmountUsdSchema,
    reference: z.string().optional(),
    note: z.string().optional(),
  })
  .openapi('BatchEntry', { description: 'One disbursement of a batch: the single create form without currency (and without idempotencyKey)' });

const BatchCreateSchema = z
  .object({
    disbursements: z
      .array(z.record(z.string(), z.unknown()))
      .openapi({ description: `1 to ${groupDigits(MAX_BATCH_ENTRIES)} entries, each a BatchEntry (checked entry by entry, every bad one reported)` }),
    batchReference: z.string().optional().openapi({ description: 'Your reference for the batch, at most 140 characters' }),
    note: z.string().optional().openapi({ description: 'Shown to every recipient whose entry has no note of its own' }),
    idempotencyKey: IdempotencyKeyField,
  })
  .openapi('BatchCreate');

const BatchSchema = z
  .object({
    id: z.string().openapi({ example: 'cbt_01k0000000000000000000000' }),
    batchReference: z.string().nullable(),
    note: z.string().nullable(),
    count: z.number().int(),
    totalAmountUsd: LedgerUsdSchema.openapi({ description: 'The sum of the amounts' }),
    totalDebitUsd: LedgerUsdSchema.openapi({ description: 'Amounts plus fees, held on the balance' }),
    createdAt: DateTimeSchema,
    disbursements: z.array(DisbursementSchema),
  })
  .openapi('Batch');

/** Request body of `POST /disbursements/batch`. */
export type BatchCreateBody = z.infer<typeof BatchCreateSchema>;
/** Response body of `POST /disbursements/batch`. */
export type BatchResponse = z.infer<typeof BatchSchema>;
/** One entry (documentation type). */
export type BatchEntry = z.infer<typeof BatchEntrySchema>;

const createBatchRoute = createRoute({
  operationId: 'createDisbursementBatch',
  method: 'post',
  path: '/disbursements/batch',
  tags: ['Disbursements'],
  summary: 'Send up to 10,000 disbursements at once',
  description:
    'All or nothing: every entry is validated like POST /disbursements; if any is bad the answer lists each bad entry in details.errors ' +
    '({index, param, error, message}) and nothing is created. Otherwise the batch total (amounts + fees) is held at once and every ' +
    'disbursement starts (pending). Rate limit: 10 per minute per organisation.',
  middleware: [idempotency('B', { keyFrom: idempotencyKeyFromBody })] as const,
  request: { body: { required: true, content: jsonContent(BatchCreateSchema) } },
  responses: {
    201: { description: 'The batch and its disbursements', content: jsonContent(BatchSchema) },
    ...errorResponses({
      400: 'validation_error (details.errors: every bad entry by index)',
      ...COMMON_ERRORS,
      402: 'insufficient_balance (the batch total)',
      409: 'idempotency_conflict',
      422: 'validation_error when every bad entry is unprocessable (amount_below_minimum, recipient_country_unsupported in details.errors)',
    }),
  },
});

const usd = (m: Money) => formatAmount(m.minor, m.currency);

/** Registers `POST /disbursements/batch` (before `/disbursements/{id}` routes, which it does not clash with: those are GET/DELETE). */
export function registerBatchRoutes(app: SurfaceRouter): void {
  // Documented as a component; entries are checked by the core, one by one, every bad one reported.
  app.openAPIRegistry.register('BatchEntry', BatchEntrySchema);
  app.openapi(createBatchRoute, async (c) => {
    const b = c.req.valid('json');
    const batch = await createClaimBatch(c.get('core'), c.get('caller'), b, { idempotencyKey: c.get('idempotencyKey') });
    return c.json(
      {
        id: batch.id,
        batchReference: batch.batchReference,
        note: batch.note,
        count: batch.count,
        totalAmountUsd: usd(batch.totalAmount),
        totalDebitUsd: usd(batch.totalDebit),
        createdAt: batch.createdAt.toISOString(),
        disbursements: batch.disbursements.map(renderClaimDisbursement),
      },
      201,
    );
  });
}
