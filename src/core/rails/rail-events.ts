/** Rail events (docs/rails.md "Status and reason codes"): owns the writes of rail_events; unmatched ones are kept, never dropped. */
import { type Selectable, sql } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import type { RailEventsTable } from '../../db/tables/rails';
import { railModuleOf } from '../../rails/registry';
import type { PayoutRailEvent } from '../../../workflows/payout.contract';

export type RailEventRow = Selectable<RailEventsTable>;

/** A rail_events row to record (the seam's `NewRailEvent`); id `<rail file id>:<index>`. */
export type NewRailEventRow = Omit<RailEventRow, 'dispatched_at' | 'created_at'>;

const RECORD_CHUNK = 1000;

/** A file read twice yields the same ids: recorded once. Returns the ids newly recorded; 1,000 rows per JSON parameter. */
export async function recordRailEvents(tx: DbOrTx, events: NewRailEventRow[], now: Date): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < events.length; i += RECORD_CHUNK) {
    const json = JSON.stringify(events.slice(i, i + RECORD_CHUNK).map((e) => ({ ...e, dispatched_at: null, created_at: now })));
    const r = await sql<{ id: string }>`
      insert into rail_events select * from jsonb_populate_recordset(null::rail_events, ${json}::jsonb)
      on conflict (id) do nothing returning id`.execute(tx);
    for (const row of r.rows) ids.push(row.id);
  }
  return ids;
}

/** Oldest first, at most `limit`. */
export async function undispatchedRailEvents(db: DbOrTx, rail: string, limit: number): Promise<RailEventRow[]> {
  return db.selectFrom('rail_events').selectAll().where('rail', '=', rail).where('dispatched_at', 'is', null).orderBy('created_at').orderBy('id').limit(limit).execute();
}

export async function markRailEventDispatched(db: DbOrTx, id: string, now: Date, depositId?: string): Promise<void> {
  await db
    .updateTable('rail_events')
    .set({ dispatched_at: now, ...(depositId ? { deposit_id: depositId } : {}) })
    .where('id', '=', id)
    .execute();
}

/** Oldest first. */
export async function railEventsOfAttempt(db: DbOrTx, payoutId: string, attempt: number): Promise<RailEventRow[]> {
  return db.selectFrom('rail_events').selectAll().where('payout_id', '=', payoutId).where('attempt', '=', attempt).orderBy('id').execute();
}

/** No payout, no deposit; newest first. */
export async function unmatchedRailEvents(db: DbOrTx, limit = 100): Promise<RailEventRow[]> {
  return db.selectFrom('rail_events').selectAll().where('payout_id', 'is', null).where('deposit_id', 'is', null).where('type', 'not in', ['credit', 'notification_of_change']).orderBy('created_at', 'desc').limit(limit).execute();
}

/** Rejected and returned carry the module's `failureOf` mapping; credits and NOCs are not payout signals (null). */
export function toPayoutRailEvent(row: RailEventRow): PayoutRailEvent | null {
  if (!row.payout_id || row.attempt === null || row.type === 'credit' || row.type === 'notification_of_change') return null;
  const at = (row.occurred_at ?? row.created_at).toISOString();
  const base = { id: row.id, attempt: row.attempt, type: row.type, at };
  if (row.type !== 'rejected' && row.type !== 'returned') return base;
  const module = railModuleOf(row.rail);
  const f = module
    ? module.failureOf(row.type, row.reason_code)
    : { failureCode: row.type === 'rejected' ? ('provider_declined' as const) : ('refunded_by_provider' as const), message: 'The rail did not accept the payment', retryable: false, railReasonCode: row.reason_code };
  return { ...base, failure: { code: f.failureCode, message: f.message, retryable: row.type === 'rejected' ? f.retryable : false, railReasonCode: f.railReasonCode } };
}
