/** The ach_usd settlement account (docs/treasury.md "What the books expect"): BAI2 of the account the ODFI debits. Pure. */
import type { RailStatementParts, SettlementFileEntryRow, SettlementMovement, SettlementRecords } from '../adapter';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** `DBIT:<trace>` per uploaded entry, `CRDT:<original trace>` per return, `CRDT:<trace>` per credit; minor units. */
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

export const achStatements: RailStatementParts = {
  format: 'bai2',
  currency: 'USD',
  accountIdentifier: () => null,
  expected: async (records) => achExpectedMovements({ events: records.events, uploadedFileEntries: await records.uploadedFileEntries() }),
};
