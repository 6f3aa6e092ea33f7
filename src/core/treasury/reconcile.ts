/**
 * The reconciliation of one settlement account (docs/treasury.md "How an account is reconciled"),
 * pure. Amounts are signed `bigint` minor units, credits positive.
 */
import type { SettlementMovement } from '../../rails/adapter';

export interface StatementEntryView {
  id: string;
  creditDebit: 'CRDT' | 'DBIT';
  amountMinor: bigint;
  /** Keys it may match, best first (`DBIT:<EndToEndId>`, `CRDT:<trace number>`, `CRDT:<bank reference>`). */
  keys: string[];
  reference: string | null;
  description: string | null;
}

export interface StatementView {
  id: string;
  /** The bank's running number, or null (then statements chain by period end). */
  sequence: bigint | null;
  periodEnd: Date;
  openingMinor: bigint;
  closingMinor: bigint;
  entries: StatementEntryView[];
}

export type ExpectedMovement = SettlementMovement;

export interface FoundBreak {
  kind: 'bank_only' | 'books_only' | 'amount_mismatch' | 'balance_drift';
  key: string;
  statementId: string | null;
  entryId: string | null;
  reference: string | null;
  bankAmountMinor: bigint | null;
  booksAmountMinor: bigint | null;
  /** Bank minus books. */
  differenceMinor: bigint;
  detail: string;
}

export interface AccountPosition {
  statementId: string;
  periodEnd: Date;
  bankMinor: bigint;
  /** The first statement's opening balance plus every movement our books expect up to period end. */
  booksMinor: bigint;
  /** Expected movements not on any statement yet and still within the grace (not breaks yet). */
  inTransitMinor: bigint;
}

export interface Reconciliation {
  /** Entry id to the expected key it matched (absent: matched nothing). */
  matches: Map<string, string>;
  breaks: FoundBreak[];
  position: AccountPosition | null;
}

const signedOf = (cd: 'CRDT' | 'DBIT', amount: bigint) => (cd === 'CRDT' ? amount : -amount);

const fmt = (minor: bigint) => {
  const neg = minor < 0n;
  const abs = (neg ? -minor : minor).toString().padStart(3, '0');
  return `${neg ? '-' : ''}${abs.slice(0, -2)}.${abs.slice(-2)}`;
};

/** Statements in chain order: by sequence when every statement has one, else by period end. */
export function chainOrder(statements: readonly StatementView[]): StatementView[] {
  const bySequence = statements.every((s) => s.sequence !== null);
  return [...statements].sort((a, b) =>
    bySequence ? (a.sequence! < b.sequence! ? -1 : a.sequence! > b.sequence! ? 1 : 0) : a.periodEnd.getTime() - b.periodEnd.getTime(),
  );
}

/**
 * Reconciles one account (the steps and break kinds are in docs/treasury.md): arithmetic, chain,
 * matching (each entry takes the first unmatched movement of its keys), then `books_only` for a
 * movement unmatched `graceMs` before the newest period end. Deterministic, so it is re-run on
 * every new statement or book entry and a break no longer found is resolved.
 */
