/** Reading payouts (spec GET /payouts, GET /payouts/{id}, GET /payouts/{id}/receipt): the domain payout of a row, and lookups. */
import type { DbOrTx } from '../../db/schema';
import type { RecipientType } from '../../domain/channels';
import type { PayoutFailureCode, PayoutStatus } from '../../domain/payout-state';
import type { PayeeVerificationView, Payout, PayoutReceipt } from '../../domain/payouts';
import type { PayeeVerificationsTable } from '../../db/tables/payouts';
import { maskRecipientDetails } from '../../domain/recipients';
import { type Page, paginate } from '../paging';
import { payoutScreeningOf, payoutScreenings, screeningCaseColumn } from '../screening/case-view';
import { ownedOr404, scoped } from '../tenancy';
import { type Caller, type Core, readsOf } from '../context';
import type { PayoutRow, PayoutAttemptRow } from './rows';

/** The payouts columns {@link payoutFromRow} reads: what GET /payouts selects instead of `*` (fewer strings and dates parsed per row). */
export const PAYOUT_VIEW_COLUMNS = [
  'id', 'status', 'channel', 'recipient_id', 'recipient_type', 'recipient_details', 'source_amount', 'source_currency',
  'destination_amount', 'destination_currency', 'rate', 'fee_provider', 'fee_service', 'fee_fx_spread', 'fee_total',
  'rate_source', 'rate_as_of', 'reference_rate', 'fx_spread_bps', 'reference', 'memo', 'message', 'quote_id',
  'estimated_arrival', 'delivered_at', 'provider_reference', 'failure_code', 'failure_message', 'failure_retryable',
  'failure_rail_reason_code', 'attempt_count', 'claim_token', 'claim_expires_at', 'claimed_at', 'claim_method',
  'disbursement_id', 'created_at', 'updated_at',
] as const satisfies readonly (keyof PayoutRow)[];

/** The part of a payouts row that makes its domain payout. */
export type PayoutViewRow = Pick<PayoutRow, (typeof PAYOUT_VIEW_COLUMNS)[number]>;

/**
 * The domain payout of a row. With `attempts` (rows of payout_attempts) it carries
 * `attemptHistory` (GET /payouts/{id}); `publicUrl` fills `claim.url` of claim links
 * (`{publicUrl}/c/<claim token>`, null without it).
 */
