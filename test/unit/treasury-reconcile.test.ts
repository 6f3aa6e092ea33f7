/**
 * The reconciliation of a settlement account (src/core/treasury/reconcile.ts, docs/treasury.md
 * "How an account is reconciled"): arithmetic, chaining, matching and every break kind, with
 * amounts; a pure function, so each rule is shown on the smallest statements that need it.
 */
import { describe, expect, it } from 'vitest';
import { type ExpectedMovement, reconcileAccount, type StatementView } from '../../src/core/treasury/reconcile';

const T0 = new Date('2026-11-27T00:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

function statement(id: string, sequence: number | null, opening: bigint, entries: Array<[cd: 'CRDT' | 'DBIT', amount: bigint, ...keys: string[]]>, closing?: bigint, endMinutes = 60 * sequence!): StatementView {
  const sum = entries.reduce((s, [cd, a]) => s + (cd === 'CRDT' ? a : -a), 0n);
  return {
    id,
    sequence: sequence === null ? null : BigInt(sequence),
    periodEnd: at(endMinutes),
    openingMinor: opening,
    closingMinor: closing ?? opening + sum,
    entries: entries.map(([cd, a, ...keys], i) => ({ id: `${id}:${i}`, creditDebit: cd, amountMinor: a, keys, reference: keys[0]?.split(':')[1] ?? null, description: null })),
  };
}

const move = (key: string, amount: bigint, minutes: number): ExpectedMovement => ({
  key,
  creditDebit: key.startsWith('CRDT') ? 'CRDT' : 'DBIT',
  amountMinor: amount,
  at: at(minutes),
  reference: key.split(':')[1],
  description: `movement ${key}`,
});

const run = (statements: StatementView[], expected: ExpectedMovement[], graceMs = 0) => reconcileAccount({ statements, expected, graceMs, anchor: T0 });
const kinds = (r: ReturnType<typeof run>) => r.breaks.map((b) => [b.kind, b.key, b.differenceMinor]);

describe('reconcileAccount', () => {
  it('matches every entry to the movement its first known key names; no break when all agree', () => {
    const s = statement('s1', 1, 100_000n, [
      ['DBIT', 1840n, 'DBIT:po-a-1', 'DBIT:BOOK-1'],
      ['CRDT', 5000n, 'CRDT:NOTOURS', 'CRDT:CREDIT-1'],
      ['CRDT', 1840n, 'CRDT:po-a-1'],
    ]);
    const r = run([s], [move('DBIT:po-a-1', 1840n, 10), move('CRDT:CREDIT-1', 5000n, 20), move('CRDT:po-a-1', 1840n, 30)]);
    expect(r.breaks).toEqual([]);
    expect([...r.matches.entries()]).toEqual([['s1:0', 'DBIT:po-a-1'], ['s1:1', 'CRDT:CREDIT-1'], ['s1:2', 'CRDT:po-a-1']]);
    expect(r.position).toEqual({ statementId: 's1', periodEnd: at(60), bankMinor: 105_000n, booksMinor: 105_000n, inTransitMinor: 0n });
  });

  it('a fee we never booked is bank_only; a return the bank never booked is books_only; the position differs by exactly those', () => {
    const s = statement('s1', 1, 100_000n, [
      ['DBIT', 2000n, 'DBIT:091000010000001'],
      ['DBIT', 2000n, 'DBIT:091000010000002'],
      ['DBIT', 750n, 'DBIT:FEE-EUR-1'],
    ]);
    const r = run([s], [move('DBIT:091000010000001', 2000n, 5), move('DBIT:091000010000002', 2000n, 5), move('CRDT:091000010000002', 2000n, 6)]);
    expect(kinds(r)).toEqual([
      ['bank_only', 's1:2', -750n],
      ['books_only', 'CRDT:091000010000002', -2000n],
    ]);
    expect(r.breaks[0]).toMatchObject({ bankAmountMinor: -750n, booksAmountMinor: null, entryId: 's1:2', reference: 'FEE-EUR-1' });
    expect(r.breaks[1]).toMatchObject({ bankAmountMinor: null, booksAmountMinor: 2000n, statementId: 's1', reference: '091000010000002' });
    expect(r.position!.bankMinor - r.position!.booksMinor).toBe(-750n - 2000n);
  });

  it('a matched entry of another amount is an amount_mismatch (bank minus books)', () => {
    const r = run([statement('s1', 1, 0n, [['CRDT', 1500n, 'CRDT:po-b-1']])], [move('CRDT:po-b-1', 1840n, 1)]);
    expect(kinds(r)).toEqual([['amount_mismatch', 'CRDT:po-b-1', -340n]]);
    expect(r.breaks[0]).toMatchObject({ bankAmountMinor: 1500n, booksAmountMinor: 1840n, entryId: 's1:0' });
    expect(r.breaks[0].detail).toContain('the bank booked 15.00, our books expect 18.40');
  });

  it('the same movement booked twice by the bank: the second is bank_only', () => {
    const r = run([statement('s1', 1, 0n, [['DBIT', 100n, 'DBIT:x'], ['DBIT', 100n, 'DBIT:x']])], [move('DBIT:x', 100n, 1)]);
    expect(kinds(r)).toEqual([['bank_only', 's1:1', -100n]]);
  });

  it('a statement whose entries do not add up to its closing balance is a balance_drift (arithmetic)', () => {
    const r = run([statement('s1', 1, 1000n, [['DBIT', 100n, 'DBIT:x']], 950n)], [move('DBIT:x', 100n, 1)]);
    expect(kinds(r)).toEqual([['balance_drift', 'arithmetic:s1', 50n]]);
    expect(r.breaks[0].detail).toBe('closing balance 9.50 is not the opening balance 10.00 plus the entries -1.00');
  });

  it('consecutive statements chain: an opening balance other than the previous closing is a balance_drift (chain), whatever order they arrive in', () => {
    const s1 = statement('s1', 1, 1000n, [['DBIT', 100n, 'DBIT:x']]);
    const s2 = statement('s2', 2, 900n, []);
    const s3 = statement('s3', 3, 875n, [['CRDT', 25n, 'CRDT:y']]);
    const expected = [move('DBIT:x', 100n, 1), move('CRDT:y', 25n, 150)];
    expect(kinds(run([s3, s1, s2], expected))).toEqual([['balance_drift', 'chain:s3', -25n]]);
    expect(run([s2, s1], expected.slice(0, 1)).breaks).toEqual([]);
  });

  it('a missing statement number is a balance_drift (gap) for the difference it hides', () => {
    const s1 = statement('s1', 1, 1000n, []);
    const s4 = statement('s4', 4, 700n, []);
    const r = run([s1, s4], []);
    expect(kinds(r)).toEqual([['balance_drift', 'gap:s4', -300n]]);
    expect(r.breaks[0].detail).toBe('statement 2 to 3 missing between 1 and 4');
  });

  it('statements without sequence numbers chain by period end', () => {
    const a = statement('a', null, 1000n, [], undefined, 60);
    const b = statement('b', null, 999n, [], undefined, 120);
    expect(kinds(run([b, a], []))).toEqual([['balance_drift', 'chain:b', -1n]]);
  });

  it('a movement younger than the grace is in transit, not a break; once older, books_only; a later statement that books it resolves it', () => {
    const s1 = statement('s1', 1, 0n, []);
    const late = move('DBIT:z', 300n, 55);
    const inTransit = run([s1], [late], 10 * 60_000);
    expect(inTransit.breaks).toEqual([]);
    expect(inTransit.position).toMatchObject({ booksMinor: -300n, bankMinor: 0n, inTransitMinor: -300n });
    expect(kinds(run([s1], [late], 60_000))).toEqual([['books_only', 'DBIT:z', 300n]]);
    const s2 = statement('s2', 2, 0n, [['DBIT', 300n, 'DBIT:z']]);
    const r = run([s1, s2], [late], 60_000);
    expect(r.breaks).toEqual([]);
    expect(r.matches.get('s2:0')).toBe('DBIT:z');
  });

  it('movements before the first statement (the anchor) or after the newest period end are not expected yet', () => {
    const s1 = statement('s1', 1, 0n, []);
    const r = reconcileAccount({ statements: [s1], expected: [move('DBIT:old', 1n, -5), move('DBIT:future', 1n, 61)], graceMs: 0, anchor: T0 });
    expect(r.breaks).toEqual([]);
    expect(r.position!.booksMinor).toBe(0n);
  });

  it('no statement: nothing to say', () => {
    expect(run([], [move('DBIT:x', 1n, 1)])).toEqual({ matches: new Map(), breaks: [], position: null });
  });
});
