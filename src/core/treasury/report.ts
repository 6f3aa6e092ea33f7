/**
 * What operators see of the settlement accounts (docs/treasury.md "For operators"): positions, open
 * breaks and the treasury_open_breaks gauge. Read only; names no rail.
 */
import { sql } from 'kysely';
import type { Db, DbOrTx } from '../../db/schema';
import { statementRails } from '../../rails/registry';
import { treasuryOpenBreaks } from './metrics';

export const BREAK_KINDS = ['bank_only', 'books_only', 'amount_mismatch', 'balance_drift'] as const;

/** Amounts are signed minor units as decimal strings, credits positive. */
export interface TreasuryBreakView {
  id: string;
  kind: (typeof BREAK_KINDS)[number];
  reference: string | null;
  bankAmountMinor: string | null;
  booksAmountMinor: string | null;
  differenceMinor: string;
  detail: string;
  statementId: string | null;
  openedAt: string;
}

export interface TreasuryAccountView {
  rail: string;
  accountId: string;
  currency: string;
  format: string;
  statements: number;
  newest: {
    id: string;
    statementRef: string;
    sequence: string | null;
    statementDate: string;
    periodEnd: string;
    bankMinor: string;
    /** Null until reconciled. */
    booksMinor: string | null;
    inTransitMinor: string | null;
    entries: number;
    matched: number;
  };
  breaks: TreasuryBreakView[];
}

/** Every settlement account with statements, in registry order, open breaks oldest first. */
export async function treasuryReport(db: DbOrTx): Promise<TreasuryAccountView[]> {
  const out: TreasuryAccountView[] = [];
  for (const { rail } of statementRails()) {
    const newest = await db.selectFrom('treasury_statements').selectAll().where('rail', '=', rail).orderBy('period_end', 'desc').orderBy('sequence_number', 'desc').limit(1).executeTakeFirst();
    if (!newest) continue;
    const count = await db.selectFrom('treasury_statements').select(sql<string>`count(*)`.as('n')).where('rail', '=', rail).executeTakeFirstOrThrow();
    const matched = await db.selectFrom('treasury_statement_entries').select(sql<string>`count(*)`.as('n')).where('statement_id', '=', newest.id).where('matched_key', 'is not', null).executeTakeFirstOrThrow();
    const breaks = await db.selectFrom('treasury_breaks').selectAll().where('rail', '=', rail).where('status', '=', 'open').orderBy('opened_at').orderBy('id').execute();
    out.push({
      rail,
      accountId: newest.account_id,
      currency: newest.currency,
      format: newest.format,
      statements: Number(count.n),
      newest: {
        id: newest.id,
        statementRef: newest.statement_ref,
        sequence: newest.sequence_number === null ? null : String(newest.sequence_number),
        statementDate: newest.statement_date,
        periodEnd: newest.period_end.toISOString(),
        bankMinor: String(newest.closing_minor),
        booksMinor: newest.books_position_minor === null ? null : String(newest.books_position_minor),
        inTransitMinor: newest.in_transit_minor === null ? null : String(newest.in_transit_minor),
        entries: newest.entries,
        matched: Number(matched.n),
      },
      breaks: breaks.map((b) => ({
        id: b.id,
        kind: b.kind,
        reference: b.reference,
        bankAmountMinor: b.bank_amount_minor === null ? null : String(b.bank_amount_minor),
        booksAmountMinor: b.books_amount_minor === null ? null : String(b.books_amount_minor),
        differenceMinor: String(b.difference_minor),
        detail: b.detail,
        statementId: b.statement_id,
        openedAt: b.opened_at.toISOString(),
      })),
    });
  }
  return out;
}

/** Sets treasury_open_breaks{rail,kind} (0 for kinds with none); called at scrape time. */
export async function refreshTreasuryGauges(db: Db): Promise<void> {
  const rows = await db.selectFrom('treasury_breaks').select(['rail', 'kind', sql<string>`count(*)`.as('n')]).where('status', '=', 'open').groupBy(['rail', 'kind']).execute();
  treasuryOpenBreaks.reset();
  for (const { rail } of statementRails()) for (const kind of BREAK_KINDS) treasuryOpenBreaks.set({ rail, kind }, 0);
  for (const r of rows) treasuryOpenBreaks.set({ rail: r.rail, kind: r.kind }, Number(r.n));
}

function decimal(minor: string): string {
  const neg = minor.startsWith('-');
  const abs = (neg ? minor.slice(1) : minor).padStart(3, '0');
  return `${neg ? '-' : ''}${abs.slice(0, -2)}.${abs.slice(-2)}`;
}

export function formatTreasuryReport(accounts: readonly TreasuryAccountView[]): string {
  if (accounts.length === 0) return 'no bank statement received yet';
  const lines: string[] = [];
  for (const a of accounts) {
    const n = a.newest;
    const breaksMinor = a.breaks.reduce((s, b) => s + BigInt(b.differenceMinor), 0n).toString();
    lines.push(`${a.currency} settlement account ${a.accountId} (${a.rail}, ${a.format}; ${a.statements} statement${a.statements === 1 ? '' : 's'})`);
    lines.push(`  newest statement ${n.statementRef}${n.sequence ? ` #${n.sequence}` : ''} of ${n.statementDate}, to ${n.periodEnd}: ${n.matched} of ${n.entries} entries matched`);
    lines.push(`  position: bank ${decimal(n.bankMinor)} ${a.currency}, books ${n.booksMinor === null ? '-' : decimal(n.booksMinor)} ${a.currency}, in transit ${n.inTransitMinor === null ? '-' : decimal(n.inTransitMinor)}, open breaks ${decimal(breaksMinor)}`);
    if (a.breaks.length === 0) lines.push('  no open break');
    for (const b of a.breaks) {
      lines.push(`  ${b.kind.padEnd(15)} ${decimal(b.differenceMinor).padStart(12)} ${a.currency}  ${b.reference ?? '-'}  ${b.detail}  (${b.id}, since ${b.openedAt})`);
    }
  }
  return lines.join('\n');
}
