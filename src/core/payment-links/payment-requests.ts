/** Payment requests (spec "PaymentRequest"; docs/getting-paid.md): open -> paid (a matched deposit) or expired. */
import { emitEvent } from '../events';
import { type Page, paginate } from '../paging';
import type { DbOrTx } from '../../db/schema';
import { validationError } from '../../domain/errors';
import { normaliseReference, PAYMENT_REQUEST_EVENT_ON_ENTER, PAYMENT_REQUEST_STATUSES, type PaymentRequestStatus } from '../../domain/funding';
import { newId, randomToken } from '../../domain/ids';
import { parseAmount, parseAmountParam } from '../../domain/money';
import {
  PAYMENT_REQUEST_WORKFLOW_TYPE,
  type PaymentRequestExpireResult,
  type PaymentRequestWorkflowInput,
} from '../../../workflows/payment-request.contract';
import type { Caller, Core } from '../context';
import { parseVirtualAccountCurrency } from '../funding/virtual-accounts';
import { enqueueWorkflowStart, flushWorkflowStart } from '../workflow-starts';
import { getPaymentLinkRow } from './payment-links';
import { type PaymentRequest, paymentRequestUrl } from '../../domain/payment-links';
import type { Selectable } from 'kysely';
import type { PaymentRequestsTable } from '../../db/tables/funding';
import { paymentRequestEvent } from '../../domain/domain-events';
import { ownedOr404 } from '../tenancy';

/** Amount in minor units of currency. */
export type PaymentRequestRow = Selectable<PaymentRequestsTable>;

export function toPaymentRequest(row: PaymentRequestRow, linkToken: string, publicUrl: string): PaymentRequest {
  return {
    id: row.id,
    paymentLinkId: row.payment_link_id,
    url: paymentRequestUrl(publicUrl, linkToken, row.token),
    amount: { minor: BigInt(row.amount), currency: row.currency },
    reference: row.reference,
    status: row.status as PaymentRequestStatus,
    expiresAt: new Date(row.expires_at),
    paidAt: row.paid_at ? new Date(row.paid_at) : null,
    depositId: row.deposit_id,
    createdAt: new Date(row.created_at),
  };
}

/** Spec "Limits", reference length. */
export const MAX_REQUEST_REFERENCE = 140;
/** In units of its currency. */
export const MAX_REQUEST_UNITS = '10000000';
export const MAX_REQUEST_LIFETIME_MS = 365 * 24 * 3600 * 1000;

/**
 * Spec "PaymentRequest" create body as parsed by a surface: values as given, checked here. `amount`
 * a decimal string in `currency` (USD, EUR, MXN); `expiresAt` an ISO 8601 date-time with a zone.
 */
export interface PaymentRequestCreate {
  paymentLinkId: unknown;
  amount: unknown;
  currency: unknown;
  reference: unknown;
  expiresAt: unknown;
}

async function linkToken(db: DbOrTx, linkId: string): Promise<string> {
  return (await db.selectFrom('payment_links').select('token').where('id', '=', linkId).executeTakeFirstOrThrow()).token;
}

/**
 * POST /payment-requests: inserts the request `open` with its expiry workflow start in one
 * transaction. Errors: 400 validation_error (param the field), 404 not_found (`payment_link_id`).
 */
