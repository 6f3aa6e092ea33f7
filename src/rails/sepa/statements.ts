/** The sepa_eur settlement account (docs/treasury.md "What the books expect"): camt.053 of `RAIL_SEPA_DEBTOR_IBAN`. Pure. */
import type { RailStatementParts, SettlementMovement, SettlementRecords } from '../adapter';
import { sepaRailConfig } from './config';
import type { SEPA_SETTINGS } from './settings';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** `DBIT:<EndToEndId>` per settled attempt, `CRDT:<EndToEndId>` per return, `CRDT:<AcctSvcrRef>` per credit; minor units. */
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

export const sepaStatements: RailStatementParts<typeof SEPA_SETTINGS> = {
  format: 'camt.053',
  currency: 'EUR',
  accountIdentifier: (config) => sepaRailConfig(config).config?.debtor.iban ?? null,
  expected: async (records) => sepaExpectedMovements(records),
};
