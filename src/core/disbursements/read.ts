/** Reading a disbursement and its items (spec GET /disbursements/{id}, GET /disbursements/{id}/items): domain objects, aggregates, lookups. */
import { sql } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import type { ReviewReason } from '../../db/tables/disbursements';
import type { RecipientType } from '../../domain/channels';
import {
  DISBURSEMENT_ITEM_STATUSES,
  type DisbursementItemStatus,
  type DisbursementStatus,
  itemStatus,
  LAUNCHED_STATUSES,
} from '../../domain/disbursement-state';
import { fieldValidationError, notFound, validationError } from '../../domain/errors';
import { USDC } from '../../domain/money';
import type { Disbursement, DisbursementItem } from '../../domain/disbursements';
import { RETRYABLE_FAILURE_CODES } from '../../domain/payout-state';
import { maskRecipientDetails } from '../../domain/recipients';
import { decodeCursor, encodeCursor, type Page } from '../paging';
import type { Caller, Core } from '../context';
import { type DisbursementItemRow, type DisbursementRow, str } from './shared';
import { scoped } from '../tenancy';


const n = (v: unknown) => Number(v ?? 0);
const big = (v: unknown) => (v === null || v === undefined ? 0n : BigInt(v as string | bigint));

/** Counts of an item set by visible status, with money sums (one aggregate query). */
export async function itemAggregates(db: DbOrTx, disbursementId: string) {
  const { rows } = await sql<Record<string, unknown>>`
    select count(*) as item_count,
      count(*) filter (where i.status = 'needs_review') as needs_review,
      count(*) filter (where i.status = 'ready') as ready,
      count(*) filter (where i.status = 'pending') as pending,
      count(*) filter (where i.status = 'launched' and p.status not in ('succeeded','failed','canceled','refunded')) as processing,
      count(*) filter (where i.status = 'launched' and p.status = 'succeeded') as succeeded,
      count(*) filter (where i.status = 'failed' or (i.status = 'launched' and p.status in ('failed','canceled'))) as failed,
      count(*) filter (where i.status = 'launched' and p.status = 'refunded') as refunded,
      coalesce(sum(i.source_amount) filter (where i.status <> 'needs_review'), 0)::bigint as total_source,
      coalesce(sum(i.fee_total) filter (where i.status <> 'needs_review'), 0)::bigint as total_fees,
      coalesce(sum(i.debit_total) filter (where i.status = 'ready'), 0)::bigint as ready_debit
    from disbursement_items i left join payouts p on p.id = i.payout_id
    where i.disbursement_id = ${disbursementId}`.execute(db);
  const r = rows[0] ?? {};
  return {
    itemCount: n(r.item_count),
    needsReview: n(r.needs_review),
    ready: n(r.ready),
    pending: n(r.pending),
    processing: n(r.processing),
    succeeded: n(r.succeeded),
    failed: n(r.failed),
    refunded: n(r.refunded),
    totalSource: big(r.total_source),
    totalFees: big(r.total_fees),
    readyDebit: big(r.ready_debit),
  };
}

/** Failed items whose failure is retryable or which were corrected since (what retry-failed takes). */
export async function retryCandidates(db: DbOrTx, disbursementId: string) {
  const rows = await sql<{
    id: string;
    attempt: number;
    debit_total: string | bigint | null;
    corrected: boolean;
    review_reasons: ReviewReason[];
    failure_code: string | null;
  }>`
    select i.id, i.attempt, i.debit_total, i.corrected, i.review_reasons,
      case when i.status = 'failed' then i.failure_code else p.failure_code end as failure_code
    from disbursement_items i left join payouts p on p.id = i.payout_id
    where i.disbursement_id = ${disbursementId}
      and (i.status = 'failed' or (i.status = 'launched' and p.status in ('failed', 'canceled')))
    order by i.seq`.execute(db);
  return rows.rows
    .filter(
      (r) =>
        r.debit_total !== null &&
        (r.review_reasons ?? []).length === 0 &&
        (r.corrected || (r.failure_code !== null && (RETRYABLE_FAILURE_CODES as readonly string[]).includes(r.failure_code))),
    )
    .map((r) => ({ id: r.id, attempt: r.attempt, debitTotal: big(r.debit_total) }));
}

