/** The sepa_eur settlement account (docs/treasury.md "What the books expect"): camt.053 of `RAIL_SEPA_DEBTOR_IBAN`. Parses its camt.053 statements. Pure. */
import type { ParsedStatement, RailStatementParts, SettlementMovement, SettlementRecords } from '../adapter';
import { parseCamt053 } from '../iso20022/camt053';
import { statementKeys } from '../statement-keys';
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

/** A camt.053 statement of `RAIL_SEPA_DEBTOR_IBAN` (when set); throws when it does not parse, names another account or has no period end. */
export function readCamt053Statement(xml: string, ourIban: string | null): ParsedStatement {
  const s = parseCamt053(xml);
  const ours = ourIban;
  const iban = s.accountIban?.replace(/\s+/g, '').toUpperCase() ?? null;
  if (!iban) throw new Error('camt.053: the statement names no IBAN');
  if (ours && iban !== ours.replace(/\s+/g, '').toUpperCase()) throw new Error(`camt.053: the statement is of account ${iban}, not of our settlement account`);
  if (!s.to) throw new Error('camt.053: Stmt/FrToDt/ToDtTm is missing (the statement period)');
  const to = new Date(s.to);
  if (Number.isNaN(to.getTime())) throw new Error(`camt.053: ToDtTm ${JSON.stringify(s.to)} is not a date-time`);
  const from = s.from ? new Date(s.from) : null;
  const sequence = s.sequenceNumber && /^[0-9]{1,18}$/.test(s.sequenceNumber) ? BigInt(s.sequenceNumber) : null;
  return {
    format: 'camt.053',
    accountId: iban,
    currency: s.currency,
    statementRef: s.statementId,
    sequence,
    statementDate: s.closing.date.slice(0, 10),
    periodStart: from && !Number.isNaN(from.getTime()) ? from : null,
    periodEnd: to,
    openingMinor: BigInt(s.opening.amountMinor),
    closingMinor: BigInt(s.closing.amountMinor),
    entries: s.entries
      .filter((e) => e.status === 'BOOK')
      .map((e) => ({
        // A reversal books the opposite way of what it reverses.
        creditDebit: e.reversal ? (e.creditDebit === 'CRDT' ? 'DBIT' : 'CRDT') : e.creditDebit,
        amountMinor: BigInt(e.amountMinor),
        typeCode: e.bankTransactionCode,
        reference: e.endToEndId && e.endToEndId !== 'NOTPROVIDED' ? e.endToEndId : (e.accountServicerReference ?? e.entryReference),
        keys: statementKeys(e.creditDebit, [e.endToEndId, e.uetr, e.accountServicerReference, e.entryReference]),
        bookedOn: e.bookingDate,
        description: e.additionalEntryInfo ?? e.remittanceInformation ?? (e.returnReasonCode ? `return ${e.returnReasonCode}` : null),
      })),
  };
}

const CAMT053 = /xmlns(?::[A-Za-z_][\w.-]*)?\s*=\s*["']urn:iso:std:iso:20022:tech:xsd:camt\.053\./;

export const sepaStatements: RailStatementParts<typeof SEPA_SETTINGS> = {
  format: 'camt.053',
  currency: 'EUR',
  accountIdentifier: (config) => sepaRailConfig(config).config?.debtor.iban ?? null,
  recognises: (content) => CAMT053.test(content),
  read: (content, config) => readCamt053Statement(content, sepaRailConfig(config).config?.debtor.iban ?? null),
  expected: async (records) => sepaExpectedMovements(records),
};
