/**
 * Batch disbursements (spec "Disbursement (Surface A)", "Disbursement status", Surface A
 * `/disbursements*`; issue 4; docs/disbursements.md). A disbursement is prepared (items created or
 * imported, each reviewed), approved by a key other than its submitter, launched (the batch total
 * is held and the disbursement workflow starts), and run by workflows/disbursement.ts, which turns
 * each ready item into a payout (src/core/payouts.ts) started as a child payoutWorkflow.
 *
 * State machine: src/domain/disbursement-state.ts. Every operation locks the disbursement row
 * (SELECT … FOR UPDATE), checks the table, and writes the projection, postings and events in one
 * transaction (DESIGN rules 2, 3).
 *
 * Money (src/core/ledger.ts; amounts are micro-USDC, the debit totals of the items):
 * | posting                                        | movement           | when                                           |
 * |------------------------------------------------|--------------------|------------------------------------------------|
 * | `disbursement:{id}:hold:{revision_id}`         | available -> held  | launch: the sum of the ready items' debit_total |
 * | `disbursement_item:{item}:retry:{n}:hold`      | available -> held  | retry-failed: attempt n of a failed item        |
 * | `disbursement_item:{item}:attempt:{n}:release` | held -> available  | attempt n failed before its payout existed      |
 * | `disbursement_item:{item}:attempt:{n}:topup` / `:excess` | available -> held / held -> available | the fee of attempt n changed since review |
 * | `payout:{id}:settle` / `:release` / `:refund`  | (src/core/payouts.ts) | each item's payout (funding 'batch')        |
 * So after a batch: held returns to 0, and available = before - the debit totals of the succeeded items.
 *
 * Per-item results live in the payout projection: an item whose current attempt has a payout shows
 * that payout's status (itemStatus in the domain module); summaries are SQL aggregates.
 */
import { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse/sync';
import { stringify } from 'csv-stringify';
import { type Selectable, sql } from 'kysely';
import type { DbOrTx } from '../db/schema';
import type { DisbursementItemsTable, DisbursementsTable, ReviewReason } from '../db/tables/disbursements';
import { channelAcceptsRecipientType, findChannel, RECIPIENT_TYPES, type RecipientType } from '../domain/channels';
import {
  assertCanApply,
  completionStatus,
  DISBURSEMENT_ITEM_STATUSES,
  type DisbursementItemStatus,
  type DisbursementStatus,
  draftingStatus,
  DRAFTING_STATUSES,
  itemStatus,
  LAUNCHED_STATUSES,
  statusAfterApproval,
} from '../domain/disbursement-state';
import { ApiError, notFound, validationError } from '../domain/errors';
import { newId } from '../domain/ids';
import { formatAmount, parseAmount, USDC } from '../domain/money';
import { RETRYABLE_FAILURE_CODES } from '../domain/payout-state';
import { type InlineRecipient, maskRecipientDetails } from '../domain/recipients';
import { decodeCursor, encodeCursor, type ListEnvelope } from '../api/pagination';
import {
  DISBURSEMENT_WORKFLOW_TYPE,
  type ClaimedItem,
  type ClaimResult,
  type DisbursementWorkflowInput,
  type FinalizeResult,
} from '../../workflows/disbursement.contract';
import {
  type DisbursementSignal,
  isDisbursementRunRunning,
  signalDisbursementRun,
  signalWithStartDisbursementRun,
} from '../temporal/disbursement-gateway';
import { taskQueueFor } from '../temporal/task-queues';
import type { Caller, Core } from './context';
import { emitEvent } from './events';
import { getBalance, InsufficientFundsError, insufficientBalance, post } from './ledger';
import { insertPayout, type PayoutRequest, payoutStart, type PreparedPayout, preparePayout } from './payouts';
import { enqueueWorkflowStart, flushWorkflowStart, type PendingStart } from './workflow-starts';

/** Largest number of items in one disbursement (spec "Limits": up to 5,000). */
export const MAX_ITEMS = 5000;
/** Largest name. */
export const MAX_NAME_LENGTH = 200;
/** Largest CSV file accepted by the import, in bytes (413 payload_too_large above). */
export const MAX_CSV_BYTES = 5 * 1024 * 1024;
/** Rows per INSERT statement (keeps each statement well under PostgreSQL's 65,535 parameters). */
const INSERT_CHUNK = 500;

/** A stored disbursement row. */
export type DisbursementRow = Selectable<DisbursementsTable>;
/** A stored item row. */
export type DisbursementItemRow = Selectable<DisbursementItemsTable>;

// ---------------------------------------------------------------------------------------------
// Items: input and review

/**
 * One item as given (spec "Disbursement" item fields: channel and source_amount required, exactly
 * one of recipient_id / recipient, reference, memo). Values are unknown until reviewed: a bad value
 * makes the item `needs_review`, never the whole request fail.
 */
export interface DisbursementItemInput {
  channel?: unknown;
  source_amount?: unknown;
  recipient_id?: unknown;
  recipient?: unknown;
  reference?: unknown;
  memo?: unknown;
}

/** An item after review: what is stored. Amounts micro-USDC (destination: minor units of its currency). */
interface ReviewedItem {
  input: DisbursementItemInput & Record<string, unknown>;
  rowNumber: number | null;
  source: 'api' | 'csv';
  status: 'ready' | 'needs_review';
  reasons: ReviewReason[];
  channel: string | null;
  sourceAmount: bigint | null;
  recipientId: string | null;
  recipient: Record<string, unknown> | null;
  recipientType: string | null;
  recipientKey: string | null;
  reference: string | null;
  memo: string | null;
  prepared: PreparedPayout | null;
}

/** A draft to review: the input, where it came from, and reasons found before review (CSV errors). */
interface Draft {
  input: DisbursementItemInput & Record<string, unknown>;
  rowNumber: number | null;
  source: 'api' | 'csv';
  /** Param prefix of review errors (`items.3.` for JSON items). */
  prefix: string;
  /** Reasons found while reading the row (CSV parse errors). */
  preReasons?: ReviewReason[];
  /** Choose the channel from a saved recipient's single channel when none is given (CSV import). */
  inferChannel?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** JSON with sorted keys: a stable identity for the duplicate_recipient warning. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

/** A review reason from anything preparePayout throws (unknown errors are bugs: re-thrown). */
function reasonOf(err: unknown): ReviewReason {
  if (err instanceof ApiError) return { code: err.code, message: err.message, param: err.param };
  throw err;
}

/** The PayoutRequest of an item input (wire snake_case -> core). Non-string values pass through for preparePayout to refuse. */
function payoutRequestOf(input: DisbursementItemInput, channel: string | null): PayoutRequest {
  const req: PayoutRequest = { channel: channel as string };
  if (input.recipient_id !== undefined && input.recipient_id !== null) req.recipientId = input.recipient_id as string;
  if (input.recipient !== undefined && input.recipient !== null) req.recipient = input.recipient as InlineRecipient;
  if (input.source_amount !== undefined && input.source_amount !== null) req.sourceAmount = input.source_amount as string;
  if (input.reference !== undefined && input.reference !== null) req.reference = input.reference as string;
  if (input.memo !== undefined && input.memo !== null) req.memo = input.memo as string;
  return req;
}

/** The PayoutRequest of a stored item (its reviewed fields). */
function itemRequest(it: DisbursementItemRow): PayoutRequest {
  return payoutRequestOf(
    {
      recipient_id: it.recipient_id,
      recipient: it.recipient,
      source_amount: it.source_amount !== null ? usdc(it.source_amount) : undefined,
      reference: it.reference,
      memo: it.memo,
    },
    it.channel,
  );
}

type SavedRecipient = { id: string; type: string; details: Record<string, unknown>; status: string; channels: string[] };

/** Saved recipients named by the drafts, in ONE query (the review never queries per item). */
async function prefetchRecipients(db: DbOrTx, caller: Caller, drafts: Draft[]): Promise<Map<string, SavedRecipient>> {
  const ids = [...new Set(drafts.map((d) => d.input.recipient_id).filter((v): v is string => typeof v === 'string' && v.length > 0))];
  const out = new Map<string, SavedRecipient>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db
      .selectFrom('recipients')
      .select(['id', 'type', 'details', 'status', 'channels'])
      .where('business_id', '=', caller.businessId)
      .where('environment', '=', caller.environment)
      .where('deleted_at', 'is', null)
      .where('id', 'in', ids.slice(i, i + 1000))
      .execute();
    for (const r of rows) out.set(r.id, r as SavedRecipient);
  }
  return out;
}

/**
 * Reviews drafts before any money moves (spec "Disbursement" rule 1): each becomes `ready` (priced
 * by preparePayout) or `needs_review` with the reasons ({code, message, param}: the ApiError
 * preparePayout threw, params prefixed by the draft's prefix). A saved recipient found by the one
 * prefetch query and payable on the channel is reviewed as its stored details (pure, no query);
 * anything else goes through preparePayout with the id, which reports the precise error.
 */
async function reviewDrafts(core: Core, caller: Caller, drafts: Draft[]): Promise<ReviewedItem[]> {
  const saved = await prefetchRecipients(core.db, caller, drafts);
  const out: ReviewedItem[] = [];
  for (const d of drafts) {
    const input = d.input;
    const recipientId = str(input.recipient_id);
    const savedRecipient = recipientId ? saved.get(recipientId) : undefined;
    let channel = str(input.channel);
    if (!channel && d.inferChannel && savedRecipient && savedRecipient.channels.length === 1) channel = savedRecipient.channels[0];
    const recipient = isObject(input.recipient) ? input.recipient : null;
    const reasons: ReviewReason[] = [...(d.preReasons ?? [])];
    let prepared: PreparedPayout | null = null;

    if (reasons.length === 0) {
      try {
        const def = channel ? findChannel(channel) : undefined;
        const fast =
          savedRecipient &&
          def &&
          input.recipient === undefined &&
          savedRecipient.status === 'ready' &&
          channelAcceptsRecipientType(def, savedRecipient.type as RecipientType) &&
          savedRecipient.channels.includes(def.id);
        const req = payoutRequestOf(input, channel);
        if (fast && savedRecipient) {
          // Same checks preparePayout makes for a saved recipient, done on the prefetched row.
          const inline = { ...savedRecipient.details, type: savedRecipient.type } as InlineRecipient;
          const p = await preparePayout(core, caller, { ...req, recipientId: undefined, recipient: inline }, { paramPrefix: d.prefix });
          prepared = { ...p, recipientId: savedRecipient.id, recipientType: savedRecipient.type as RecipientType, recipientDetails: savedRecipient.details };
        } else {
          prepared = await preparePayout(core, caller, req, { paramPrefix: d.prefix });
        }
      } catch (err) {
        reasons.push(reasonOf(err));
      }
    }

    let sourceAmount: bigint | null = prepared?.price.sourceAmount ?? null;
    if (sourceAmount === null && typeof input.source_amount === 'string') {
      try {
        sourceAmount = parseAmount(input.source_amount, USDC);
      } catch {
        sourceAmount = null;
      }
    }
    const rawType = savedRecipient?.type ?? (recipient && typeof recipient.type === 'string' ? recipient.type : null);
    const recipientType = prepared?.recipientType ?? (rawType && (RECIPIENT_TYPES as readonly string[]).includes(rawType) ? rawType : null);
    let recipientKey: string | null = null;
    if (recipientId) recipientKey = `id:${recipientId}`;
    else if (prepared) recipientKey = `${prepared.recipientType}:${stableJson(prepared.recipientDetails)}`;
    else if (recipient) recipientKey = `${String(recipient.type)}:${stableJson({ ...recipient, type: undefined })}`;

    out.push({
      input,
      rowNumber: d.rowNumber,
      source: d.source,
      status: reasons.length ? 'needs_review' : 'ready',
      reasons,
      channel,
      sourceAmount,
      recipientId,
      recipient,
      recipientType,
      recipientKey,
      reference: str(input.reference),
      memo: str(input.memo),
      prepared: reasons.length ? null : prepared,
    });
  }
  return out;
}

/** The stored columns of a reviewed item (review fields only). */
function reviewColumns(r: ReviewedItem) {
  const p = r.prepared?.price;
  return {
    input: JSON.stringify(r.input) as any,
    channel: r.channel,
    source_amount: r.sourceAmount,
    recipient_id: r.recipientId,
    recipient: (r.recipient ? JSON.stringify(r.recipient) : null) as any,
    recipient_type: r.recipientType,
    recipient_key: r.recipientKey,
    reference: r.reference,
    memo: r.memo,
    review_reasons: JSON.stringify(r.reasons) as any,
    destination_amount: p?.destinationAmount ?? null,
    destination_currency: p?.destinationCurrency ?? null,
    rate: p?.rate ?? null,
    fee_provider: p?.fees.provider ?? null,
    fee_service: p?.fees.service ?? null,
    fee_fx_spread: p?.fees.fxSpread ?? null,
    fee_total: p?.fees.total ?? null,
    debit_total: p?.debitTotal ?? null,
  };
}

/** Inserts reviewed items after `firstSeq - 1`, in chunks of {@link INSERT_CHUNK} rows. */
async function insertItems(tx: DbOrTx, caller: Caller, disbursementId: string, items: ReviewedItem[], firstSeq: number, now: Date) {
  for (let i = 0; i < items.length; i += INSERT_CHUNK) {
    const chunk = items.slice(i, i + INSERT_CHUNK);
    await tx
      .insertInto('disbursement_items')
      .values(
        chunk.map((r, j) => ({
          id: newId('dsi'),
          disbursement_id: disbursementId,
          business_id: caller.businessId,
          environment: caller.environment,
          seq: firstSeq + i + j,
          row_number: r.rowNumber,
          source: r.source,
          ...reviewColumns(r),
          status: r.status,
          payout_id: null,
          attempt: 0,
          claim_seq: null,
          failure_code: null,
          failure_message: null,
          corrected: false,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
  }
}

// ---------------------------------------------------------------------------------------------
// Reading: the Disbursement and its items

/** Spec "Disbursement (Surface A)" plus the documented extensions. Amounts are USDC decimal strings. */
export interface WireDisbursement {
  id: string;
  object: 'disbursement';
  name: string;
  status: DisbursementStatus;
  revision_id: string;
  summary: {
    item_count: number;
    /** Items that passed review (before launch: ready; after: every item not needing review). */
    ready: number;
    needs_review: number;
    /** Sum over the items that passed review. */
    total_source_amount: string;
    total_fees: string;
    by_type: Record<string, number>;
    warnings: { code: 'duplicate_recipient'; item_ids: string[] }[];
  };
  /** Before launch: what launch holds. Once launched: what retry-failed would hold. */
  balance_check: { required: string; available: string; ok: boolean };
  approval: {
    required: number;
    /** Distinct keys that approved the current revision. */
    received: number;
    revision_id: string | null;
    submitted_by: string | null;
    approved: boolean;
  };
  /** Item counts once launched (null before). */
  progress: { pending: number; processing: number; succeeded: number; failed: number; refunded: number } | null;
  rejection: { reason: string | null; rejected_at: string } | null;
  created_at: string;
  submitted_at: string | null;
  launched_at: string | null;
  completed_at: string | null;
}

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);
const usdc = (v: bigint) => formatAmount(v, USDC);
const n = (v: unknown) => Number(v ?? 0);
const big = (v: unknown) => (v === null || v === undefined ? 0n : BigInt(v as string | bigint));

/** Counts of an item set by visible status, with money sums (one aggregate query). */
async function itemAggregates(db: DbOrTx, disbursementId: string) {
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
async function retryCandidates(db: DbOrTx, disbursementId: string) {
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
async function approvalsReceived(db: DbOrTx, disbursementId: string, revisionId: string): Promise<number> {
  const r = await db
    .selectFrom('disbursement_approvals')
    .select((eb) => eb.fn.count<string>('key_id').distinct().as('c'))
    .where('disbursement_id', '=', disbursementId)
    .where('revision_id', '=', revisionId)
    .where('decision', '=', 'approve')
    .executeTakeFirst();
  return n(r?.c);
}

async function approvalsRequired(db: DbOrTx, businessId: string): Promise<number> {
  const b = await db.selectFrom('businesses').select('approvals_required').where('id', '=', businessId).executeTakeFirst();
  return b?.approvals_required ?? 1;
}

/** Renders a disbursement row with its summary (SQL aggregates; no item is loaded into JS). */
async function renderDisbursement(db: DbOrTx, row: DisbursementRow): Promise<WireDisbursement> {
  const agg = await itemAggregates(db, row.id);
  const byType = await db
    .selectFrom('disbursement_items')
    .select(['recipient_type', (eb) => eb.fn.countAll<string>().as('c')])
    .where('disbursement_id', '=', row.id)
    .where('recipient_type', 'is not', null)
    .groupBy('recipient_type')
    .orderBy('recipient_type')
    .execute();
  const dups = await sql<{ item_ids: string[] }>`
    select array_agg(id order by seq) as item_ids from disbursement_items
    where disbursement_id = ${row.id} and recipient_key is not null
    group by recipient_key having count(*) > 1 order by min(seq)`.execute(db);
  const balance = await getBalance(db, row.business_id, row.environment);
  const launched = (LAUNCHED_STATUSES as readonly string[]).includes(row.status);
  let required = agg.readyDebit;
  if (launched) required = agg.failed > 0 ? (await retryCandidates(db, row.id)).reduce((s, c) => s + c.debitTotal, 0n) : 0n;
  const needed = await approvalsRequired(db, row.business_id);
  const received = await approvalsReceived(db, row.id, row.revision_id);
  return {
    id: row.id,
    object: 'disbursement',
    name: row.name,
    status: row.status as DisbursementStatus,
    revision_id: row.revision_id,
    summary: {
      item_count: agg.itemCount,
      ready: agg.itemCount - agg.needsReview,
      needs_review: agg.needsReview,
      total_source_amount: usdc(agg.totalSource),
      total_fees: usdc(agg.totalFees),
      by_type: Object.fromEntries(byType.map((t) => [t.recipient_type as string, n(t.c)])),
      warnings: dups.rows.map((d) => ({ code: 'duplicate_recipient' as const, item_ids: d.item_ids })),
    },
    balance_check: { required: usdc(required), available: usdc(balance.available), ok: balance.available >= required },
    approval: {
      required: needed,
      received,
      revision_id: row.revision_id,
      submitted_by: row.submitted_by_key_id,
      approved: needed === 0 || row.approved_revision_id === row.revision_id,
    },
    progress: launched
      ? { pending: agg.pending, processing: agg.processing, succeeded: agg.succeeded, failed: agg.failed, refunded: agg.refunded }
      : null,
    rejection: row.rejected_at ? { reason: row.last_rejection_reason, rejected_at: iso(row.rejected_at) as string } : null,
    created_at: iso(row.created_at) as string,
    submitted_at: iso(row.submitted_at),
    launched_at: iso(row.launched_at),
    completed_at: iso(row.completed_at),
  };
}

/** The disbursement in the caller's business and environment; 404 not_found (param `id`) otherwise. */
async function findRow(db: DbOrTx, caller: Caller, id: string, lock = false): Promise<DisbursementRow> {
  let q = db
    .selectFrom('disbursements')
    .selectAll()
    .where('id', '=', id)
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment);
  if (lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw notFound('disbursement', id);
  return row;
}

/** `GET /disbursements/{id}`: the Disbursement with its review summary. 404 not_found for an unknown or other tenant's id. */
export async function getDisbursement(core: Core, caller: Caller, id: string): Promise<WireDisbursement> {
  return renderDisbursement(core.db, await findRow(core.db, caller, id));
}

/** An item on the wire (documented extension: the spec does not show the item record). */
export interface WireDisbursementItem {
  id: string;
  object: 'disbursement_item';
  disbursement_id: string;
  seq: number;
  /** CSV line (header = 1) for imported items, else null. */
  row_number: number | null;
  status: DisbursementItemStatus;
  channel: string | null;
  source_amount: string | null;
  source_currency: 'USDC';
  destination_amount: string | null;
  destination_currency: string | null;
  rate: string | null;
  fees: { provider: string; service: string; fx_spread: string; total: string; currency: 'USDC' } | null;
  /** source_amount + fees: this item's share of the batch hold. */
  debit_total: string | null;
  recipient_id: string | null;
  /** Inline recipient, bank and identity fields masked. */
  recipient: Record<string, unknown> | null;
  recipient_type: string | null;
  reference: string | null;
  memo: string | null;
  review_reasons: ReviewReason[];
  /** Payout of the current attempt. */
  payout_id: string | null;
  /** Attempts made for this item (retry-failed adds one). */
  attempts: number;
  failure: { code: string; message: string } | null;
  provider_reference: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

/** An item row joined with its current payout's result columns. */
type ItemWithPayout = DisbursementItemRow & {
  p_status: string | null;
  p_failure_code: string | null;
  p_failure_message: string | null;
  p_provider_reference: string | null;
  p_delivered_at: Date | null;
  p_destination_amount: bigint | null;
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

function maskedRecipient(r: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!r) return null;
  const { type, ...rest } = r;
  return { type, ...maskRecipientDetails(String(type) as RecipientType, rest) };
}

/** Renders an item (amounts as decimal strings; recipient masked). */
function renderItem(r: ItemWithPayout): WireDisbursementItem {
  const status = itemStatus(r.status, r.p_status);
  const input = (r.input ?? {}) as Record<string, unknown>;
  let failure: WireDisbursementItem['failure'] = null;
  if (r.status === 'failed') failure = { code: r.failure_code ?? 'failed', message: r.failure_message ?? '' };
  else if (status === 'failed' || status === 'refunded') {
    failure = { code: r.p_failure_code ?? r.p_status ?? 'failed', message: r.p_failure_message ?? `The payout was ${r.p_status}` };
  }
  const dest = r.p_destination_amount ?? r.destination_amount;
  return {
    id: r.id,
    object: 'disbursement_item',
    disbursement_id: r.disbursement_id,
    seq: r.seq,
    row_number: r.row_number,
    status,
    channel: r.channel,
    source_amount: r.source_amount !== null ? usdc(r.source_amount) : str(input.source_amount),
    source_currency: 'USDC',
    destination_amount: dest !== null && r.destination_currency ? formatAmount(dest, r.destination_currency) : null,
    destination_currency: r.destination_currency,
    rate: r.rate,
    fees:
      r.fee_total !== null
        ? {
            provider: usdc(r.fee_provider ?? 0n),
            service: usdc(r.fee_service ?? 0n),
            fx_spread: usdc(r.fee_fx_spread ?? 0n),
            total: usdc(r.fee_total),
            currency: 'USDC',
          }
        : null,
    debit_total: r.debit_total !== null ? usdc(r.debit_total) : null,
    recipient_id: r.recipient_id,
    recipient: maskedRecipient(r.recipient),
    recipient_type: r.recipient_type,
    reference: r.reference,
    memo: r.memo,
    review_reasons: r.review_reasons ?? [],
    payout_id: r.payout_id,
    attempts: r.attempt,
    failure,
    provider_reference: r.p_provider_reference,
    delivered_at: iso(r.p_delivered_at),
    created_at: iso(r.created_at) as string,
    updated_at: iso(r.updated_at) as string,
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
export async function listItems(core: Core, caller: Caller, id: string, q: ListItemsQuery): Promise<ListEnvelope<WireDisbursementItem>> {
  const row = await findRow(core.db, caller, id);
  if (q.status && !DISBURSEMENT_ITEM_STATUSES.includes(q.status)) {
    throw validationError('status', `status must be one of: ${DISBURSEMENT_ITEM_STATUSES.join(', ')}`);
  }
  let query = itemsWithPayouts(core.db).where('i.disbursement_id', '=', row.id);
  if (q.cursor) {
    const after = Number(decodeCursor(q.cursor));
    if (!Number.isInteger(after)) throw validationError('cursor', 'cursor is not valid; pass next_cursor from a previous page');
    query = query.where('i.seq', '>', after);
  }
  if (q.status) query = query.where(statusCondition(q.status));
  const rows = (await query.orderBy('i.seq').limit(q.limit + 1).execute()) as ItemWithPayout[];
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  return { data: page.map(renderItem), next_cursor: more ? encodeCursor(String(page[page.length - 1].seq)) : null };
}

async function getItemRow(db: DbOrTx, disbursementId: string, itemId: string): Promise<ItemWithPayout> {
  const row = (await itemsWithPayouts(db)
    .where('i.disbursement_id', '=', disbursementId)
    .where('i.id', '=', itemId)
    .executeTakeFirst()) as ItemWithPayout | undefined;
  if (!row) throw notFound('disbursement item', itemId, 'item_id');
  return row;
}

// ---------------------------------------------------------------------------------------------
// Creating and importing

/**
 * `POST /disbursements`: creates a disbursement with up to {@link MAX_ITEMS} items (an empty list
 * is allowed: items can be imported from CSV afterwards). Every item is reviewed before anything is
 * stored; the status is draft / needs_review / ready. One transaction, items inserted in chunks.
 * 400 validation_error: blank or long name (`name`), more than 5,000 items (`items`).
 * With an idempotency key that already created a disbursement, returns that one.
 */
export async function createDisbursement(
  core: Core,
  caller: Caller,
  input: { name: string; items?: DisbursementItemInput[] },
  opts: { idempotencyKey?: string } = {},
): Promise<WireDisbursement> {
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name) throw validationError('name', 'name is required');
  if (name.length > MAX_NAME_LENGTH) throw validationError('name', `name must be at most ${MAX_NAME_LENGTH} characters`);
  const items = input.items ?? [];
  if (items.length > MAX_ITEMS) {
    throw validationError('items', `A disbursement has at most ${MAX_ITEMS} items; got ${items.length}`);
  }
  if (opts.idempotencyKey) {
    const existing = await core.db
      .selectFrom('disbursements')
      .selectAll()
      .where('business_id', '=', caller.businessId)
      .where('environment', '=', caller.environment)
      .where('idempotency_key', '=', opts.idempotencyKey)
      .executeTakeFirst();
    if (existing) return renderDisbursement(core.db, existing);
  }
  const reviewed = await reviewDrafts(
    core,
    caller,
    items.map((it, i) => ({ input: { ...(it as Record<string, unknown>) }, rowNumber: null, source: 'api', prefix: `items.${i}.` })),
  );
  const id = newId('dsb');
  const now = core.now();
  const needsReview = reviewed.filter((r) => r.status === 'needs_review').length;
  return core.db.transaction().execute(async (tx) => {
    const row = await tx
      .insertInto('disbursements')
      .values({
        id,
        business_id: caller.businessId,
        environment: caller.environment,
        name,
        status: draftingStatus({ items: reviewed.length, needsReview }),
        revision_id: newId('rev'),
        revision_number: 1,
        revision_created_by_key_id: caller.keyId,
        approved_revision_id: null,
        launched_revision_id: null,
        created_by_key_id: caller.keyId,
        submitted_by_key_id: null,
        submitted_at: null,
        launched_by_key_id: null,
        idempotency_key: opts.idempotencyKey ?? null,
        item_count: reviewed.length,
        retry_round: 0,
        last_rejection_reason: null,
        rejected_at: null,
        launched_at: null,
        paused_at: null,
        completed_at: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await insertItems(tx, caller, id, reviewed, 1, now);
    return renderDisbursement(tx, row);
  });
}

/** Optional CSV columns (spec "CSV formats"), plus `channel` (extension). */
const CSV_COLUMNS = [
  'recipient',
  'amount',
  'memo',
  'reference',
  'type',
  'channel',
  'pagomovil_bank_code',
  'pagomovil_national_id',
  'pagomovil_holder_name',
  'pagomovil_dob',
] as const;

/** Default channel of each recipient type in a CSV row without a channel (the type's only channel). */
const DEFAULT_CHANNEL: Partial<Record<RecipientType, string>> = {
  phone: 'claim_link',
  email: 'claim_link',
  pagomovil: 'pagomovil_ves',
  wallet: 'stellar_usdc',
  service_user: 'service_user_usdc',
};

/** Recipient type of a CSV row without a `type`: from the pagomovil columns or the recipient's shape. */
function inferType(recipient: string, row: Record<string, string>): RecipientType | null {
  if (['pagomovil_bank_code', 'pagomovil_national_id', 'pagomovil_holder_name', 'pagomovil_dob'].some((c) => row[c])) {
    return 'pagomovil';
  }
  if (recipient.startsWith('+')) return 'phone';
  if (recipient.startsWith('@')) return 'service_user';
  if (recipient.includes('@')) return 'email';
  if (/^G[A-Z2-7]{55}$/.test(recipient)) return 'wallet';
  return null;
}

/**
 * One CSV record as an item draft (docs/disbursements.md "CSV import"):
 * - `recipient`: a saved recipient id (`rcp_…`), or the inline recipient's identifier (phone in
 *   E.164, e-mail, Stellar address, @handle, or the Pago Móvil phone with the pagomovil_* columns);
 * - `type`: the recipient type (inferred when absent); bank_account rows must use a saved recipient;
 * - `amount` -> source_amount (USDC); `memo`, `reference` as is;
 * - `channel`: the row's column, else the form field when it pays the row's recipient type, else
 *   the type's only channel (saved recipient: the form field, else its only channel).
 */
function csvDraft(row: Record<string, string>, lineNumber: number, formChannel: string | undefined): Draft {
  const v = (k: string) => {
    const s = row[k];
    return typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined;
  };
  const input: DisbursementItemInput & Record<string, unknown> = { csv: row };
  const preReasons: ReviewReason[] = [];
  const recipient = v('recipient');
  const channel = v('channel') ?? formChannel;
  if (v('amount') !== undefined) input.source_amount = v('amount');
  if (v('reference') !== undefined) input.reference = v('reference');
  if (v('memo') !== undefined) input.memo = v('memo');
  if (!recipient) {
    preReasons.push({ code: 'validation_error', message: `Line ${lineNumber}: recipient is required`, param: 'recipient' });
    return { input: { ...input, ...(channel ? { channel } : {}) }, rowNumber: lineNumber, source: 'csv', prefix: '', preReasons };
  }
  if (recipient.startsWith('rcp_')) {
    input.recipient_id = recipient;
    if (channel) input.channel = channel;
    return { input, rowNumber: lineNumber, source: 'csv', prefix: '', inferChannel: true };
  }
  const given = v('type');
  const type = (given ?? inferType(recipient, row)) as RecipientType | null;
  if (!type || !(RECIPIENT_TYPES as readonly string[]).includes(type)) {
    preReasons.push({
      code: 'validation_error',
      message: given
        ? `Line ${lineNumber}: type must be one of ${RECIPIENT_TYPES.join(', ')}`
        : `Line ${lineNumber}: cannot tell the recipient type of '${recipient}'; add a type column`,
      param: 'type',
    });
  } else if (type === 'bank_account') {
    preReasons.push({
      code: 'validation_error',
      message: `Line ${lineNumber}: bank_account rows must name a saved recipient (rcp_…) in the recipient column`,
      param: 'recipient',
    });
  }
  let inline: Record<string, unknown> = { type: type ?? given };
  switch (type) {
    case 'phone':
      inline = { type, number: recipient };
      break;
    case 'email':
      inline = { type, address: recipient };
      break;
    case 'wallet':
      inline = { type, network: 'stellar', address: recipient };
      break;
    case 'service_user':
      inline = { type, handle: recipient };
      break;
    case 'pagomovil':
      inline = {
        type,
        phone_number: recipient,
        ...(v('pagomovil_bank_code') ? { bank_code: v('pagomovil_bank_code') } : {}),
        ...(v('pagomovil_national_id') ? { national_id: v('pagomovil_national_id') } : {}),
        ...(v('pagomovil_holder_name') ? { holder_name: v('pagomovil_holder_name') } : {}),
        ...(v('pagomovil_dob') ? { date_of_birth: v('pagomovil_dob') } : {}),
      };
      break;
    default:
      inline = { type: type ?? given ?? null, identifier: recipient };
  }
  input.recipient = inline;
  // The form's channel is the default when it pays this type; else the type's only channel.
  const rowChannel = v('channel');
  const form = formChannel ? findChannel(formChannel) : undefined;
  const formFits = !form || !type || !(RECIPIENT_TYPES as readonly string[]).includes(type) || channelAcceptsRecipientType(form, type);
  const ch = rowChannel ?? (formChannel && formFits ? formChannel : undefined) ?? (type ? DEFAULT_CHANNEL[type] : undefined);
  if (ch) input.channel = ch;
  return { input, rowNumber: lineNumber, source: 'csv', prefix: '', ...(preReasons.length ? { preReasons } : {}) };
}

/**
 * Parses an item CSV (csv-parse; spec "CSV formats"). Header row required (case-insensitive; unknown
 * columns ignored); recipient and amount columns required (400 validation_error, param `file`).
 * A record the parser cannot read (e.g. more fields than the header) becomes a draft needing review
 * with reason `csv_parse_error` and its line number; empty lines are skipped.
 */
export function parseItemsCsv(text: string, formChannel?: string): Draft[] {
  const drafts: Draft[] = [];
  let header: string[] = [];
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parseCsv(text, {
      bom: true,
      columns: (h: string[]) => {
        header = h.map((c) => String(c).trim().toLowerCase());
        return header;
      },
      info: true,
      skip_empty_lines: true,
      relax_quotes: true,
      relax_column_count_less: true,
      skip_records_with_error: true,
      on_skip: (err: { message?: string; lines?: number } | undefined) => {
        const line = err?.lines ?? 0;
        drafts.push({
          input: {},
          rowNumber: line,
          source: 'csv',
          prefix: '',
          preReasons: [{ code: 'csv_parse_error', message: `Line ${line}: ${err?.message ?? 'unreadable record'}`, param: null }],
        });
      },
    }) as unknown as typeof records;
  } catch (err) {
    throw validationError('file', `The CSV file cannot be read: ${(err as Error).message}`);
  }
  if (header.length === 0) throw validationError('file', 'The CSV file is empty; it needs a header row with recipient and amount');
  for (const required of ['recipient', 'amount']) {
    if (!header.includes(required)) {
      throw validationError('file', `The CSV header lacks the required column '${required}' (columns: ${CSV_COLUMNS.join(', ')})`);
    }
  }
  for (const r of records) drafts.push(csvDraft(r.record, r.info.lines, formChannel));
  return drafts.sort((a, b) => (a.rowNumber ?? 0) - (b.rowNumber ?? 0));
}

/** Locks the row, checks `op`, and gives a new revision when `moneyCritical` (returns the patch). */
function newRevision(row: DisbursementRow, caller: Caller) {
  return { revision_id: newId('rev'), revision_number: row.revision_number + 1, revision_created_by_key_id: caller.keyId };
}

/** Recomputes the drafting status from the items (inside the transaction). */
async function recountDrafting(tx: DbOrTx, id: string): Promise<DisbursementStatus> {
  const agg = await itemAggregates(tx, id);
  return draftingStatus({ items: agg.itemCount, needsReview: agg.needsReview });
}

/**
 * `POST /disbursements/{id}/items/import`: appends the rows of a CSV file (parseItemsCsv) to a
 * drafting disbursement, each reviewed like a JSON item; a new revision. 413 payload_too_large
 * above {@link MAX_CSV_BYTES}; 400 validation_error (`file`) for an unreadable file or more than
 * 5,000 items in all; 409 invalid_state unless drafting; 404 for an unknown disbursement.
 */
export async function importItems(
  core: Core,
  caller: Caller,
  id: string,
  file: { text: string; size: number },
  opts: { channel?: string } = {},
): Promise<WireDisbursement> {
  if (file.size > MAX_CSV_BYTES) {
    throw new ApiError(413, 'payload_too_large', `The CSV file is larger than ${MAX_CSV_BYTES} bytes`, 'file');
  }
  const before = await findRow(core.db, caller, id);
  assertCanApply(before.status as DisbursementStatus, 'import');
  const drafts = parseItemsCsv(file.text, opts.channel?.trim() || undefined);
  if (before.item_count + drafts.length > MAX_ITEMS) {
    throw validationError('file', `A disbursement has at most ${MAX_ITEMS} items; it has ${before.item_count} and the file adds ${drafts.length}`);
  }
  const reviewed = await reviewDrafts(core, caller, drafts);
  const now = core.now();
  return core.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    assertCanApply(row.status as DisbursementStatus, 'import');
    if (row.item_count + reviewed.length > MAX_ITEMS) {
      throw validationError('file', `A disbursement has at most ${MAX_ITEMS} items; it has ${row.item_count} and the file adds ${reviewed.length}`);
    }
    await insertItems(tx, caller, id, reviewed, row.item_count + 1, now);
    const status = await recountDrafting(tx, id);
    const updated = await tx
      .updateTable('disbursements')
      .set({ item_count: row.item_count + reviewed.length, status, updated_at: now, ...(reviewed.length ? newRevision(row, caller) : {}) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return renderDisbursement(tx, updated);
  });
}

// ---------------------------------------------------------------------------------------------
// Editing an item

/** PATCH body: item fields (spec "Item fields on create and update"); null clears reference / memo. */
export interface ItemPatch {
  channel?: unknown;
  source_amount?: unknown;
  recipient_id?: unknown;
  recipient?: unknown;
  reference?: unknown;
  memo?: unknown;
}

/**
 * `PATCH /disbursements/{id}/items/{item_id}`: edits an item and reviews it again.
 * - While drafting or awaiting approval (needs_review / ready items): any field.
 * - Correction mode (processing, paused, completed_with_failures): failed items only; the item is
 *   marked corrected, so retry-failed retries it whatever its failure code.
 * A change to a money-critical field (channel, source_amount, recipient_id / recipient) creates a
 * new revision: approvals of older revisions no longer count (awaiting_approval / approved ->
 * awaiting_approval). Giving recipient clears recipient_id and back.
 * 404 not_found (`id` / `item_id`); 409 invalid_state (disbursement status, or an item that is not
 * editable now).
 */
export async function updateItem(core: Core, caller: Caller, id: string, itemId: string, patch: ItemPatch): Promise<WireDisbursementItem> {
  const current = await findRow(core.db, caller, id);
  const item = await getItemRow(core.db, current.id, itemId);
  const input: DisbursementItemInput & Record<string, unknown> = {
    channel: item.channel ?? undefined,
    source_amount: item.source_amount !== null ? usdc(item.source_amount) : (item.input as Record<string, unknown>).source_amount,
    recipient_id: item.recipient_id ?? undefined,
    recipient: item.recipient ?? undefined,
    reference: item.reference ?? undefined,
    memo: item.memo ?? undefined,
  };
  for (const k of ['channel', 'source_amount', 'reference', 'memo'] as const) {
    if (k in patch) input[k] = patch[k] === null ? undefined : patch[k];
  }
  if ('recipient_id' in patch && patch.recipient_id !== null && patch.recipient_id !== undefined) {
    input.recipient_id = patch.recipient_id;
    if (!('recipient' in patch)) input.recipient = undefined;
  }
  if ('recipient' in patch && patch.recipient !== null && patch.recipient !== undefined) {
    input.recipient = patch.recipient;
    if (!('recipient_id' in patch)) input.recipient_id = undefined;
  }
  for (const k of Object.keys(input)) if (input[k] === undefined) delete input[k];
  const [reviewed] = await reviewDrafts(core, caller, [{ input, rowNumber: item.row_number, source: item.source as 'api' | 'csv', prefix: '' }]);

  const moneyCritical =
    reviewed.channel !== item.channel ||
    reviewed.sourceAmount !== item.source_amount ||
    (reviewed.sourceAmount === null && input.source_amount !== (item.input as Record<string, unknown>).source_amount) ||
    reviewed.recipientId !== item.recipient_id ||
    stableJson(reviewed.recipient) !== stableJson(item.recipient);

  const now = core.now();
  return core.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    const status = row.status as DisbursementStatus;
    const fresh = await getItemRow(tx, row.id, itemId);
    const visible = itemStatus(fresh.status, fresh.p_status);
    const correction = (LAUNCHED_STATUSES as readonly string[]).includes(status);
    if (correction) {
      assertCanApply(status, 'correct_item');
      if (visible !== 'failed') {
        throw new ApiError(409, 'invalid_state', `Item ${itemId} is ${visible}; once launched only failed items can be corrected`, 'item_id', {
          status: visible,
        });
      }
    } else {
      assertCanApply(status, 'edit_item');
    }
    if (fresh.updated_at.getTime() !== item.updated_at.getTime()) {
      throw new ApiError(409, 'invalid_state', `Item ${itemId} changed while this edit was reviewed; send the edit again`, 'item_id');
    }
    const cols = reviewColumns(reviewed);
    await tx
      .updateTable('disbursement_items')
      .set({
        ...cols,
        ...(correction ? { corrected: true } : { status: reviewed.status }),
        updated_at: now,
      })
      .where('id', '=', itemId)
      .execute();
    const set: Record<string, unknown> = { updated_at: now };
    if (moneyCritical) Object.assign(set, newRevision(row, caller));
    if ((DRAFTING_STATUSES as readonly string[]).includes(status)) set.status = await recountDrafting(tx, row.id);
    else if (moneyCritical && (status === 'approved' || status === 'awaiting_approval')) set.status = 'awaiting_approval';
    await tx.updateTable('disbursements').set(set).where('id', '=', row.id).execute();
    return renderItem(await getItemRow(tx, row.id, itemId));
  });
}

// ---------------------------------------------------------------------------------------------
// Approvals

const itemsNeedReview = (count: number) =>
  new ApiError(
    409,
    'items_need_review',
    `${count} item${count === 1 ? '' : 's'} need${count === 1 ? 's' : ''} review; fix or edit them (GET items?status=needs_review) first`,
    null,
    { needs_review: count },
  );

/**
 * `POST /disbursements/{id}/submit-for-approval`: records the submitting key (it may never approve)
 * and moves ready -> awaiting_approval, emitting disbursement.awaiting_approval in the same
 * transaction; with a business that requires no approvals, straight to approved (no event).
 * 409 items_need_review (needs_review), 409 invalid_state (no items, or any other status); 404.
 */
export async function submitForApproval(core: Core, caller: Caller, id: string): Promise<WireDisbursement> {
  return core.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    const status = row.status as DisbursementStatus;
    assertCanApply(status, 'submit');
    const agg = await itemAggregates(tx, id);
    if (agg.itemCount === 0) throw new ApiError(409, 'invalid_state', 'The disbursement has no items; add or import items first', null);
    if (agg.needsReview > 0) throw itemsNeedReview(agg.needsReview);
    const required = await approvalsRequired(tx, row.business_id);
    const now = core.now();
    const updated = await tx
      .updateTable('disbursements')
      .set({
        status: required === 0 ? 'approved' : 'awaiting_approval',
        approved_revision_id: required === 0 ? row.revision_id : row.approved_revision_id,
        submitted_by_key_id: caller.keyId,
        submitted_at: now,
        updated_at: now,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const wire = await renderDisbursement(tx, updated);
    if (required > 0) {
      await emitEvent(tx, {
        businessId: row.business_id,
        environment: row.environment,
        type: 'disbursement.awaiting_approval',
        objectType: 'disbursement',
        objectId: id,
        data: wire as unknown as Record<string, unknown>,
        dedupeKey: `disbursement:${id}:awaiting_approval:${row.revision_id}`,
      });
    }
    return wire;
  });
}

function assertCurrentRevision(row: DisbursementRow, revisionId: string): void {
  if (revisionId !== row.revision_id) {
    throw new ApiError(
      409,
      'stale_revision',
      `Revision ${revisionId} is not the current revision of disbursement ${row.id} (${row.revision_id}); review the changes and decide on the current revision`,
      'revision_id',
      { current_revision_id: row.revision_id },
    );
  }
}

/**
 * `POST /disbursements/{id}/approvals/{revision_id}/approve`: one key's approval of the current
 * revision (the same key twice counts once). Reaching the business's approvals_required moves
 * awaiting_approval -> approved. In correction mode it approves the correction revision.
 * 403 self_approval_forbidden for the submitting key; 409 stale_revision for another revision;
 * 409 items_need_review; 409 invalid_state (status, or nothing awaiting approval); 404.
 */
export async function approveDisbursement(core: Core, caller: Caller, id: string, revisionId: string): Promise<WireDisbursement> {
  return core.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    const status = row.status as DisbursementStatus;
    assertCanApply(status, 'approve');
    assertCurrentRevision(row, revisionId);
    if (row.submitted_by_key_id === caller.keyId) {
      throw new ApiError(
        403,
        'self_approval_forbidden',
        'The key that submitted this disbursement cannot approve it; approve with another key of the business',
        null,
      );
    }
    const launched = (LAUNCHED_STATUSES as readonly string[]).includes(status);
    if (launched && row.approved_revision_id === row.revision_id) {
      throw new ApiError(409, 'invalid_state', `Revision ${row.revision_id} is already approved; nothing awaits approval`, null, { status });
    }
    if (!launched) {
      const agg = await itemAggregates(tx, id);
      if (agg.needsReview > 0) throw itemsNeedReview(agg.needsReview);
    }
    await tx
      .insertInto('disbursement_approvals')
      .values({
        disbursement_id: id,
        business_id: row.business_id,
        environment: row.environment,
        revision_id: revisionId,
        key_id: caller.keyId,
        decision: 'approve',
        reason: null,
      })
      .onConflict((oc) => oc.columns(['disbursement_id', 'revision_id', 'key_id']).where('decision', '=', 'approve').doNothing())
      .execute();
    const received = await approvalsReceived(tx, id, revisionId);
    const required = await approvalsRequired(tx, row.business_id);
    const enough = received >= required;
    const updated = await tx
      .updateTable('disbursements')
      .set({
        status: statusAfterApproval(status, received, required),
        approved_revision_id: enough ? row.revision_id : row.approved_revision_id,
        updated_at: core.now(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return renderDisbursement(tx, updated);
  });
}

/**
 * `POST /disbursements/{id}/approvals/{revision_id}/reject` {reason?}: rejects the current
 * revision: back to drafting (needs_review / ready) with a new revision (the rejected one can no
 * longer be approved); the reason is recorded and shown in `rejection`. 409 stale_revision,
 * 409 invalid_state (not awaiting approval or approved); 404.
 */
export async function rejectDisbursement(
  core: Core,
  caller: Caller,
  id: string,
  revisionId: string,
  reason?: string | null,
): Promise<WireDisbursement> {
  return core.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    assertCanApply(row.status as DisbursementStatus, 'reject');
    assertCurrentRevision(row, revisionId);
    const text = typeof reason === 'string' && reason.trim() ? reason.trim().slice(0, 1000) : null;
    await tx
      .insertInto('disbursement_approvals')
      .values({
        disbursement_id: id,
        business_id: row.business_id,
        environment: row.environment,
        revision_id: revisionId,
        key_id: caller.keyId,
        decision: 'reject',
        reason: text,
      })
      .execute();
    const now = core.now();
    const updated = await tx
      .updateTable('disbursements')
      .set({
        status: await recountDrafting(tx, id),
        ...newRevision(row, caller),
        submitted_by_key_id: null,
        submitted_at: null,
        last_rejection_reason: text,
        rejected_at: now,
        updated_at: now,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return renderDisbursement(tx, updated);
  });
}

// ---------------------------------------------------------------------------------------------
// Launch, pause, resume, retry-failed

/** Tuning of the disbursement workflow (operators and tests; not on the wire). */
export interface RunOptions {
  /** Children in flight at most (default 300). */
  window?: number;
  claimBatch?: number;
  itemsPerRun?: number;
}

function workflowInput(row: DisbursementRow, opts: RunOptions & { paused?: boolean; claimSeq?: number } = {}): DisbursementWorkflowInput {
  return {
    disbursementId: row.id,
    businessId: row.business_id,
    environment: row.environment,
    ...(opts.window !== undefined ? { window: opts.window } : {}),
    ...(opts.claimBatch !== undefined ? { claimBatch: opts.claimBatch } : {}),
    ...(opts.itemsPerRun !== undefined ? { itemsPerRun: opts.itemsPerRun } : {}),
    ...(opts.paused ? { paused: true } : {}),
    ...(opts.claimSeq !== undefined ? { claimSeq: opts.claimSeq } : {}),
  };
}

/** The workflow start of a launched disbursement (id = disbursement id; BusinessId, Environment, DisbursementStatus). */
export function disbursementStart(row: DisbursementRow, opts: RunOptions = {}): PendingStart {
  return {
    workflowType: DISBURSEMENT_WORKFLOW_TYPE,
    workflowId: row.id,
    args: [workflowInput(row, opts)],
    searchAttributes: {
      BusinessId: row.business_id,
      Environment: row.environment,
      DisbursementId: row.id,
      DisbursementStatus: 'processing',
    },
  };
}

const approvalRequired = (received: number, required: number, submitted: boolean) =>
  new ApiError(
    409,
    'approval_required',
    submitted
      ? `The current revision has ${received} of the ${required} approval${required === 1 ? '' : 's'} it needs`
      : `The disbursement needs ${required} approval${required === 1 ? '' : 's'}; submit it for approval first`,
    null,
    { required, received },
  );

/**
 * `POST /disbursements/{id}/launch`. Refused: 409 items_need_review while items need review;
 * 409 approval_required while the current revision lacks approvals; 402 insufficient_balance when
 * the available balance does not cover the sum of the items' debit totals; 409 invalid_state in
 * other statuses; 404. In ONE transaction: hold the batch total (`disbursement:{id}:hold:{rev}`),
 * ready items -> pending (attempt 1), status processing, event disbursement.launched, and the
 * workflow start (flushed after commit; the relay starts it if this process dies first).
 */
export async function launchDisbursement(core: Core, caller: Caller, id: string, opts: RunOptions = {}): Promise<WireDisbursement> {
  const wire = await core.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    const status = row.status as DisbursementStatus;
    assertCanApply(status, 'launch');
    const agg = await itemAggregates(tx, id);
    if (agg.needsReview > 0) throw itemsNeedReview(agg.needsReview);
    if (agg.itemCount === 0) throw new ApiError(409, 'invalid_state', 'The disbursement has no items', null);
    const required = await approvalsRequired(tx, row.business_id);
    if (required > 0) {
      const received = await approvalsReceived(tx, id, row.revision_id);
      if (received < required || row.approved_revision_id !== row.revision_id) {
        throw approvalRequired(received, required, status !== 'ready');
      }
    }
    const total = agg.readyDebit;
    try {
      await post(tx, {
        businessId: row.business_id,
        environment: row.environment,
        key: `disbursement:${id}:hold:${row.revision_id}`,
        from: 'available',
        to: 'held',
        amount: total,
      });
    } catch (err) {
      if (err instanceof InsufficientFundsError) {
        throw insufficientBalance(total, (await getBalance(tx, row.business_id, row.environment)).available);
      }
      throw err;
    }
    const now = core.now();
    await tx
      .updateTable('disbursement_items')
      .set({ status: 'pending', attempt: 1, updated_at: now })
      .where('disbursement_id', '=', id)
      .where('status', '=', 'ready')
      .execute();
    const updated = await tx
      .updateTable('disbursements')
      .set({
        status: 'processing',
        launched_at: now,
        launched_by_key_id: caller.keyId,
        launched_revision_id: row.revision_id,
        updated_at: now,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const out = await renderDisbursement(tx, updated);
    await emitEvent(tx, {
      businessId: row.business_id,
      environment: row.environment,
      type: 'disbursement.launched',
      objectType: 'disbursement',
      objectId: id,
      data: out as unknown as Record<string, unknown>,
      dedupeKey: `disbursement:${id}:launched`,
    });
    await enqueueWorkflowStart(tx, disbursementStart(updated, opts));
    return out;
  });
  try {
    await flushWorkflowStart(core, id);
  } catch (err) {
    core.log.warn({ err, disbursementId: id }, 'disbursement workflow start deferred to the relay');
  }
  return wire;
}

async function signal(core: Core, id: string, sig: DisbursementSignal): Promise<void> {
  try {
    await signalDisbursementRun(core.temporal, id, sig); // no run yet: it reads the projection when it starts
  } catch (err) {
    core.log.warn({ err, disbursementId: id }, 'disbursement signal failed; the workflow re-reads the projection');
  }
}

/**
 * {@link signalWithStart} after the projection committed: if Temporal cannot be reached the
 * change stands, the error is logged, and {@link recoverDisbursementRuns} starts the run later.
 */
async function signalWithStartAfterCommit(core: Core, row: DisbursementRow, sig: DisbursementSignal): Promise<void> {
  try {
    await signalWithStart(core, row, sig);
  } catch (err) {
    core.log.warn({ err, disbursementId: row.id }, 'disbursement signal-with-start failed; the relay restarts the run');
  }
}

/**
 * Signals the workflow, starting a new run if none is running (retry-failed after completion,
 * or a resume whose workflow was lost). The new run's claims are numbered after every earlier one.
 */
async function signalWithStart(core: Core, row: DisbursementRow, sig: DisbursementSignal): Promise<void> {
  const max = await core.db
    .selectFrom('disbursement_items')
    .select((eb) => eb.fn.max('claim_seq').as('m'))
    .where('disbursement_id', '=', row.id)
    .executeTakeFirst();
  const start = disbursementStart(row);
  await signalWithStartDisbursementRun(core.temporal, core.config, {
    disbursementId: row.id,
    input: workflowInput(row, { paused: row.status === 'paused', claimSeq: Number(max?.m ?? -1) + 1 }),
    signal: sig,
    searchAttributes: { ...start.searchAttributes, DisbursementStatus: row.status },
  });
}

/**
 * `POST /disbursements/{id}/pause`: processing -> paused, then signals the workflow: no new item
 * starts; payouts in flight finish. 409 invalid_state otherwise; 404.
 */
export async function pauseDisbursement(core: Core, caller: Caller, id: string): Promise<WireDisbursement> {
  const wire = await core.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    assertCanApply(row.status as DisbursementStatus, 'pause');
    const now = core.now();
    const updated = await tx
      .updateTable('disbursements')
      .set({ status: 'paused', paused_at: now, updated_at: now })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return renderDisbursement(tx, updated);
  });
  await signal(core, id, 'pause');
  return wire;
}

/** `POST /disbursements/{id}/resume`: paused -> processing, then signals the workflow. 409 invalid_state otherwise; 404. */
export async function resumeDisbursement(core: Core, caller: Caller, id: string): Promise<WireDisbursement> {
  const { wire, row } = await core.db.transaction().execute(async (tx) => {
    const r = await findRow(tx, caller, id, true);
    assertCanApply(r.status as DisbursementStatus, 'resume');
    const updated = await tx
      .updateTable('disbursements')
      .set({ status: 'processing', paused_at: null, updated_at: core.now() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { wire: await renderDisbursement(tx, updated), row: updated };
  });
  await signalWithStartAfterCommit(core, row, 'resume');
  return wire;
}

/**
 * `POST /disbursements/{id}/items/retry-failed`: every failed item whose failure code is retryable
 * (RETRYABLE_FAILURE_CODES) or which was corrected since it failed gets a new attempt: its debit
 * total is held again (`disbursement_item:{item}:retry:{n}:hold`), it becomes pending, and the
 * workflow is signalled (or a new run started if it completed). Its next payout is a new one for
 * the new attempt; an item whose payout succeeded is never retried. completed_with_failures ->
 * processing. While processing or paused with items already queued for a retry, it only signals
 * again (recovers a lost signal). 409 invalid_state (status, or no retryable item); 409
 * approval_required (a correction revision awaits approval); 402 insufficient_balance; 404.
 */
export async function retryFailedItems(core: Core, caller: Caller, id: string): Promise<WireDisbursement> {
  const { wire, row } = await core.db.transaction().execute(async (tx) => {
    const r = await findRow(tx, caller, id, true);
    const status = r.status as DisbursementStatus;
    assertCanApply(status, 'retry_failed');
    const required = await approvalsRequired(tx, r.business_id);
    if (required > 0 && r.approved_revision_id !== r.revision_id) {
      throw approvalRequired(await approvalsReceived(tx, id, r.revision_id), required, true);
    }
    const candidates = await retryCandidates(tx, id);
    if (candidates.length === 0 && status !== 'completed_with_failures') {
      // Items queued by an earlier retry whose signal was lost: signal again (below).
      const queued = await itemAggregates(tx, id);
      if (queued.pending > 0) return { wire: await renderDisbursement(tx, r), row: r };
    }
    if (candidates.length === 0) {
      throw new ApiError(
        409,
        'invalid_state',
        `No failed item can be retried: only failures with a retryable code (${RETRYABLE_FAILURE_CODES.join(', ')}) or items corrected since they failed are retried`,
        null,
        { status },
      );
    }
    const total = candidates.reduce((s, c) => s + c.debitTotal, 0n);
    const balance = await getBalance(tx, r.business_id, r.environment);
    if (balance.available < total) throw insufficientBalance(total, balance.available);
    const now = core.now();
    for (const c of candidates) {
      const attempt = c.attempt + 1;
      try {
        await post(tx, {
          businessId: r.business_id,
          environment: r.environment,
          key: `disbursement_item:${c.id}:retry:${attempt}:hold`,
          from: 'available',
          to: 'held',
          amount: c.debitTotal,
        });
      } catch (err) {
        if (err instanceof InsufficientFundsError) throw insufficientBalance(total, balance.available);
        throw err;
      }
    }
    const ids = candidates.map((c) => c.id);
    for (let i = 0; i < ids.length; i += 1000) {
      await tx
        .updateTable('disbursement_items')
        .set((eb) => ({
          status: 'pending',
          attempt: eb('attempt', '+', 1),
          payout_id: null,
          failure_code: null,
          failure_message: null,
          corrected: false,
          updated_at: now,
        }))
        .where('id', 'in', ids.slice(i, i + 1000))
        .execute();
    }
    const updated = await tx
      .updateTable('disbursements')
      .set({
        status: status === 'completed_with_failures' ? 'processing' : status,
        retry_round: r.retry_round + 1,
        completed_at: null,
        updated_at: now,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { wire: await renderDisbursement(tx, updated), row: updated };
  });
  await signalWithStartAfterCommit(core, row, 'retryFailed');
  return wire;
}

// ---------------------------------------------------------------------------------------------
// Results export

/** Columns of the results export, in order (docs/disbursements.md "Results export"). */
export const EXPORT_COLUMNS = [
  'item_id',
  'seq',
  'row_number',
  'reference',
  'status',
  'failure_code',
  'failure_message',
  'channel',
  'recipient_id',
  'recipient_type',
  'recipient',
  'source_amount',
  'source_currency',
  'fees',
  'debit_total',
  'rate',
  'destination_amount',
  'destination_currency',
  'payout_id',
  'provider_reference',
  'onchain_transaction',
  'attempts',
  'rail_attempts',
  'created_at',
  'submitted_at',
  'delivered_at',
] as const;

/** One export row of an item (bank and identity fields masked). */
function exportRow(r: ItemWithPayout): Record<(typeof EXPORT_COLUMNS)[number], string | number | null> {
  const w = renderItem(r);
  const recipient = w.recipient
    ? Object.entries(w.recipient)
        .filter(([k]) => k !== 'type')
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join('; ')
    : null;
  const channel = r.channel ? findChannel(r.channel) : undefined;
  return {
    item_id: w.id,
    seq: w.seq,
    row_number: w.row_number,
    reference: w.reference,
    status: w.status,
    failure_code: w.failure?.code ?? null,
    failure_message: w.failure?.message ?? null,
    channel: w.channel,
    recipient_id: w.recipient_id,
    recipient_type: w.recipient_type,
    recipient,
    source_amount: w.source_amount,
    source_currency: w.source_currency,
    fees: w.fees?.total ?? null,
    debit_total: w.debit_total,
    rate: w.rate,
    destination_amount: w.destination_amount,
    destination_currency: w.destination_currency,
    payout_id: w.payout_id,
    provider_reference: w.provider_reference,
    onchain_transaction: channel?.recipient_type === 'wallet' ? w.provider_reference : null,
    attempts: w.attempts,
    rail_attempts: r.p_attempt_count ?? 0,
    created_at: w.created_at,
    submitted_at: iso(r.p_created_at),
    delivered_at: w.delivered_at,
  };
}

/**
 * `GET /disbursements/{id}/export.csv`: one row per item in batch order ({@link EXPORT_COLUMNS}),
 * streamed through csv-stringify while pages of 500 items are read. 404 for an unknown id.
 * Returns a web ReadableStream of UTF-8 CSV.
 */
export async function exportResultsCsv(core: Core, caller: Caller, id: string): Promise<ReadableStream<Uint8Array>> {
  const row = await findRow(core.db, caller, id);
  async function* rows() {
    let after = 0;
    for (;;) {
      const page = (await itemsWithPayouts(core.db)
        .where('i.disbursement_id', '=', row.id)
        .where('i.seq', '>', after)
        .orderBy('i.seq')
        .limit(500)
        .execute()) as ItemWithPayout[];
      for (const r of page) yield exportRow(r);
      if (page.length < 500) return;
      after = page[page.length - 1].seq;
    }
  }
  const csv = Readable.from(rows()).pipe(stringify({ header: true, columns: [...EXPORT_COLUMNS] }));
  return Readable.toWeb(csv) as unknown as ReadableStream<Uint8Array>;
}

// ---------------------------------------------------------------------------------------------
// Workflow side (called by activities/disbursements.ts)

/** Result of {@link claimItems} (defined by the disbursement workflow's contract). */
export type { ClaimResult };

/**
 * Payout statuses that occupy a slot of the window: on their way through a rail. A claim link
 * waiting (up to 30 days) for its recipient does not, or 300 unclaimed links would stall a batch.
 */
const WINDOW_STATUSES = ['pending', 'submitted', 'claimed', 'delivering'] as const;

function claimedItem(core: Core, row: Parameters<typeof payoutStart>[0], itemId: string): ClaimedItem {
  const s = payoutStart(row);
  return {
    itemId,
    payoutId: row.id,
    workflowType: s.workflowType,
    taskQueue: taskQueueFor(core.config, s.workflowType),
    args: s.args,
    searchAttributes: s.searchAttributes,
  };
}

/**
 * Claim number `claimSeq` of a disbursement's workflow: up to `limit` pending items (batch order)
 * become payouts of their current attempt (insertPayout, funding 'batch', status submitted, no
 * workflow start: the workflow starts each as its child). With `window`, never more than leaves
 * `window` payouts of the batch in flight (statuses {@link WINDOW_STATUSES}, counted in Postgres,
 * so payouts started by an earlier run of the workflow count too; none free: `{full: true}`). Idempotent: a retried claim returns the
 * items it already claimed. Paused (projection) -> `{paused: true}`. An item that can no longer be
 * paid (channel paused, recipient deleted, ...) fails here with that error's code, and its share of
 * the hold is released. If its debit total changed since review, the hold is adjusted first.
 */
export async function claimItems(
  core: Core,
  input: { disbursementId: string; claimSeq: number; limit: number; window?: number },
): Promise<ClaimResult> {
  const { disbursementId, claimSeq } = input;
  const head = await core.db.selectFrom('disbursements').selectAll().where('id', '=', disbursementId).executeTakeFirst();
  if (!head) return { paused: false, more: false, items: [] };
  let limit = Math.max(1, input.limit);
  // A retried claim (same number) returns what it claimed, whatever the window says now.
  const retried =
    input.window !== undefined &&
    (await core.db
      .selectFrom('disbursement_items')
      .select('id')
      .where('disbursement_id', '=', disbursementId)
      .where('claim_seq', '=', claimSeq)
      .limit(1)
      .executeTakeFirst()) !== undefined;
  if (input.window !== undefined && !retried) {
    const { n } = await core.db
      .selectFrom('payouts')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('disbursement_id', '=', disbursementId)
      .where('status', 'in', WINDOW_STATUSES)
      .executeTakeFirstOrThrow();
    limit = Math.min(limit, input.window - Number(n));
    if (limit <= 0) return { paused: head.status === 'paused', more: true, full: true, items: [] };
  }
  const caller: Caller = {
    businessId: head.business_id,
    environment: head.environment,
    keyId: head.launched_by_key_id ?? head.created_by_key_id,
    role: 'member',
    policy: null,
  };
  const candidates = await core.db
    .selectFrom('disbursement_items')
    .selectAll()
    .where('disbursement_id', '=', disbursementId)
    .where('status', '=', 'pending')
    .orderBy('seq')
    .limit(limit)
    .execute();
  // Prepare outside the transaction (read-only; PGlite has one connection).
  const prepared = new Map<string, PreparedPayout | ApiError>();
  for (const it of candidates) {
    try {
      prepared.set(it.id, await preparePayout(core, caller, itemRequest(it)));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      prepared.set(it.id, err);
    }
  }

  return core.db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('disbursements').selectAll().where('id', '=', disbursementId).forUpdate().executeTakeFirstOrThrow();
    const already = await tx
      .selectFrom('disbursement_items as i')
      .innerJoin('payouts as p', 'p.id', 'i.payout_id')
      .select(['i.id as item_id', 'p.id', 'p.business_id', 'p.environment', 'p.status', 'p.channel', 'p.disbursement_id'])
      .where('i.disbursement_id', '=', disbursementId)
      .where('i.claim_seq', '=', claimSeq)
      .where('i.status', '=', 'launched')
      .orderBy('i.seq')
      .execute();
    const pendingLeft = async () =>
      !!(await tx
        .selectFrom('disbursement_items')
        .select('id')
        .where('disbursement_id', '=', disbursementId)
        .where('status', '=', 'pending')
        .limit(1)
        .executeTakeFirst());
    if (already.length > 0) {
      return { paused: false, more: await pendingLeft(), items: already.map((a) => claimedItem(core, { ...a, status: 'submitted' }, a.item_id)) };
    }
    if (row.status === 'paused') return { paused: true, more: true, items: [] };
    if (row.status !== 'processing') return { paused: false, more: false, items: [] };

    const ids = candidates.map((c) => c.id);
    const locked = ids.length
      ? await tx
          .selectFrom('disbursement_items')
          .selectAll()
          .where('id', 'in', ids)
          .where('status', '=', 'pending')
          .orderBy('seq')
          .forUpdate()
          .execute()
      : [];
    const now = core.now();
    const claimed: ClaimedItem[] = [];
    const launchedPairs: { itemId: string; payoutId: string }[] = [];
    // Payouts these items already have (one query): never a second payout for an attempt, nor any
    // payout once one succeeded or is still in flight.
    const priorRows = locked.length
      ? await sql<{ item_id: string; attempt: number | null; status: string }>`
          select disbursement_item_id as item_id, disbursement_attempt as attempt, status from payouts
          where disbursement_item_id in (${sql.join(locked.map((l) => l.id))})`.execute(tx)
      : { rows: [] };
    const blocked = new Set(
      priorRows.rows
        .filter((p) => p.status !== 'failed' && p.status !== 'canceled')
        .map((p) => p.item_id)
        .concat(priorRows.rows.filter((p) => p.attempt !== null && locked.some((l) => l.id === p.item_id && l.attempt === p.attempt)).map((p) => p.item_id)),
    );
    for (const it of locked) {
      const p = prepared.get(it.id);
      const attempt = it.attempt;
      const held = it.debit_total ?? 0n;
      const fail = async (code: string, message: string) => {
        if (held > 0n) {
          await post(tx, {
            businessId: row.business_id,
            environment: row.environment,
            key: `disbursement_item:${it.id}:attempt:${attempt}:release`,
            from: 'held',
            to: 'available',
            amount: held,
          });
        }
        await tx
          .updateTable('disbursement_items')
          .set({ status: 'failed', failure_code: code, failure_message: message, claim_seq: claimSeq, updated_at: now })
          .where('id', '=', it.id)
          .execute();
      };
      if (!p || p instanceof ApiError) {
        await fail(p?.code ?? 'internal_error', p?.message ?? 'The item could not be prepared');
        continue;
      }
      if (blocked.has(it.id)) {
        await fail('duplicate_attempt', `Item ${it.id} already has a payout for attempt ${attempt} or one that did not fail`);
        continue;
      }
      const diff = p.price.debitTotal - held;
      try {
        if (diff !== 0n) {
          await post(tx, {
            businessId: row.business_id,
            environment: row.environment,
            key: `disbursement_item:${it.id}:attempt:${attempt}:${diff > 0n ? 'topup' : 'excess'}`,
            from: diff > 0n ? 'available' : 'held',
            to: diff > 0n ? 'held' : 'available',
            amount: diff > 0n ? diff : -diff,
          });
        }
      } catch (err) {
        if (!(err instanceof InsufficientFundsError)) throw err;
        await fail('insufficient_balance', 'The fee of this item rose since review and the balance does not cover the difference');
        continue;
      }
      const payoutId = newId('po');
      const { row: payout } = await insertPayout(tx, core, caller, p, {
        id: payoutId,
        funding: 'batch',
        status: 'submitted',
        disbursementId,
        disbursementItemId: it.id,
        startWorkflow: false,
      });
      launchedPairs.push({ itemId: it.id, payoutId });
      claimed.push(claimedItem(core, payout, it.id));
    }
    if (launchedPairs.length) {
      const values = sql.join(launchedPairs.map((l) => sql`(${l.itemId}, ${l.payoutId})`));
      await sql`
        update disbursement_items as i
        set status = 'launched', payout_id = v.payout_id, claim_seq = ${claimSeq}, debit_total = p.debit_total,
          fee_total = p.fee_total, destination_amount = p.destination_amount, rate = p.rate, updated_at = ${now}
        from (values ${values}) as v(item_id, payout_id), payouts p
        where i.id = v.item_id and p.id = v.payout_id`.execute(tx);
      await sql`
        update payouts as p set disbursement_attempt = i.attempt
        from disbursement_items i
        where i.payout_id = p.id and p.id in (${sql.join(launchedPairs.map((l) => l.payoutId))})`.execute(tx);
    }
    return { paused: false, more: await pendingLeft(), items: claimed };
  });
}

/** Result of {@link finalizeDisbursement} (defined by the disbursement workflow's contract). */
export type { FinalizeResult };

/**
 * When every item is final: completed (all succeeded) or completed_with_failures, with the event of
 * the same name (dedupe per retry round), in one transaction that locks the disbursement (so a
 * concurrent retry-failed either comes first and is seen here, or comes after and finds the final
 * status). Otherwise reports what is left. Idempotent.
 */
export async function finalizeDisbursement(core: Core, input: { disbursementId: string }): Promise<FinalizeResult> {
  return core.db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('disbursements').selectAll().where('id', '=', input.disbursementId).forUpdate().executeTakeFirstOrThrow();
    if (row.status === 'completed' || row.status === 'completed_with_failures') return { done: true, status: row.status };
    const agg = await itemAggregates(tx, row.id);
    if (agg.pending > 0 || agg.processing > 0 || agg.ready > 0) {
      return { done: false, paused: row.status === 'paused', pending: agg.pending, processing: agg.processing };
    }
    assertCanApply(row.status as DisbursementStatus, 'complete');
    const status = completionStatus(agg.failed + agg.refunded);
    const now = core.now();
    const updated = await tx
      .updateTable('disbursements')
      .set({ status, completed_at: now, paused_at: null, updated_at: now })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await emitEvent(tx, {
      businessId: row.business_id,
      environment: row.environment,
      type: `disbursement.${status}`,
      objectType: 'disbursement',
      objectId: row.id,
      data: (await renderDisbursement(tx, updated)) as unknown as Record<string, unknown>,
      dedupeKey: `disbursement:${row.id}:${status}:${row.retry_round}`,
    });
    return { done: true, status };
  });
}

/**
 * Relay recovery: every `processing` disbursement not changed for `olderThanMs` (default 30 s)
 * whose workflow is not running (closed, or never started) gets its run back by
 * signal-with-start (`retryFailed`, which only makes the run look for pending items). This covers
 * a retry-failed or resume whose signal-with-start failed after its commit (Temporal unreachable)
 * and a run that failed. Idempotent: a run that finds nothing left completes again without a
 * second event (the completion event is deduplicated per retry round). Returns how many runs it
 * started. Errors of one disbursement are logged and do not stop the others.
 */
export async function recoverDisbursementRuns(core: Core, opts: { olderThanMs?: number } = {}): Promise<number> {
  const before = new Date(core.now().getTime() - (opts.olderThanMs ?? 30_000));
  const rows = await core.db
    .selectFrom('disbursements')
    .selectAll()
    .where('status', '=', 'processing')
    .where('updated_at', '<=', before)
    .execute();
  let started = 0;
  for (const row of rows) {
    try {
      if (await isDisbursementRunRunning(core.temporal, row.id)) continue;
      await signalWithStart(core, row, 'retryFailed');
      core.log.info({ disbursementId: row.id }, 'disbursement run restarted by the relay');
      started++;
    } catch (err) {
      core.log.warn({ err, disbursementId: row.id }, 'disbursement run recovery failed; retrying later');
    }
  }
  return started;
}

/** The projection's status of a disbursement (the workflow re-reads it while paused). */
export async function projectionStatus(core: Core, input: { disbursementId: string }): Promise<string> {
  const row = await core.db.selectFrom('disbursements').select('status').where('id', '=', input.disbursementId).executeTakeFirst();
  return row?.status ?? 'missing';
}
