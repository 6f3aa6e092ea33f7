/**
 * The reconciliation of one settlement account (docs/treasury.md "How an account is reconciled"):
 * a pure function from the account's statements (with their entries) and the movements our books
 * expect on it to the matches and the breaks. No I/O: src/core/treasury/statements.ts loads the
 * inputs and records the result. Amounts are signed `bigint` minor units, credits positive.
 */
import type { SettlementMovement } from '../../rails/adapter';

/** One booked entry of a statement. */
export interface StatementEntryView {
  id: string;
  creditDebit: 'CRDT' | 'DBIT';
  /** Positive integer minor units. */
  amountMinor: bigint;
  /** Keys it may match, best first (`DBIT:<EndToEndId>`, `CRDT:<trace number>`, `CRDT:<bank reference>`). */
  keys: string[];
  reference: string | null;
  description: string | null;
}

/** One statement of the account. */
export interface StatementView {
  id: string;
  /** The bank's running number, or null (then statements chain by period end). */
  sequence: bigint | null;
  periodEnd: Date;
  openingMinor: bigint;
  closingMinor: bigint;
  entries: StatementEntryView[];
}

/** A movement our books expect on the account (docs/treasury.md "What the books expect"); a rail module's `statements` part derives them. */
export type ExpectedMovement = SettlementMovement;

/** A break the reconciliation finds (see TreasuryBreaksTable). */
export interface FoundBreak {
  kind: 'bank_only' | 'books_only' | 'amount_mismatch' | 'balance_drift';
  key: string;
  statementId: string | null;
  entryId: string | null;
  reference: string | null;
  /** Signed minor units (credits positive). */
  bankAmountMinor: bigint | null;
  booksAmountMinor: bigint | null;
  /** Bank minus books. */
  differenceMinor: bigint;
  detail: string;
}

/** The position of the account at the newest statement's period end. */
export interface AccountPosition {
  statementId: string;
  periodEnd: Date;
  /** The bank's closing booked balance. */
  bankMinor: bigint;
  /** The first statement's opening balance plus every movement our books expect up to period end. */
  booksMinor: bigint;
  /** Expected movements not on any statement yet and still within the grace (not breaks yet). */
  inTransitMinor: bigint;
}

/** What {@link reconcileAccount} answers. */
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
 * Reconciles one account:
 *
 * 1. **Arithmetic.** Each statement's opening balance plus its entries must equal its closing
 *    balance; otherwise a `balance_drift` break `arithmetic:<statement>` for the difference.
 * 2. **Chain.** Each statement's opening balance must equal the previous statement's closing
 *    balance (`chain:<statement>`); with sequence numbers, a missing number is a `gap:<statement>`.
 * 3. **Matching.** Every entry, oldest statement first, matches the first of its keys that names
 *    an expected movement not matched yet. A different amount is an `amount_mismatch` (key: the
 *    expected key); no such movement is `bank_only` (key: the entry id).
 * 4. **Books only.** An expected movement no entry matched, expected at least `graceMs` before
 *    the newest statement's period end (and not before the first statement's period start,
 *    `anchor`), is `books_only`; a younger one is in transit.
 *
 * The same inputs give the same answer, so the caller can run it again whenever a statement or a
 * book entry arrives: a break that is no longer found is resolved.
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
