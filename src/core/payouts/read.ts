/** Reading payouts (spec GET /payouts, GET /payouts/{id}, GET /payouts/{id}/receipt): the wire shape and lookups. */
import type { DbOrTx } from '../../db/schema';
import type { RecipientType } from '../../domain/channels';
import { notFound } from '../../domain/errors';
import { formatAmount, USDC } from '../../domain/money';
import type { PayoutFailureCode, PayoutStatus } from '../../domain/payout-state';
import { formatRateDetails, type WireFees, type WireRateDetails } from '../../domain/pricing';
import { maskRecipientDetails } from '../../domain/recipients';
import { type ListEnvelope, paginate } from '../paging';
import type { Caller, Core } from '../context';
import type { PayoutRow, PayoutAttemptRow } from './rows';

/** One element of `attempt_history` (extension; the spec leaves the element fields open). */
export interface WireAttempt {
  number: number;
  status: 'processing' | 'succeeded' | 'failed';
  started_at: string;
  completed_at: string | null;
  provider_reference: string | null;
  error: { code: string; message: string } | null;
}

/** Spec "Payout" on Surface A (snake_case, Amounts as decimal strings, timestamps ISO 8601 UTC), plus documented extensions. */
export interface WirePayout {
  id: string;
  object: 'payout';
  status: PayoutStatus;
  channel: string;
  recipient_id: string | null;
  /** Extension: the destination, masked (`{type, ...fields}`). */
  recipient: Record<string, unknown>;
  source_amount: string;
  source_currency: string;
  destination_amount: string;
  destination_currency: string;
  rate: string;
  fees: WireFees;
  /** Extension, live only (docs/rates.md "On the wire"): the rate's source, as-of time, reference rate and spread. */
  rate_details?: WireRateDetails;
  reference: string | null;
  memo: string | null;
  message: string | null;
  quote_id: string | null;
  estimated_arrival: string | null;
  delivered_at: string | null;
  provider_reference: string | null;
  /**
   * Spec failure object; a rail failure adds two documented extensions (docs/rails.md "Status and
   * reason codes"): `retryable` (whether a new payout may succeed) and `rail_reason_code` (the
   * rail's own code, e.g. `AC01`).
   */
  failure: { code: PayoutFailureCode; message: string; retryable?: boolean; rail_reason_code?: string } | null;
  /** Delivery attempts begun or scheduled (1 from acceptance). */
  attempts: number;
  /** Only on GET /payouts/{id}: the rail calls made so far. */
  attempt_history?: WireAttempt[];
  /** Extension, claim_link payouts only: the recipient's claim link and its state. */
  claim: { url: string | null; expires_at: string | null; claimed_at: string | null; method: string | null } | null;
  /** Extension: the disbursement this payout is an item of, or null. */
  disbursement_id: string | null;
  created_at: string;
  updated_at: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The spec's Payout wire object of a row. With `attempts` (rows of payout_attempts) it adds
 * `attempt_history` (GET /payouts/{id}); `publicUrl` fills `claim.url` of claim links
 * (`{publicUrl}/c/<claim token>`).
 */
export function renderPayout(row: PayoutRow, attempts?: PayoutAttemptRow[], publicUrl?: string): WirePayout {
  const fees: WireFees = {
    provider: formatAmount(row.fee_provider, USDC),
    service: formatAmount(row.fee_service, USDC),
    fx_spread: formatAmount(row.fee_fx_spread, USDC),
    total: formatAmount(row.fee_total, USDC),
    currency: 'USDC',
  };
  const out: WirePayout = {
    id: row.id,
    object: 'payout',
    status: row.status as PayoutStatus,
    channel: row.channel,
    recipient_id: row.recipient_id,
    recipient: {
      type: row.recipient_type,
      ...maskRecipientDetails(row.recipient_type as RecipientType, row.recipient_details),
    },
    source_amount: formatAmount(row.source_amount, row.source_currency),
    source_currency: row.source_currency,
    destination_amount: formatAmount(row.destination_amount, row.destination_currency),
    destination_currency: row.destination_currency,
    rate: row.rate,
    fees,
    ...(row.rate_source !== null && row.rate_as_of !== null && row.reference_rate !== null && row.fx_spread_bps !== null
      ? { rate_details: formatRateDetails({ referenceRate: row.reference_rate, source: row.rate_source, asOf: row.rate_as_of, spreadBps: row.fx_spread_bps }) }
      : {}),
    reference: row.reference,
    memo: row.memo,
    message: row.message,
    quote_id: row.quote_id,
    estimated_arrival: iso(row.estimated_arrival),
    delivered_at: iso(row.delivered_at),
    provider_reference: row.provider_reference,
    failure: row.failure_code
      ? {
          code: row.failure_code as PayoutFailureCode,
          message: row.failure_message ?? row.failure_code,
          ...(row.failure_retryable !== null && row.failure_retryable !== undefined ? { retryable: row.failure_retryable } : {}),
          ...(row.failure_rail_reason_code ? { rail_reason_code: row.failure_rail_reason_code } : {}),
        }
      : null,
    attempts: row.attempt_count,
    claim:
      row.channel === 'claim_link'
        ? {
            url: row.claim_token && publicUrl ? `${publicUrl}/c/${row.claim_token}` : null,
            expires_at: iso(row.claim_expires_at),
            claimed_at: iso(row.claimed_at),
            method: row.claim_method,
          }
        : null,
    disbursement_id: row.disbursement_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
  if (attempts) {
    out.attempt_history = [...attempts]
      .sort((a, b) => a.number - b.number)
      .map((a) => ({
        number: a.number,
        status: a.status,
        started_at: a.started_at.toISOString(),
        completed_at: iso(a.completed_at),
        provider_reference: a.provider_reference,
        error: a.error_code ? { code: a.error_code, message: a.error_message ?? a.error_code } : null,
      }));
  }
  return out;
}

/** The payout row with this id in the caller's business and environment; 404 not_found (param `id`) otherwise. */
export async function getPayoutRow(db: DbOrTx, caller: Caller, id: string): Promise<PayoutRow> {
  const row = await db
    .selectFrom('payouts')
    .selectAll()
    .where('id', '=', id)
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .executeTakeFirst();
  if (!row) throw notFound('payout', id);
  return row;
}

/** GET /payouts/{id}: the Payout with `attempt_history`. 404 not_found (param `id`) for an unknown or other tenant's id. */
export async function getPayout(core: Core, caller: Caller, id: string): Promise<WirePayout> {
  const row = await getPayoutRow(core.db, caller, id);
  const attempts = await core.db.selectFrom('payout_attempts').selectAll().where('payout_id', '=', id).orderBy('number').execute();
  return renderPayout(row, attempts, core.config.publicUrl);
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
export async function listPayouts(core: Core, caller: Caller, q: ListPayoutsQuery): Promise<ListEnvelope<WirePayout>> {
  let query = core.db
    .selectFrom('payouts')
    .selectAll()
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.statuses?.length) query = query.where('status', 'in', [...q.statuses]);
  if (q.channel) query = query.where('channel', '=', q.channel);
  if (q.since) query = query.where('created_at', '>=', q.since);
  const page = await paginate(query, 'id', { limit: q.limit, cursor: q.cursor });
  return { data: page.rows.map((r) => renderPayout(r, undefined, core.config.publicUrl)), next_cursor: page.next_cursor };
}

/** Spec "Receipt": the shareable receipt address and when delivery was confirmed. */
export interface WireReceipt {
  url: string;
  confirmed_received_at: string | null;
}

/** GET /payouts/{id}/receipt: `{url: {publicUrl}/r/<receipt token>, confirmed_received_at}`. 404 as getPayout. */
export async function getPayoutReceipt(core: Core, caller: Caller, id: string): Promise<WireReceipt> {
  const row = await getPayoutRow(core.db, caller, id);
  return { url: `${core.config.publicUrl}/r/${row.receipt_token}`, confirmed_received_at: iso(row.confirmed_received_at) };
}

/** The payout behind a public receipt token (any business or environment), or undefined. */
export async function findPayoutByReceiptToken(db: DbOrTx, token: string): Promise<PayoutRow | undefined> {
  return db.selectFrom('payouts').selectAll().where('receipt_token', '=', token).executeTakeFirst();
}