/** Distinct keys that approved `revisionId`. */
export async function approvalsReceived(db: DbOrTx, disbursementId: string, revisionId: string): Promise<number> {
  const r = await db
    .selectFrom('disbursement_approvals')
    .select((eb) => eb.fn.count<string>('key_id').distinct().as('c'))
    .where('disbursement_id', '=', disbursementId)
    .where('revision_id', '=', revisionId)
    .where('decision', '=', 'approve')
    .executeTakeFirst();
  return n(r?.c);
}

/** Approvals a disbursement of `businessId` needs (the business's approvals_required, default 1). */
export async function approvalsRequired(db: DbOrTx, businessId: string): Promise<number> {
  const b = await db.selectFrom('businesses').select('approvals_required').where('id', '=', businessId).executeTakeFirst();
  return b?.approvals_required ?? 1;
}

/** The summary's extras besides item aggregates (by type, duplicates, balance, approvals) in one statement. */
async function summaryExtras(db: DbOrTx, row: DisbursementRow) {
  const { rows } = await sql<{
    by_type: [string, number][] | null;
    dups: string[][] | null;
    available: bigint | string | null;
    approvals_required: number | null;
    received: bigint | string | number | null;
  }>`
    select
      (select json_agg(json_build_array(t.recipient_type, t.c) order by t.recipient_type)
        from (select recipient_type, count(*) as c from disbursement_items
              where disbursement_id = ${row.id} and recipient_type is not null group by recipient_type) t) as by_type,
      (select json_agg(d.item_ids order by d.first)
        from (select array_agg(id order by seq) as item_ids, min(seq) as first from disbursement_items
              where disbursement_id = ${row.id} and recipient_key is not null
              group by recipient_key having count(*) > 1) d) as dups,
      (select available from balances
        where business_id = ${row.business_id} and environment = ${row.environment} and currency = ${USDC}) as available,
      (select approvals_required from businesses where id = ${row.business_id}) as approvals_required,
      (select count(distinct key_id) from disbursement_approvals
        where disbursement_id = ${row.id} and revision_id = ${row.revision_id} and decision = 'approve') as received`.execute(db);
  const r = rows[0]!;
  return {
    byType: (r.by_type ?? []).map(([recipientType, c]) => ({ recipientType, c })),
    dups: r.dups ?? [],
    available: big(r.available),
    approvalsRequired: r.approvals_required ?? 1,
    received: n(r.received),
  };
}

const usdcMoney = (minor: bigint) => ({ minor, currency: USDC });
const date = (d: Date | string) => new Date(d);
const dateOrNull = (d: Date | string | null | undefined) => (d ? new Date(d) : null);

/** The disbursement of `row` with its summary (SQL aggregates; no item loaded into JS). */
export async function loadDisbursement(db: DbOrTx, row: DisbursementRow): Promise<Disbursement> {
  const agg = await itemAggregates(db, row.id);
  const { byType, dups, available, approvalsRequired: needed, received } = await summaryExtras(db, row);
  const launched = (LAUNCHED_STATUSES as readonly string[]).includes(row.status);
  let required = agg.readyDebit;
  if (launched) required = agg.failed > 0 ? (await retryCandidates(db, row.id)).reduce((s, c) => s + c.debitTotal, 0n) : 0n;
  return {
    id: row.id,
    name: row.name,
    status: row.status as DisbursementStatus,
    revisionId: row.revision_id,
    summary: {
      itemCount: agg.itemCount,
      ready: agg.itemCount - agg.needsReview,
      needsReview: agg.needsReview,
      totalSourceAmount: usdcMoney(agg.totalSource),
      totalFees: usdcMoney(agg.totalFees),
      byType: Object.fromEntries(byType.map((t) => [t.recipientType, n(t.c)])),
      duplicateRecipients: dups,
    },
    balanceCheck: { required: usdcMoney(required), available: usdcMoney(available), ok: available >= required },
    approval: {
      required: needed,
      received,
      revisionId: row.revision_id,
      submittedBy: row.submitted_by_key_id,
      approved: needed === 0 || row.approved_revision_id === row.revision_id,
    },
    progress: launched
      ? { pending: agg.pending, processing: agg.processing, succeeded: agg.succeeded, failed: agg.failed, refunded: agg.refunded }
      : null,
    rejection: row.rejected_at ? { reason: row.last_rejection_reason, rejectedAt: date(row.rejected_at) } : null,
    createdAt: date(row.created_at),
    submittedAt: dateOrNull(row.submitted_at),
    launchedAt: dateOrNull(row.launched_at),
    completedAt: dateOrNull(row.completed_at),
  };
}

