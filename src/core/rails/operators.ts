/** Operator reads of bank files (docs/rails.md "For operators"). Read-only. */
import { sql } from 'kysely';
import type { Db } from '../../db/schema';
import { unmatchedRailEvents } from './rail-events';

export interface RailFileSummary {
  id: string;
  rail: string;
  direction: string;
  name: string;
  kind: string;
  status: string;
  transactions: number;
  /** Minor units (decimal string). */
  control_sum_minor: string | null;
  /** YYYY-MM-DD. */
  execution_date: string | null;
  /** `same_day` or `next_day`. */
  settlement_window: string | null;
  /** ISO 8601. */
  settles_at: string | null;
  settled_at: string | null;
  sha256: string | null;
  error: string | null;
  created_at: string;
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
  control_sum_minor: r.control_sum_minor === null ? null : r.control_sum_minor.toString(),
  execution_date: r.execution_date,
  settlement_window: r.settlement_window,
  settles_at: r.settles_at?.toISOString() ?? null,
  settled_at: r.settled_at?.toISOString() ?? null,
  sha256: r.sha256,
  error: r.error,
  created_at: r.created_at.toISOString(),
});

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

/** With content, payments (outbound) and statuses read (inbound); null when unknown. */
export async function getRailFile(db: Db, id: string) {
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
    payments: payments.map((p) => ({ ...p, amount_minor: p.amount_minor.toString() })),
    statuses: statuses.map((s) => ({ ...s, occurred_at: s.occurred_at?.toISOString() ?? null, dispatched_at: s.dispatched_at?.toISOString() ?? null })),
  };
}

/** Newest first. */
export async function listUnmatchedRailItems(db: Db, limit = 100) {
  const rows = await unmatchedRailEvents(db, limit);
  return rows.map((r) => ({
    id: r.id,
    rail: r.rail,
    rail_file_id: r.rail_file_id,
    type: r.type,
    end_to_end_id: r.end_to_end_id,
    uetr: r.uetr,
    reason_code: r.reason_code,
    details: r.details,
    created_at: r.created_at.toISOString(),
  }));
}

/** Newest first (docs/rails.md "The partner's rate and fee beside ours"); amounts are decimal strings of minor units. */
export async function listPartnerTransfers(db: Db, limit = 100) {
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
      payout_id: r.payout_id,
      attempt: r.attempt,
      rail: r.rail,
      payout_status: r.payout_status,
      our_rate: r.rate,
      our_fee_minor: r.fee_total.toString(),
      our_source_amount_minor: r.source_amount.toString(),
      source_currency: r.source_currency,
      destination_amount_minor: r.destination_amount.toString(),
      destination_currency: r.destination_currency,
      partner_transfer_id: d.transfer_id ?? null,
      partner_state: d.partner_state ?? null,
      partner_rate: d.partner_rate || null,
      partner_fee: d.partner_fee || null,
      partner_source_amount: d.partner_source_amount || null,
      partner_source_currency: d.partner_source_currency ?? null,
      created_at: r.created_at.toISOString(),
    };
  });
}
