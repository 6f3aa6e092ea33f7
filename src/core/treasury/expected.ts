/**
 * What our books expect on a settlement account (docs/treasury.md "What the books expect"). The
 * ledger keeps each business's balance, not the platform's bank accounts, so the expected movements
 * of a settlement account are derived from what the rails recorded (read only; the rails own these
 * tables):
 *
 * - EUR (`sepa_credit_transfer`): a debit per payout attempt the bank confirmed booked (a `settled`
 *   rail event: camt.054 `DBIT`), key `DBIT:<EndToEndId>`, at the booking time; a credit per return
 *   (`returned`), `CRDT:<EndToEndId>`, of the payout's amount; a credit per incoming transfer
 *   (`credit`: a live deposit, or one that matched no virtual account), `CRDT:<AcctSvcrRef>`.
 * - USD (`ach`): a debit per entry of every NACHA file we uploaded (the ODFI takes the funds of a
 *   file when it accepts it), `DBIT:<trace number>`, at the file's time; a credit per return
 *   (`rejected` or `returned` from a NACHA return), `CRDT:<original trace number>`, of the payout's
 *   amount; a credit per incoming ACH credit, `CRDT:<trace number>`.
 */
import { sql } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import { ACH_RAIL } from '../../rails/ach/config';
import type { ExpectedMovement } from './reconcile';

type Details = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * The movements our books expect on the settlement account of `rail` from `since` on (see the
 * module comment), one per key (the first recorded wins: the same bank file read twice, or one
 * credit under two names, is one movement). Amounts are positive minor units.
 */
export async function expectedMovements(db: DbOrTx, rail: string, since: Date): Promise<ExpectedMovement[]> {
  const out = new Map<string, ExpectedMovement>();
  const add = (m: ExpectedMovement) => {
    if (!out.has(m.key)) out.set(m.key, m);
  };
  const events = await db
    .selectFrom('rail_events as e')
    .leftJoin('rail_instructions as i', (j) => j.onRef('i.payout_id', '=', 'e.payout_id').onRef('i.attempt', '=', 'e.attempt'))
    .select(['e.id', 'e.type', 'e.payout_id', 'e.details', 'e.deposit_id', 'e.reason_code', 'i.end_to_end_id', 'i.trace_number', 'i.amount_minor', sql<Date>`coalesce(e.occurred_at, e.created_at)`.as('at')])
    .where('e.rail', '=', rail)
    .where('e.type', 'in', ['settled', 'returned', 'rejected', 'credit'])
    .where(sql<boolean>`coalesce(e.occurred_at, e.created_at) >= ${since}`)
    .orderBy('e.created_at')
    .orderBy('e.id')
    .execute();
  if (rail === ACH_RAIL) {
    const entries = await db
      .selectFrom('rail_instructions as i')
      .innerJoin('rail_files as f', 'f.id', 'i.rail_file_id')
      .select(['i.payout_id', 'i.trace_number', 'i.amount_minor', 'f.created_at'])
      .where('i.rail', '=', rail)
      .where('f.status', '=', 'uploaded')
      .where('f.created_at', '>=', since)
      .orderBy('f.created_at')
      .execute();
    for (const e of entries) {
      if (!e.trace_number) continue;
      add({ key: `DBIT:${e.trace_number}`, creditDebit: 'DBIT', amountMinor: BigInt(e.amount_minor), at: e.created_at, reference: e.trace_number, description: `ACH entry of payout ${e.payout_id}` });
    }
  }
  for (const e of events) {
    const d = e.details as Details;
    const at = new Date(e.at);
    if (e.type === 'credit') {
      const ref = rail === ACH_RAIL ? str(d.traceNumber) : (str(d.accountServicerReference) ?? str(d.entryReference));
      const amount = str(d.amountMinor);
      if (!ref || !amount) continue;
      add({ key: `CRDT:${ref}`, creditDebit: 'CRDT', amountMinor: BigInt(amount), at, reference: ref, description: e.deposit_id ? `incoming credit, deposit ${e.deposit_id}` : 'incoming credit (matched no virtual account)' });
      continue;
    }
    if (!e.payout_id || e.amount_minor === null) continue;
    const amount = BigInt(e.amount_minor);
    if (rail === ACH_RAIL) {
      if ((e.type === 'returned' || e.type === 'rejected') && d.source === 'nacha') {
        const trace = str(d.originalTraceNumber) ?? e.trace_number;
        if (trace) add({ key: `CRDT:${trace}`, creditDebit: 'CRDT', amountMinor: amount, at, reference: trace, description: `ACH return ${e.reason_code ?? ''} of payout ${e.payout_id}`.replace('  ', ' ') });
      }
      continue;
    }
    if (!e.end_to_end_id) continue;
    if (e.type === 'settled') add({ key: `DBIT:${e.end_to_end_id}`, creditDebit: 'DBIT', amountMinor: amount, at, reference: e.end_to_end_id, description: `payout ${e.payout_id} booked` });
    else if (e.type === 'returned') add({ key: `CRDT:${e.end_to_end_id}`, creditDebit: 'CRDT', amountMinor: amount, at, reference: e.end_to_end_id, description: `return ${e.reason_code ?? ''} of payout ${e.payout_id}`.replace('  ', ' ') });
  }
  return [...out.values()];
}
