import { type RawBuilder, sql } from 'kysely';
import { ApiError } from '../domain/errors';
import { formatAmount, USDC } from '../domain/money';
import type { DbOrTx, Environment } from '../db/schema';

/**
 * The ledger (docs/architecture.md "Money rules", rule 2). Every balance change is a
 * double-entry posting with a unique key; the balance row is updated in the same transaction, and
 * CHECK (available >= 0, held >= 0) plus the guarded UPDATE make a negative balance impossible.
 *
 * Accounts of a business and environment:
 * - `available`: spendable balance;
 * - `held`: reserved for payouts in flight (a hold);
 * - `sent`: left through a rail (settled payouts);
 * - `external`: the outside world (deposits, sandbox funding, refunds coming back).
 *
 * Movements: fund (external -> available), hold (available -> held), settle (held -> sent),
 * release (held -> available), refund (sent -> available).
 */
export type Account = 'available' | 'held' | 'sent' | 'external';

/** A posting request: move `amount` micro-USDC from `from` to `to` under the unique `key`. */
export interface Posting {
  businessId: string;
  environment: Environment;
  /** Unique per business and environment, e.g. `payout:po_…:hold`. */
  key: string;
  from: Account;
  to: Account;
  /** Micro-USDC, > 0. */
  amount: bigint;
}

const BALANCE_COLUMN: Partial<Record<Account, 'available' | 'held'>> = { available: 'available', held: 'held' };

/** Thrown by {@link post} when `available` (or `held`) would go below zero. */
export class InsufficientFundsError extends Error {
  constructor(
    readonly account: Account,
    readonly needed: bigint,
  ) {
    super(`insufficient ${account} balance`);
    this.name = 'InsufficientFundsError';
  }
}

async function ensureBalanceRow(tx: DbOrTx, businessId: string, environment: Environment): Promise<void> {
  await tx
    .insertInto('balances')
    .values({ business_id: businessId, environment, currency: USDC, available: 0n, held: 0n, updated_at: new Date() })
    .onConflict((oc) => oc.columns(['business_id', 'environment', 'currency']).doNothing())
    .execute();
}

/** Whether the posting changes a balance column (available or held). */
const movesBalance = (p: Posting) => BALANCE_COLUMN[p.from] !== undefined || BALANCE_COLUMN[p.to] !== undefined;

/**
 * The UPDATE of the business's balance row for posting `p`: `column - amount` on the debited
 * column, guarded (only when it covers the amount), and `column + amount` on the credited one;
 * `gate` adds a condition (e.g. that the posting row was inserted).
 */
function balanceUpdate(p: Posting, gate: RawBuilder<unknown> = sql``): RawBuilder<unknown> {
  const from = BALANCE_COLUMN[p.from];
  const to = BALANCE_COLUMN[p.to];
  const set: RawBuilder<unknown>[] = [sql`updated_at = now()`];
  const where: RawBuilder<unknown>[] = [sql`business_id = ${p.businessId}`, sql`environment = ${p.environment}`, sql`currency = ${USDC}`];
  if (from) {
    set.push(sql`${sql.ref(from)} = ${sql.ref(from)} - ${p.amount}`);
    where.push(sql`${sql.ref(from)} >= ${p.amount}`);
  }
  if (to) set.push(sql`${sql.ref(to)} = ${sql.ref(to)} + ${p.amount}`);
  return sql`update balances set ${sql.join(set, sql`, `)} where ${sql.join(where, sql` and `)}${gate}`;
}

/**
 * The idempotent posting as part of a larger statement: the SQL of two CTEs to put after `with`,
 * `posting` (the posting row; none when its key exists) and `balance` (the guarded UPDATE of the
 * balance row, applied only when the posting was inserted). Select
 * `(select count(*) from posting)::int as posted, (select count(*) from balance)::int as moved`
 * and pass them to {@link postingOutcome}.
 */
export function postingCtes(p: Posting): RawBuilder<unknown> {
  if (p.amount <= 0n) throw new Error(`posting ${p.key}: amount must be positive`);
  return sql`posting as (
      insert into ledger_postings (business_id, environment, key, currency, debit_account, credit_account, amount)
      values (${p.businessId}, ${p.environment}, ${p.key}, ${USDC}, ${p.from}, ${p.to}, ${p.amount})
      on conflict (business_id, environment, key) do nothing
      returning id
    ), balance as (
      ${balanceUpdate(p, sql` and ${sql.lit(movesBalance(p))} and exists (select 1 from posting)`)}
      returning 1
    )`;
}

/**
 * What a statement built on {@link postingCtes} did: 'applied', 'exists' (the key was already
 * posted: nothing changed), or 'unapplied' (posted but no balance row changed: the amount is not
 * covered, or the business has no balance row yet; the caller's transaction must not commit).
 */