export function reconcileAccount(input: { statements: readonly StatementView[]; expected: readonly ExpectedMovement[]; graceMs: number; anchor: Date | null }): Reconciliation {
  const statements = chainOrder(input.statements);
  const breaks: FoundBreak[] = [];
  const matches = new Map<string, string>();
  if (statements.length === 0) return { matches, breaks, position: null };
  const expected = input.expected.filter((m) => !input.anchor || m.at.getTime() >= input.anchor.getTime());
  const byKey = new Map(expected.map((m) => [m.key, m]));
  const taken = new Set<string>();

  let previous: StatementView | null = null;
  for (const s of statements) {
    const sum = s.entries.reduce((acc, e) => acc + signedOf(e.creditDebit, e.amountMinor), 0n);
    if (s.openingMinor + sum !== s.closingMinor) {
      breaks.push({
        kind: 'balance_drift',
        key: `arithmetic:${s.id}`,
        statementId: s.id,
        entryId: null,
        reference: null,
        bankAmountMinor: s.closingMinor,
        booksAmountMinor: s.openingMinor + sum,
        differenceMinor: s.closingMinor - (s.openingMinor + sum),
        detail: `closing balance ${fmt(s.closingMinor)} is not the opening balance ${fmt(s.openingMinor)} plus the entries ${fmt(sum)}`,
      });
    }
    if (previous) {
      if (s.sequence !== null && previous.sequence !== null && s.sequence !== previous.sequence + 1n) {
        breaks.push({
          kind: 'balance_drift',
          key: `gap:${s.id}`,
          statementId: s.id,
          entryId: null,
          reference: null,
          bankAmountMinor: s.openingMinor,
          booksAmountMinor: previous.closingMinor,
          differenceMinor: s.openingMinor - previous.closingMinor,
          detail: `statement ${previous.sequence + 1n}${s.sequence > previous.sequence + 2n ? ` to ${s.sequence - 1n}` : ''} missing between ${previous.sequence} and ${s.sequence}`,
        });
      } else if (s.openingMinor !== previous.closingMinor) {
        breaks.push({
          kind: 'balance_drift',
          key: `chain:${s.id}`,
          statementId: s.id,
          entryId: null,
          reference: null,
          bankAmountMinor: s.openingMinor,
          booksAmountMinor: previous.closingMinor,
          differenceMinor: s.openingMinor - previous.closingMinor,
          detail: `opening balance ${fmt(s.openingMinor)} is not the previous statement's closing balance ${fmt(previous.closingMinor)}`,
        });
      }
    }
    previous = s;
    for (const e of s.entries) {
      const bank = signedOf(e.creditDebit, e.amountMinor);
      const key = e.keys.find((k) => byKey.has(k) && !taken.has(k));
      if (!key) {
        breaks.push({
          kind: 'bank_only',
          key: e.id,
          statementId: s.id,
          entryId: e.id,
          reference: e.reference,
          bankAmountMinor: bank,
          booksAmountMinor: null,
          differenceMinor: bank,
          detail: `${e.creditDebit === 'CRDT' ? 'credit' : 'debit'} of ${fmt(e.amountMinor)} on the statement that our books do not expect${e.description ? `: ${e.description}` : ''}`,
        });
        continue;
      }
      taken.add(key);
      matches.set(e.id, key);
      const m = byKey.get(key)!;
      const books = signedOf(m.creditDebit, m.amountMinor);
      if (books !== bank) {
        breaks.push({
          kind: 'amount_mismatch',
          key,
          statementId: s.id,
          entryId: e.id,
          reference: m.reference,
          bankAmountMinor: bank,
          booksAmountMinor: books,
          differenceMinor: bank - books,
          detail: `the bank booked ${fmt(bank)}, our books expect ${fmt(books)} (${m.description})`,
        });
      }
    }
  }

  const newest = statements[statements.length - 1];
  const end = newest.periodEnd.getTime();
  let booksMinor = statements[0].openingMinor;
  let inTransitMinor = 0n;
  for (const m of expected) {
    if (m.at.getTime() > end) continue;
    const books = signedOf(m.creditDebit, m.amountMinor);
    booksMinor += books;
    if (taken.has(m.key)) continue;
    if (m.at.getTime() > end - input.graceMs) {
      inTransitMinor += books;
      continue;
    }
    breaks.push({
      kind: 'books_only',
      key: m.key,
      statementId: newest.id,
      entryId: null,
      reference: m.reference,
      bankAmountMinor: null,
      booksAmountMinor: books,
      differenceMinor: -books,
      detail: `${m.description}: expected ${m.creditDebit === 'CRDT' ? 'credit' : 'debit'} of ${fmt(m.amountMinor)} by ${m.at.toISOString()}, on no statement up to ${newest.periodEnd.toISOString()}`,
    });
  }
  return { matches, breaks, position: { statementId: newest.id, periodEnd: newest.periodEnd, bankMinor: newest.closingMinor, booksMinor, inTransitMinor } };
}