export async function createPaymentRequest(core: Core, caller: Caller, input: PaymentRequestCreate): Promise<PaymentRequest> {
  if (typeof input.paymentLinkId !== 'string' || !input.paymentLinkId) throw validationError('payment_link_id', 'payment_link_id is required');
  const currency = parseVirtualAccountCurrency(input.currency);
  const amount = parseAmountParam(input.amount, currency, 'amount');
  if (amount > parseAmount(MAX_REQUEST_UNITS, currency)) throw validationError('amount', `amount must be at most ${MAX_REQUEST_UNITS} ${currency}`);
  if (typeof input.reference !== 'string' || normaliseReference(input.reference) === null) {
    throw validationError('reference', 'reference is required: the text the payer quotes on the transfer');
  }
  if (input.reference.length > MAX_REQUEST_REFERENCE) {
    throw validationError('reference', `reference must be at most ${MAX_REQUEST_REFERENCE} characters`);
  }
  const reference = input.reference.trim();
  const now = core.now();
  const expiresAt =
    typeof input.expiresAt === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(input.expiresAt)
      ? new Date(input.expiresAt)
      : null;
  if (!expiresAt || Number.isNaN(expiresAt.getTime())) {
    throw validationError('expires_at', 'expires_at must be an ISO 8601 date-time with a time zone, e.g. 2026-12-31T23:59:59Z');
  }
  if (expiresAt.getTime() <= now.getTime()) throw validationError('expires_at', 'expires_at must be in the future');
  if (expiresAt.getTime() - now.getTime() > MAX_REQUEST_LIFETIME_MS) throw validationError('expires_at', 'expires_at must be at most one year ahead');
  const link = await getPaymentLinkRow(core.db, caller, input.paymentLinkId, 'payment_link_id');

  const row = await core.db.transaction().execute(async (tx) => {
    const r = await tx
      .insertInto('payment_requests')
      .values({
        id: newId('preq'),
        business_id: caller.businessId,
        environment: caller.environment,
        payment_link_id: link.id,
        amount,
        currency,
        reference,
        reference_key: normaliseReference(reference) as string,
        status: 'open',
        expires_at: expiresAt,
        token: randomToken(18),
        paid_at: null,
        deposit_id: null,
        expired_at: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const wf: PaymentRequestWorkflowInput = { requestId: r.id, expiresAt: expiresAt.toISOString() };
    await enqueueWorkflowStart(tx, {
      workflowId: r.id,
      workflowType: PAYMENT_REQUEST_WORKFLOW_TYPE,
      args: [wf],
      searchAttributes: { BusinessId: r.business_id, Environment: r.environment },
    });
    return r;
  });
  try {
    await flushWorkflowStart(core, row.id);
  } catch (err) {
    core.log.warn({ err, requestId: row.id }, 'payment request workflow start deferred to the relay');
  }
  return toPaymentRequest(row, link.token, core.config.publicUrl);
}

export async function getPaymentRequestRow(db: DbOrTx, caller: Caller, id: string): Promise<PaymentRequestRow> {
  return ownedOr404(db, caller, 'payment_requests', id, 'payment request');
}

export async function getPaymentRequest(core: Core, caller: Caller, id: string): Promise<PaymentRequest> {
  const row = await getPaymentRequestRow(core.db, caller, id);
  return toPaymentRequest(row, await linkToken(core.db, row.payment_link_id), core.config.publicUrl);
}

/** GET /payment-requests (extension), newest first. 400 validation_error (`status`, `cursor`). */
export async function listPaymentRequests(
  core: Core,
  caller: Caller,
  q: { limit: number; cursor?: string; status?: string; paymentLinkId?: string },
): Promise<Page<PaymentRequest>> {
  let query = core.db
    .selectFrom('payment_requests as r')
    .innerJoin('payment_links as l', 'l.id', 'r.payment_link_id')
    .selectAll('r')
    .select('l.token as link_token')
    .where('r.business_id', '=', caller.businessId)
    .where('r.environment', '=', caller.environment);
  if (q.status !== undefined) {
    if (!(PAYMENT_REQUEST_STATUSES as readonly string[]).includes(q.status)) {
      throw validationError('status', `status must be one of ${PAYMENT_REQUEST_STATUSES.join(', ')}`);
    }
    query = query.where('r.status', '=', q.status);
  }
  if (q.paymentLinkId !== undefined) query = query.where('r.payment_link_id', '=', q.paymentLinkId);
  const page = await paginate(query, 'r.id', { limit: q.limit, cursor: q.cursor });
  return { data: page.rows.map((r) => toPaymentRequest(r, r.link_token, core.config.publicUrl)), nextCursor: page.nextCursor };
}

/** Marks the request paid by `depositId`, guarded on `open`, in the caller's transaction; undefined when no longer open. */
export async function markPaymentRequestPaid(db: DbOrTx, requestId: string, depositId: string, now: Date): Promise<PaymentRequestRow | undefined> {
  return db
    .updateTable('payment_requests')
    .set({ status: 'paid', paid_at: now, deposit_id: depositId, updated_at: now })
    .where('id', '=', requestId)
    .where('status', '=', 'open')
    .returningAll()
    .executeTakeFirst();
}

/**
 * The expiry step: open -> expired with its event in one guarded transaction; returns the status
 * stored, or `retryInMs` when not yet due. `clockOffsetMs` (test clock) affects the comparison only.
 * Throws Error for an unknown id.
 */
export async function expirePaymentRequest(core: Core, requestId: string, opts: { clockOffsetMs?: number } = {}): Promise<PaymentRequestExpireResult> {
  const now = core.now();
  const due = new Date(now.getTime() + Math.max(0, opts.clockOffsetMs ?? 0));
  const updated = await core.db.transaction().execute(async (tx) => {
    const row = await tx
      .updateTable('payment_requests')
      .set({ status: 'expired', expired_at: now, updated_at: now })
      .where('id', '=', requestId)
      .where('status', '=', 'open')
      .where('expires_at', '<=', due)
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    const request = toPaymentRequest(row, await linkToken(tx, row.payment_link_id), core.config.publicUrl);
    await emitEvent(tx, paymentRequestEvent({ businessId: row.business_id, environment: row.environment }, PAYMENT_REQUEST_EVENT_ON_ENTER.expired, request, 'expired'));
    return row;
  });
  if (updated) return { status: 'expired' };
  const row = await core.db.selectFrom('payment_requests').select(['status', 'expires_at']).where('id', '=', requestId).executeTakeFirst();
  if (!row) throw new Error(`payment request ${requestId} does not exist`);
  const status = row.status as PaymentRequestStatus;
  return status === 'open' ? { status, retryInMs: Math.max(100, new Date(row.expires_at).getTime() - due.getTime()) } : { status };
}

export async function findPaymentRequestByToken(db: DbOrTx, linkId: string, token: string): Promise<PaymentRequestRow | undefined> {
  return db.selectFrom('payment_requests').selectAll().where('token', '=', token).where('payment_link_id', '=', linkId).executeTakeFirst();
}