export function postingOutcome(p: Posting, posted: number, moved: number): 'applied' | 'exists' | 'unapplied' {
  if (posted === 0) return 'exists';
  return !movesBalance(p) || moved === 1 ? 'applied' : 'unapplied';
}

/**
 * Applies one posting inside the caller's transaction. Idempotent: if a posting with this key
 * exists, nothing changes and `false` is returned. Throws {@link InsufficientFundsError} when the
 * debited balance does not cover the amount (the caller's transaction must then roll back).
 * Must run in a transaction (the posting row and the balance change commit together).
 *
 * One statement on the hot path (docs/benchmarks.md): {@link postingCtes}, so the balance row,
 * which every payout of a business locks, is locked for one round trip plus the caller's COMMIT.
 * Callers put their posting last in their transaction for the same reason. The balance row is
 * created (once, on a business's first posting) only when the UPDATE finds none.
 */
export async function post(tx: DbOrTx, p: Posting): Promise<boolean> {
  const r = await sql<{ posted: number; moved: number }>`
    with ${postingCtes(p)}
    select (select count(*) from posting)::int as posted, (select count(*) from balance)::int as moved`.execute(tx);
  const outcome = postingOutcome(p, r.rows[0]!.posted, r.rows[0]!.moved);
  if (outcome !== 'unapplied') return outcome === 'applied';
  // No row changed: the balance does not cover the amount, or the business has no balance row yet.
  await explainUnappliedPosting(tx, p);
  const again = await balanceUpdate(p).execute(tx);
  if ((again.numAffectedRows ?? 0n) === 0n) throw new InsufficientFundsError(p.from, p.amount);
  return true;
}

/**
 * A posting that gates other writes of the same statement (the one-statement payout accept,
 * src/core/payouts/accept.ts): the SQL of two CTEs to put after `with`, named `balance` (the
 * guarded UPDATE of the balance row; one row when it covered the amount) and `posting` (the
 * posting, inserted only when the balance moved). The caller inserts its own rows `from balance`
 * so that all or none are written. The posting key must be new: a key already used fails the whole
 * statement (no ON CONFLICT), so nothing can be applied twice. When the statement finds `balance`
 * empty, call {@link explainUnappliedPosting}.
 */
export function gatedPostingCtes(p: Posting): RawBuilder<unknown> {
  if (p.amount <= 0n) throw new Error(`posting ${p.key}: amount must be positive`);
  if (BALANCE_COLUMN[p.from] === undefined) throw new Error(`posting ${p.key}: a gated posting must debit available or held`);
  return sql`balance as (
      ${balanceUpdate(p)}
      returning 1
    ), posting as (
      insert into ledger_postings (business_id, environment, key, currency, debit_account, credit_account, amount)
      select ${p.businessId}, ${p.environment}, ${p.key}, ${USDC}, ${p.from}, ${p.to}, ${p.amount} from balance
      returning id
    )`;
}

/**
 * After a statement built on {@link gatedPostingCtes} wrote nothing: a business without a balance
 * row yet gets one (zeros) and the caller may run its statement again ('retry': it then fails on
 * the guard if the amount is not covered); otherwise throws {@link InsufficientFundsError}.
 */
export async function explainUnappliedPosting(tx: DbOrTx, p: Posting): Promise<'retry'> {
  const row = await tx
    .selectFrom('balances')
    .select('held')
    .where('business_id', '=', p.businessId)
    .where('environment', '=', p.environment)
    .where('currency', '=', USDC)
    .executeTakeFirst();
  if (row) throw new InsufficientFundsError(p.from, p.amount);
  await ensureBalanceRow(tx, p.businessId, p.environment);
  return 'retry';
}

/** Whether a posting with `key` exists. */
export async function hasPosting(db: DbOrTx, businessId: string, environment: Environment, key: string): Promise<boolean> {
  const row = await db
    .selectFrom('ledger_postings')
    .select('id')
    .where('business_id', '=', businessId)
    .where('environment', '=', environment)
    .where('key', '=', key)
    .executeTakeFirst();
  return !!row;
}

/** Balance of a business and environment in micro-USDC (zeros when it never had one). */
export async function getBalance(
  db: DbOrTx,
  businessId: string,
  environment: Environment,
): Promise<{ available: bigint; held: bigint }> {
  const row = await db
    .selectFrom('balances')
    .select(['available', 'held'])
    .where('business_id', '=', businessId)
    .where('environment', '=', environment)
    .where('currency', '=', USDC)
    .executeTakeFirst();
  return { available: row?.available ?? 0n, held: row?.held ?? 0n };
}

/** The spec's 402 insufficient_balance error, with the amounts in the message. */
export function insufficientBalance(needed: bigint, available: bigint, param: string | null = null): ApiError {
  return new ApiError(
    402,
    'insufficient_balance',
    `Balance does not cover this: ${formatAmount(needed, USDC)} USDC needed, ${formatAmount(available, USDC)} USDC available`,
    param,
  );
}
