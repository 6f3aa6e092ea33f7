/** Operator reads of bank files (docs/rails.md "For operators"). Read-only; `npm run admin -- rail ...` renders them (src/main/admin-rails.ts). */
import { sql } from 'kysely';
import type { Db } from '../../db/schema';
import { unmatchedRailEvents } from './rail-events';

/** A bank file sent or received. Amounts in minor units. */
export interface RailFileSummary {
  id: string;
  rail: string;
  direction: string;
  name: string;
  kind: string;
  status: string;
  transactions: number;
  controlSumMinor: bigint | null;
  /** YYYY-MM-DD. */
  executionDate: string | null;
  /** `same_day` or `next_day`. */
  settlementWindow: string | null;
  settlesAt: Date | null;
  settledAt: Date | null;
  sha256: string | null;
  error: string | null;
  createdAt: Date;
}

/** A payment in an outbound file. */
export interface RailFilePayment {
  payoutId: string;
  attempt: number;
  endToEndId: string;
  uetr: string | null;
  traceNumber: string | null;
  amountMinor: bigint;
  status: string;
}

/** A status (rail event) read from an inbound file. */
export interface RailFileStatus {
  id: string;
  type: string;
  payoutId: string | null;
  depositId: string | null;
  endToEndId: string | null;
  reasonCode: string | null;
  occurredAt: Date | null;
  dispatchedAt: Date | null;
}

/** A file with its content, payments (outbound) and statuses (inbound). */
export interface RailFileDetail extends RailFileSummary {
  content: string | null;
  payments: RailFilePayment[];
  statuses: RailFileStatus[];
}

/** A status that matched no payout and no deposit. */
export interface UnmatchedRailItem {
  id: string;
  rail: string;
  railFileId: string;
  type: string;
  endToEndId: string | null;
  uetr: string | null;
  reasonCode: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
}

/** A payout partner's transfer beside our payout: ours in minor units, the partner's as it reported them (decimal strings). */
export interface PartnerTransfer {
  payoutId: string;
  attempt: number;
  rail: string;
  payoutStatus: string;
  /** Our rate, decimal string. */
  ourRate: string;
  /** Minor units of `sourceCurrency`. */
  ourFeeMinor: bigint;
  ourSourceAmountMinor: bigint;
  sourceCurrency: string;
  destinationAmountMinor: bigint;
  destinationCurrency: string;
  partnerTransferId: string | null;
  partnerState: string | null;
  partnerRate: string | null;
  partnerFee: string | null;
  partnerSourceAmount: string | null;
  partnerSourceCurrency: string | null;
  createdAt: Date;
}

const summary = (r: {
  id: string; rail: string; direction: string; name: string; kind: string; status: string; transactions: number;
  control_sum_minor: bigint | null; execution_date: string | null; settlement_window: string | null; settles_at: Date | null; settled_at: Date | null;
  sha256: string | null; error: string | null; created_at: Date;
}): RailFileSummary => ({
  id: r.id,
  rail: r.rail,
  direction: r.direction,
  name: r.name,
  kind: r.kind,
  status: r.status,
  transactions: r.transactions,
  controlSumMinor: r.control_sum_minor,
  executionDate: r.execution_date,
  settlementWindow: r.settlement_window,
  settlesAt: r.settles_at,
  settledAt: r.settled_at,
  sha256: r.sha256,
  error: r.error,
  createdAt: r.created_at,
});

/** Newest first, at most `limit`. */
export async function listRailFiles(db: Db, limit = 50): Promise<RailFileSummary[]> {
  const rows = await db
    .selectFrom('rail_files')
    .select(['id', 'rail', 'direction', 'name', 'kind', 'status', 'transactions', 'control_sum_minor', 'execution_date', 'settlement_window', 'settles_at', 'settled_at', 'sha256', 'error', 'created_at'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(summary);
}

/** Null when unknown. */
export async function getRailFile(db: Db, id: string): Promise<RailFileDetail | null> {
  const row = await db.selectFrom('rail_files').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return null;
  const payments = await db
    .selectFrom('rail_instructions')
    .select(['payout_id', 'attempt', 'end_to_end_id', 'uetr', 'trace_number', 'amount_minor', 'status'])
    .where('rail_file_id', '=', id)
    .orderBy('created_at')
    .execute();
  const statuses = await db
    .selectFrom('rail_events')
    .select(['id', 'type', 'payout_id', 'deposit_id', 'end_to_end_id', 'reason_code', 'occurred_at', 'dispatched_at'])
    .where('rail_file_id', '=', id)
    .orderBy('id')
    .execute();
  return {
    ...summary(row),
    content: row.content,
    payments: payments.map((p) => ({
      payoutId: p.payout_id,
      attempt: p.attempt,
      endToEndId: p.end_to_end_id,
      uetr: p.uetr,
      traceNumber: p.trace_number,
      amountMinor: p.amount_minor,
      status: p.status,
    })),
    statuses: statuses.map((s) => ({
      id: s.id,
      type: s.type,
      payoutId: s.payout_id,
      depositId: s.deposit_id,
      endToEndId: s.end_to_end_id,
      reasonCode: s.reason_code,
      occurredAt: s.occurred_at,
      dispatchedAt: s.dispatched_at,
    })),
  };
}

/** Newest first, at most `limit`. */
export async function listUnmatchedRailItems(db: Db, limit = 100): Promise<UnmatchedRailItem[]> {
  const rows = await unmatchedRailEvents(db, limit);
  return rows.map((r) => ({
    id: r.id,
    rail: r.rail,
    railFileId: r.rail_file_id,
    type: r.type,
    endToEndId: r.end_to_end_id,
    uetr: r.uetr,
    reasonCode: r.reason_code,
    details: r.details,
    createdAt: r.created_at,
  }));
}

/** Newest first, at most `limit` (docs/rails.md "The partner's rate and fee beside ours"). */
export async function listPartnerTransfers(db: Db, limit = 100): Promise<PartnerTransfer[]> {
  const rows = await db
    .selectFrom('rail_instructions as i')
    .innerJoin('payouts as p', 'p.id', 'i.payout_id')
    .select(['i.payout_id', 'i.attempt', 'i.rail', 'i.status', 'i.details', 'i.created_at', 'p.status as payout_status', 'p.rate', 'p.fee_total', 'p.source_amount', 'p.source_currency', 'p.destination_amount', 'p.destination_currency'])
    .where(sql<string>`i.details->>'transfer_id'`, 'is not', null)
    .orderBy('i.created_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => {
    const d = (r.details ?? {}) as Record<string, string>;
    return {
      payoutId: r.payout_id,
      attempt: r.attempt,
      rail: r.rail,
      payoutStatus: r.payout_status,
      ourRate: r.rate,
      ourFeeMinor: r.fee_total,
      ourSourceAmountMinor: r.source_amount,
      sourceCurrency: r.source_currency,
      destinationAmountMinor: r.destination_amount,
      destinationCurrency: r.destination_currency,
      partnerTransferId: d.transfer_id ?? null,
      partnerState: d.partner_state ?? null,
      partnerRate: d.partner_rate || null,
      partnerFee: d.partner_fee || null,
      partnerSourceAmount: d.partner_source_amount || null,
      partnerSourceCurrency: d.partner_source_currency ?? null,
      createdAt: r.created_at,
    };
  });
}
