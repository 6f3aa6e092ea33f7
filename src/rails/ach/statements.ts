/**
 * The ach_usd rail's settlement account (docs/treasury.md "What the books expect"): the USD account
 * the ODFI debits for our NACHA files, whose end-of-day statements arrive as BAI2 on the ACH
 * connection (the configuration names no account number: the statement's account is not checked).
 * Pure over the records the core reads for it:
 *
 * - a debit per entry of every NACHA file we uploaded (the ODFI takes the funds of a file when it
 *   accepts it), `DBIT:<trace number>`, at the file's time;
 * - a credit per return (`rejected` or `returned` from a NACHA return), `CRDT:<original trace
 *   number>`, of the payout's amount;
 * - a credit per incoming ACH credit, `CRDT:<trace number>`.
 */
import type { RailStatementParts, SettlementFileEntryRow, SettlementMovement, SettlementRecords } from '../adapter';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * The movements our books expect on the USD settlement account (see the file header): the entries
 * of the uploaded files first, then the events, in the order recorded. Amounts in minor units.
 */
export function achExpectedMovements(records: { events: SettlementRecords['events']; uploadedFileEntries: readonly SettlementFileEntryRow[] }): SettlementMovement[] {
  const out: SettlementMovement[] = [];
  for (const e of records.uploadedFileEntries) {
    if (!e.trace_number) continue;
    out.push({ key: `DBIT:${e.trace_number}`, creditDebit: 'DBIT', amountMinor: e.amount_minor, at: e.at, reference: e.trace_number, description: `ACH entry of payout ${e.payout_id}` });
  }
  for (const e of records.events) {
    const d = e.details;
    const at = e.at;
    if (e.type === 'credit') {
      const ref = str(d.traceNumber);
      const amount = str(d.amountMinor);
      if (!ref || !amount) continue;
      out.push({ key: `CRDT:${ref}`, creditDebit: 'CRDT', amountMinor: BigInt(amount), at, reference: ref, description: e.deposit_id ? `incoming credit, deposit ${e.deposit_id}` : 'incoming credit (matched no virtual account)' });
      continue;
    }
    if (!e.payout_id || e.amount_minor === null) continue;
    if ((e.type === 'returned' || e.type === 'rejected') && d.source === 'nacha') {
      const trace = str(d.originalTraceNumber) ?? e.trace_number;
      if (trace) out.push({ key: `CRDT:${trace}`, creditDebit: 'CRDT', amountMinor: e.amount_minor, at, reference: trace, description: `ACH return ${e.reason_code ?? ''} of payout ${e.payout_id}`.replace('  ', ' ') });
    }
  }
  return out;
}

/** The statements part of the ach_usd module: BAI2 of the USD account the ODFI debits. */
export const achStatements: RailStatementParts = {
  format: 'bai2',
  currency: 'USD',
  accountIdentifier: () => null,
  expected: async (records) => achExpectedMovements({ events: records.events, uploadedFileEntries: await records.uploadedFileEntries() }),
};
