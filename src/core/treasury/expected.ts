/**
 * What our books expect on a settlement account (docs/treasury.md "What the books expect"), derived
 * from what its rail recorded (read only); the rail's `statements` part says what the records mean.
 */
import { sql } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import type { RailStatementParts, SettlementEventRow, SettlementFileEntryRow } from '../../rails/adapter';
import type { ExpectedMovement } from './reconcile';

/** Expected movements from `since` on, one per key (the first recorded wins); positive minor units. */
export async function expectedMovements(db: DbOrTx, rail: string, statements: RailStatementParts, since: Date): Promise<ExpectedMovement[]> {
  const rows = await db
    .selectFrom('rail_events as e')
    .leftJoin('rail_instructions as i', (j) => j.onRef('i.payout_id', '=', 'e.payout_id').onRef('i.attempt', '=', 'e.attempt'))
    .select(['e.id', 'e.type', 'e.payout_id', 'e.details', 'e.deposit_id', 'e.reason_code', 'i.end_to_end_id', 'i.trace_number', 'i.amount_minor', sql<Date>`coalesce(e.occurred_at, e.created_at)`.as('at')])
    .where('e.rail', '=', rail)
    .where('e.type', 'in', ['settled', 'returned', 'rejected', 'credit'])
    .where(sql<boolean>`coalesce(e.occurred_at, e.created_at) >= ${since}`)
    .orderBy('e.created_at')
    .orderBy('e.id')
    .execute();
  const events: SettlementEventRow[] = rows.map((e) => ({
    id: e.id,
    type: e.type as SettlementEventRow['type'],
    payout_id: e.payout_id,
    deposit_id: e.deposit_id,
    reason_code: e.reason_code,
    details: e.details as Record<string, unknown>,
    end_to_end_id: e.end_to_end_id,
    trace_number: e.trace_number,
    amount_minor: e.amount_minor === null ? null : BigInt(e.amount_minor),
    at: new Date(e.at),
  }));
  const uploadedFileEntries = async (): Promise<SettlementFileEntryRow[]> => {
    const entries = await db
      .selectFrom('rail_instructions as i')
      .innerJoin('rail_files as f', 'f.id', 'i.rail_file_id')
      .select(['i.payout_id', 'i.trace_number', 'i.amount_minor', 'f.created_at'])
      .where('i.rail', '=', rail)
      .where('f.status', '=', 'uploaded')
      .where('f.created_at', '>=', since)
      .orderBy('f.created_at')
      .execute();
    return entries.map((e) => ({ payout_id: e.payout_id, trace_number: e.trace_number, amount_minor: BigInt(e.amount_minor), at: e.created_at }));
  };
  const out = new Map<string, ExpectedMovement>();
  for (const m of await statements.expected({ events, uploadedFileEntries })) {
    if (!out.has(m.key)) out.set(m.key, m);
  }
  return [...out.values()];
}