/** The disbursement in the caller's business and environment; 404 not_found (param `id`) otherwise. */
export async function findRow(db: DbOrTx, caller: Caller, id: string, lock = false): Promise<DisbursementRow> {
  let q = scoped(db, caller)
    .selectFrom('disbursements')
    .selectAll()
    .where('id', '=', id);
  if (lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw notFound('disbursement', id);
  return row;
}

/** `GET /disbursements/{id}`: the Disbursement with its review summary. 404 not_found for an unknown or other tenant's id. */
export async function getDisbursement(core: Core, caller: Caller, id: string): Promise<Disbursement> {
  return loadDisbursement(core.db, await findRow(core.db, caller, id));
}

/** The result of an item's current payout. */
export interface ItemPayout {
  status: string;
  failureCode: string | null;
  failureMessage: string | null;
  providerReference: string | null;
  deliveredAt: Date | null;
  /** Minor units of the item's destination currency. */
  destinationAmount: bigint | null;
  /** Rail attempts the payout made. */
  attemptCount: number;
  createdAt: Date;
}

/** An item row with its current attempt's payout (null before the item has one). */
export interface ItemWithPayout {
  item: DisbursementItemRow;
  payout: ItemPayout | null;
}

type JoinedItemRow = DisbursementItemRow & {
  p_status: string | null;
  p_failure_code: string | null;
  p_failure_message: string | null;
  p_provider_reference: string | null;
  p_delivered_at: Date | null;
  p_destination_amount: bigint | string | null;
  p_attempt_count: number | null;
  p_created_at: Date | null;
};

function itemsWithPayouts(db: DbOrTx) {
  return db
    .selectFrom('disbursement_items as i')
    .leftJoin('payouts as p', 'p.id', 'i.payout_id')
    .selectAll('i')
    .select([
      'p.status as p_status',
      'p.failure_code as p_failure_code',
      'p.failure_message as p_failure_message',
      'p.provider_reference as p_provider_reference',
      'p.delivered_at as p_delivered_at',
      'p.destination_amount as p_destination_amount',
      'p.attempt_count as p_attempt_count',
      'p.created_at as p_created_at',
    ]);
}

function withPayout(r: JoinedItemRow): ItemWithPayout {
  const { p_status, p_failure_code, p_failure_message, p_provider_reference, p_delivered_at, p_destination_amount, p_attempt_count, p_created_at, ...item } = r;
  const payout: ItemPayout | null =
    p_status === null
      ? null
      : {
          status: p_status,
          failureCode: p_failure_code,
          failureMessage: p_failure_message,
          providerReference: p_provider_reference,
          deliveredAt: dateOrNull(p_delivered_at),
          destinationAmount: p_destination_amount === null ? null : BigInt(p_destination_amount),
          attemptCount: n(p_attempt_count),
          createdAt: date(p_created_at as Date),
        };
  return { item, payout };
}

/**
 * Items of disbursement `disbursementId` with their current payouts, in batch order (`seq`): after
 * seq `afterSeq`, of visible status `status`, or the one item `itemId`; at most `limit`.
 */
export async function readItemsWithPayouts(
  db: DbOrTx,
  disbursementId: string,
  q: { afterSeq?: number; status?: DisbursementItemStatus; itemId?: string; limit?: number },
): Promise<ItemWithPayout[]> {
  let query = itemsWithPayouts(db).where('i.disbursement_id', '=', disbursementId);
  if (q.itemId !== undefined) query = query.where('i.id', '=', q.itemId);
  if (q.afterSeq !== undefined) query = query.where('i.seq', '>', q.afterSeq);
  if (q.status) query = query.where(statusCondition(q.status));
  let ordered = query.orderBy('i.seq');
  if (q.limit !== undefined) ordered = ordered.limit(q.limit);
  return ((await ordered.execute()) as JoinedItemRow[]).map(withPayout);
}

function maskedRecipient(r: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!r) return null;
  const { type, ...rest } = r;
  return { type, ...maskRecipientDetails(String(type) as RecipientType, rest) };
}

