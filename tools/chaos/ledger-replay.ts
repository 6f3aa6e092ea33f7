/**
 * The ledger replayed from its postings (src/core/ledger.ts: one ledger per business and
 * environment), for the chaos audit, the failover audit (tools/chaos/pg-failover.ts) and the
 * point-in-time restore test (test/e2e/pg-ha.test.ts): each account's net (credits minus debits,
 * micro-USDC), the ledgers that do not sum to zero, and the `balances` rows that differ from the
 * replay.
 */
import type { Db } from '../../src/db/schema';

/** What {@link replayLedger} read and found. */
export interface LedgerReplay {
  postings: Array<{ business_id: string; environment: string; key: string; debit_account: string; credit_account: string; amount: bigint }>;
  balances: Array<{ business_id: string; environment: string; available: bigint; held: bigint; reserve: bigint }>;
  /** `business/environment` -> account -> net (credits minus debits). */
  accounts: Map<string, Record<string, bigint>>;
  /** Postings with an amount not above zero or the same account on both sides. */
  malformed: number;
  /** Ledgers not summing to zero: `business/environment sums to N`. */
  unbalanced: string[];
  /** Balance columns that differ from the replay (`ledger`: `business/environment`). */
  balancesOff: Array<{ ledger: string; environment: string; detail: string }>;
}

/** Reads every posting and balance row and replays them. */
export async function replayLedger(db: Db): Promise<LedgerReplay> {
  const postings = await db.selectFrom('ledger_postings').select(['business_id', 'environment', 'key', 'debit_account', 'credit_account', 'amount']).execute();
  const accounts = new Map<string, Record<string, bigint>>();
  let malformed = 0;
  for (const p of postings) {
    const amount = BigInt(p.amount);
    if (amount <= 0n || p.debit_account === p.credit_account) malformed++;
    const k = `${p.business_id}/${p.environment}`;
    const a = accounts.get(k) ?? {};
    a[p.debit_account] = (a[p.debit_account] ?? 0n) - amount;
    a[p.credit_account] = (a[p.credit_account] ?? 0n) + amount;
    accounts.set(k, a);
  }
  const unbalanced: string[] = [];
  for (const [k, a] of accounts) {
    const sum = Object.values(a).reduce((s, v) => s + v, 0n);
    if (sum !== 0n) unbalanced.push(`${k} sums to ${sum}`);
  }
  const balances = await db.selectFrom('balances').select(['business_id', 'environment', 'available', 'held', 'reserve']).execute();
  const balancesOff: LedgerReplay['balancesOff'] = [];
  for (const b of balances) {
    const ledger = `${b.business_id}/${b.environment}`;
    const a = accounts.get(ledger) ?? {};
    for (const col of ['available', 'held', 'reserve'] as const) {
      if (BigInt(b[col]) !== (a[col] ?? 0n)) balancesOff.push({ ledger, environment: b.environment, detail: `${ledger} ${col} ${b[col]} != replay ${a[col] ?? 0n}` });
    }
  }
  return { postings, balances, accounts, malformed, unbalanced, balancesOff };
}
