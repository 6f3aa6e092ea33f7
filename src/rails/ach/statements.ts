/** The ach_usd settlement account (docs/treasury.md "What the books expect"): BAI2 of the account the ODFI debits. Parses its BAI2 statements. Pure. */
import type { ParsedStatement, RailStatementParts, SettlementFileEntryRow, SettlementMovement, SettlementRecords } from '../adapter';
import { parseBai2 } from '../bai2/parse';
import { statementKeys } from '../statement-keys';

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

/** A BAI2 statement file of one account; throws when it does not parse, holds another number of accounts or lacks its ledger balances. */
export function readBai2Statement(text: string): ParsedStatement {
  const f = parseBai2(text);
  const accounts = f.groups.flatMap((g) => g.accounts.map((a) => ({ g, a })));
  if (accounts.length !== 1) throw new Error(`BAI2: a statement file must hold one account, this one holds ${accounts.length}`);
  const { g, a } = accounts[0];
  const opening = a.amounts['010'];
  const closing = a.amounts['015'];
  if (opening === undefined || closing === undefined) throw new Error('BAI2: the account has no opening (010) or closing (015) ledger balance');
  const end = new Date(`${g.asOfDate}T00:00:00Z`);
  if (g.asOfTime === null || g.asOfTime === '24:00') end.setUTCDate(end.getUTCDate() + 1);
  else end.setUTCHours(Number(g.asOfTime.slice(0, 2)), Number(g.asOfTime.slice(3, 5)));
  return {
    format: 'bai2',
    accountId: a.accountNumber,
    currency: a.currency,
    statementRef: f.fileId,
    sequence: /^[0-9]{1,18}$/.test(f.fileId) ? BigInt(f.fileId) : null,
    statementDate: g.asOfDate,
    periodStart: new Date(`${g.asOfDate}T00:00:00Z`),
    periodEnd: end,
    openingMinor: BigInt(opening),
    closingMinor: BigInt(closing),
    entries: a.transactions.map((t) => ({
      creditDebit: t.creditDebit,
      amountMinor: BigInt(t.amountMinor),
      typeCode: t.typeCode,
      reference: t.customerReference ?? t.bankReference,
      keys: statementKeys(t.creditDebit, [t.customerReference, t.bankReference]),
      bookedOn: g.asOfDate,
      description: t.text,
    })),
  };
}

export const achStatements: RailStatementParts = {
  format: 'bai2',
  currency: 'USD',
  accountIdentifier: () => null,
  recognises: (content) => /^\s*01,/.test(content),
  read: (content) => readBai2Statement(content),
  expected: async (records) => achExpectedMovements({ events: records.events, uploadedFileEntries: await records.uploadedFileEntries() }),
};
