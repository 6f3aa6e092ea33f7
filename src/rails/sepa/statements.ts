/**
 * The sepa_eur rail's settlement account (docs/treasury.md "What the books expect"): the EUR
 * account the pain.001 files debit (`RAIL_SEPA_DEBTOR_IBAN`), whose end-of-day statements arrive as
 * camt.053 on the SEPA connection. Pure over the records the core reads for it:
 *
 * - a debit per payout attempt the bank confirmed booked (a `settled` rail event: camt.054 `DBIT`),
 *   key `DBIT:<EndToEndId>`, at the booking time;
 * - a credit per return (`returned`), `CRDT:<EndToEndId>`, of the payout's amount;
 * - a credit per incoming transfer (`credit`: a live deposit, or one that matched no virtual
 *   account), `CRDT:<AcctSvcrRef>` (else the entry reference).
 */
import type { RailStatementParts, SettlementMovement, SettlementRecords } from '../adapter';
import { sepaRailConfig } from './config';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The movements our books expect on the EUR settlement account from the SEPA connection's events (see the file header). Amounts in minor units. */
export function sepaExpectedMovements(records: Pick<SettlementRecords, 'events'>): SettlementMovement[] {
  const out: SettlementMovement[] = [];
  for (const e of records.events) {
    const d = e.details;
    const at = e.at;
    if (e.type === 'credit') {
      const ref = str(d.accountServicerReference) ?? str(d.entryReference);
      const amount = str(d.amountMinor);
      if (!ref || !amount) continue;
      out.push({ key: `CRDT:${ref}`, creditDebit: 'CRDT', amountMinor: BigInt(amount), at, reference: ref, description: e.deposit_id ? `incoming credit, deposit ${e.deposit_id}` : 'incoming credit (matched no virtual account)' });
      continue;
    }
    if (!e.payout_id || e.amount_minor === null) continue;
    const amount = e.amount_minor;
    if (!e.end_to_end_id) continue;
    if (e.type === 'settled') out.push({ key: `DBIT:${e.end_to_end_id}`, creditDebit: 'DBIT', amountMinor: amount, at, reference: e.end_to_end_id, description: `payout ${e.payout_id} booked` });
    else if (e.type === 'returned') out.push({ key: `CRDT:${e.end_to_end_id}`, creditDebit: 'CRDT', amountMinor: amount, at, reference: e.end_to_end_id, description: `return ${e.reason_code ?? ''} of payout ${e.payout_id}`.replace('  ', ' ') });
  }
  return out;
}

/** The statements part of the sepa_eur module: camt.053 of the EUR account `RAIL_SEPA_DEBTOR_IBAN`. */
export const sepaStatements: RailStatementParts = {
  format: 'camt.053',
  currency: 'EUR',
  accountIdentifier: (config) => sepaRailConfig(config).config?.debtor.iban ?? null,
  expected: async (records) => sepaExpectedMovements(records),
};