export function payoutFromRow(row: PayoutViewRow, publicUrl?: string, attempts?: PayoutAttemptRow[]): Payout {
  const out: Payout = {
    id: row.id,
    status: row.status as PayoutStatus,
    channel: row.channel,
    recipientId: row.recipient_id,
    recipient: { type: row.recipient_type, details: maskRecipientDetails(row.recipient_type as RecipientType, row.recipient_details) },
    source: { minor: row.source_amount, currency: row.source_currency },
    destination: { minor: row.destination_amount, currency: row.destination_currency },
    rate: row.rate,
    fees: { provider: row.fee_provider, service: row.fee_service, fxSpread: row.fee_fx_spread, total: row.fee_total },
    rateDetails:
      row.rate_source !== null && row.rate_as_of !== null && row.reference_rate !== null && row.fx_spread_bps !== null
        ? { referenceRate: row.reference_rate, source: row.rate_source, asOf: row.rate_as_of, spreadBps: row.fx_spread_bps }
        : null,
    reference: row.reference,
    memo: row.memo,
    message: row.message,
    quoteId: row.quote_id,
    estimatedArrival: row.estimated_arrival,
    deliveredAt: row.delivered_at,
    providerReference: row.provider_reference,
    failure: row.failure_code
      ? {
          code: row.failure_code as PayoutFailureCode,
          message: row.failure_message ?? row.failure_code,
          retryable: row.failure_retryable ?? null,
          railReasonCode: row.failure_rail_reason_code || null,
        }
      : null,
    attempts: row.attempt_count,
    claim:
      row.channel === 'claim_link'
        ? {
            url: row.claim_token && publicUrl ? `${publicUrl}/c/${row.claim_token}` : null,
            expiresAt: row.claim_expires_at,
            claimedAt: row.claimed_at,
            method: row.claim_method,
          }
        : null,
    disbursementId: row.disbursement_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (attempts) {
    out.attemptHistory = [...attempts]
      .sort((a, b) => a.number - b.number)
      .map((a) => ({
        number: a.number,
        status: a.status,
        startedAt: a.started_at,
        completedAt: a.completed_at,
        providerReference: a.provider_reference,
        error: a.error_code ? { code: a.error_code, message: a.error_message ?? a.error_code } : null,
      }));
  }
  return out;
}

/** The payout row with this id in the caller's business and environment; 404 not_found (param `id`) otherwise. */
export async function getPayoutRow(db: DbOrTx, caller: Caller, id: string): Promise<PayoutRow> {
  return ownedOr404(db, caller, 'payouts', id, 'payout');
}

/** GET /payouts/{id} with `attemptHistory`; 404 not_found (param `id`). `opts.reads`: the GET route's read (may be the standby's). */
export async function getPayout(core: Core, caller: Caller, id: string, opts: { reads?: boolean } = {}): Promise<Payout> {
  const db = opts.reads ? readsOf(core) : core.db;
  const row = await getPayoutRow(db, caller, id);
  const attempts = await db.selectFrom('payout_attempts').selectAll().where('payout_id', '=', id).orderBy('number').execute();
  const screening = (await payoutScreenings(db, [id])).get(id) ?? null;
  const payee = await db.selectFrom('payee_verifications').selectAll().where('payout_id', '=', id).executeTakeFirst();
  const payout = { ...payoutFromRow(row, core.config.publicUrl, attempts), screening };
  if (payee) payout.payeeVerification = payeeVerificationView(payee, row.status);
  return payout;
}

/** Filters and page of GET /payouts (spec: status, channel, since, limit 1..200, cursor). */
export interface ListPayoutsQuery {
  status?: PayoutStatus;
  /** Any of these statuses (a surface's status that stands for several core ones, e.g. Surface C `pending`). */
  statuses?: readonly PayoutStatus[];
  channel?: string;
  /** Only payouts created at or after this instant. */
  since?: Date;
  limit: number;
  cursor?: string;
}

/** GET /payouts: newest first, cursor paging (src/core/paging.ts). 400 validation_error (`cursor`) for a foreign cursor. */
export async function listPayouts(core: Core, caller: Caller, q: ListPayoutsQuery): Promise<Page<Payout>> {
  let query = scoped(readsOf(core), caller)
    .selectFrom('payouts')
    .select(PAYOUT_VIEW_COLUMNS)
    .select(screeningCaseColumn());
  if (q.status) query = query.where('status', '=', q.status);
  if (q.statuses?.length) query = query.where('status', 'in', [...q.statuses]);
  if (q.channel) query = query.where('channel', '=', q.channel);
  if (q.since) query = query.where('created_at', '>=', q.since);
  const page = await paginate(query, 'id', { limit: q.limit, cursor: q.cursor });
  return {
    data: page.rows.map(({ screening_case, ...r }) => ({ ...payoutFromRow(r, core.config.publicUrl), screening: screening_case ? payoutScreeningOf(screening_case) : null })),
    nextCursor: page.nextCursor,
  };
}

/** GET /payouts/{id}/receipt: `{url: {publicUrl}/r/<receipt token>, confirmed_received_at}`. 404 as getPayout. */
export async function getPayoutReceipt(core: Core, caller: Caller, id: string): Promise<PayoutReceipt> {
  const row = await getPayoutRow(core.db, caller, id);
  return { url: `${core.config.publicUrl}/r/${row.receipt_token}`, confirmedReceivedAt: row.confirmed_received_at };
}

/** The payout behind a public receipt token (any business or environment), or undefined. */
export async function findPayoutByReceiptToken(db: DbOrTx, token: string): Promise<PayoutRow | undefined> {
  return db.selectFrom('payouts').selectAll().where('receipt_token', '=', token).executeTakeFirst();
}

/** The payout's `payee_verification` view (docs/payee-verification.md "On the payout"); null when never verified. */
export function payeeVerificationView(row: PayeeVerificationsTable | undefined, payoutStatus: string): PayeeVerificationView | null {
  if (!row) return null;
  const needs = row.result === 'close_match' || row.result === 'no_match';
  const status: PayeeVerificationView['status'] = !needs ? 'not_required' : row.decision ?? (payoutStatus === 'canceled' ? 'canceled' : 'awaiting_confirmation');
  return { result: row.result as PayeeVerificationView['result'], nameReturned: row.name_returned, reasonCode: row.reason_code, status, confirmBy: row.confirm_by };
}