/** The item of `r` (recipient masked; the visible status and failure from its current payout). */
export function toDisbursementItem({ item: r, payout: p }: ItemWithPayout): DisbursementItem {
  const status = itemStatus(r.status, p?.status ?? null);
  const input = (r.input ?? {}) as Record<string, unknown>;
  let failure: DisbursementItem['failure'] = null;
  if (r.status === 'failed') failure = { code: r.failure_code ?? 'failed', message: r.failure_message ?? '' };
  else if (status === 'failed' || status === 'refunded') {
    failure = { code: p?.failureCode ?? p?.status ?? 'failed', message: p?.failureMessage ?? `The payout was ${p?.status ?? null}` };
  }
  const dest = p?.destinationAmount ?? r.destination_amount;
  return {
    id: r.id,
    disbursementId: r.disbursement_id,
    seq: r.seq,
    rowNumber: r.row_number,
    status,
    channel: r.channel,
    sourceAmount: r.source_amount !== null ? usdcMoney(BigInt(r.source_amount)) : null,
    givenSourceAmount: r.source_amount !== null ? null : str(input.source_amount),
    destinationAmount: dest !== null && r.destination_currency ? { minor: BigInt(dest), currency: r.destination_currency } : null,
    destinationCurrency: r.destination_currency,
    rate: r.rate,
    fees:
      r.fee_total !== null
        ? { provider: BigInt(r.fee_provider ?? 0n), service: BigInt(r.fee_service ?? 0n), fxSpread: BigInt(r.fee_fx_spread ?? 0n), total: BigInt(r.fee_total) }
        : null,
    debitTotal: r.debit_total !== null ? usdcMoney(BigInt(r.debit_total)) : null,
    recipientId: r.recipient_id,
    recipient: maskedRecipient(r.recipient),
    recipientType: r.recipient_type,
    reference: r.reference,
    memo: r.memo,
    reviewReasons: r.review_reasons ?? [],
    payoutId: r.payout_id,
    attempts: r.attempt,
    failure,
    providerReference: p?.providerReference ?? null,
    deliveredAt: p?.deliveredAt ?? null,
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  };
}

/** Filters and page of `GET /disbursements/{id}/items`: visible status, limit 1..200, cursor. */
export interface ListItemsQuery {
  status?: DisbursementItemStatus;
  limit: number;
  cursor?: string;
}

/** SQL condition selecting items of a visible status. */
function statusCondition(status: DisbursementItemStatus) {
  switch (status) {
    case 'needs_review':
    case 'ready':
    case 'pending':
      return sql<boolean>`i.status = ${status}`;
    case 'processing':
      return sql<boolean>`i.status = 'launched' and p.status not in ('succeeded','failed','canceled','refunded')`;
    case 'succeeded':
      return sql<boolean>`i.status = 'launched' and p.status = 'succeeded'`;
    case 'failed':
      return sql<boolean>`(i.status = 'failed' or (i.status = 'launched' and p.status in ('failed','canceled')))`;
    case 'refunded':
      return sql<boolean>`i.status = 'launched' and p.status = 'refunded'`;
  }
}

/**
 * `GET /disbursements/{id}/items`: the items in batch order (`seq`), cursor paging (the cursor
 * carries the last seq), optional visible-status filter. 404 for an unknown disbursement; 400
 * validation_error (param `cursor` / `status`).
 */
export async function listItems(core: Core, caller: Caller, id: string, q: ListItemsQuery): Promise<Page<DisbursementItem>> {
  const row = await findRow(core.db, caller, id);
  if (q.status && !DISBURSEMENT_ITEM_STATUSES.includes(q.status)) {
    throw validationError('status', `status must be one of: ${DISBURSEMENT_ITEM_STATUSES.join(', ')}`);
  }
  let afterSeq: number | undefined;
  if (q.cursor) {
    afterSeq = Number(decodeCursor(q.cursor));
    if (!Number.isInteger(afterSeq)) throw fieldValidationError('cursor', 'cursor is not valid; pass next_cursor from a previous page');
  }
  const rows = await readItemsWithPayouts(core.db, row.id, { afterSeq, status: q.status, limit: q.limit + 1 });
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  return { data: page.map(toDisbursementItem), nextCursor: more ? encodeCursor(String(page[page.length - 1].item.seq)) : null };
}

/** One item of `disbursementId` with its payout; 404 not_found (param `item_id`) otherwise. */
export async function getItemRow(db: DbOrTx, disbursementId: string, itemId: string): Promise<ItemWithPayout> {
  const [row] = await readItemsWithPayouts(db, disbursementId, { itemId });
  if (!row) throw notFound('disbursement item', itemId, 'item_id');
  return row;
}
