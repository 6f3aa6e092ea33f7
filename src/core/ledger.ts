import { type RawBuilder, sql } from 'kysely';
import { ApiError } from '../domain/errors';
import { formatAmount, USDC } from '../domain/money';
import type { DbOrTx, Environment } from '../db/schema';

/**
 * The ledger (docs/architecture.md "Money rules", rule 2). Every balance change is a
 * double-entry posting with a unique key; the database moves the balance row when the posting is
 * inserted, in the same statement (migration 0065, docs/security.md "The database enforces the
 * ledger"), and refuses any other change to a balance and any UPDATE or DELETE of a posting.
 * CHECK (available >= 0, held >= 0) plus the guard (the debited balance row locked and checked in
 * the posting's statement) make a negative balance impossible.
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

/** Whether the posting changes a balance column (available or held). */
const movesBalance = (p: Posting) => BALANCE_COLUMN[p.from] !== undefined || BALANCE_COLUMN[p.to] !== undefined;

/**
 * The guard CTE `balance` of posting `p`: when `p` debits a balance column, the business's balance
 * row, locked (`for no key update`, so a concurrent debit waits and is re-checked against the
 * committed amount) and only when the column covers the amount; otherwise one constant row. The
 * balance itself is moved by the database when the posting row is inserted (migration 0065,
 * trigger `ledger_postings_apply`); the application never writes `available` or `held`.
 */
function balanceGuard(p: Posting): RawBuilder<unknown> {
  const from = BALANCE_COLUMN[p.from];
  if (!from) return sql`balance as (select 1 as covered)`;
  return sql`balance as (
      select 1 as covered from balances
      where business_id = ${p.businessId} and environment = ${p.environment} and currency = ${USDC} and ${sql.ref(from)} >= ${p.amount}
      for no key update
    )`;
}

const postingInsert = (p: Posting) =>
  sql`insert into ledger_postings (business_id, environment, key, currency, debit_account, credit_account, amount)
      select ${p.businessId}, ${p.environment}, ${p.key}, ${USDC}, ${p.from}, ${p.to}, ${p.amount} from balance`;

/**
 * The idempotent posting as part of a larger statement: the SQL of two CTEs to put after `with`,
 * `balance` (the guard, {@link balanceGuard}: one row when the debited balance covers the amount)
 * and `posting` (the posting row, inserted only when the guard passed; none when its key exists).
 * Select `(select count(*) from posting)::int as posted, (select count(*) from balance)::int as
 * moved` and pass them to {@link postingOutcome}. The balance row moves with the posting, in the
 * same statement (the database's trigger), so a statement never moves one without the other.
 */
export function postingCtes(p: Posting): RawBuilder<unknown> {
  if (p.amount <= 0n) throw new Error(`posting ${p.key}: amount must be positive`);
  return sql`${balanceGuard(p)}, posting as (
      ${postingInsert(p)}
      on conflict (business_id, environment, key) do nothing
      returning id
    )`;
}

/**
 * What a statement built on {@link postingCtes} did: 'applied', 'exists' (the key was already
 * posted: nothing changed), or 'unapplied' (nothing posted and the debited balance does not cover
 * the amount; the key may still exist: {@link resolvePostingOutcome} tells). Nothing was written
 * in either of the last two cases, so the caller's transaction stays usable.
 */
export function postingOutcome(p: Posting, posted: number, moved: number): 'applied' | 'exists' | 'unapplied' {
  if (posted > 0) return 'applied';
  return !movesBalance(p) || BALANCE_COLUMN[p.from] === undefined || moved > 0 ? 'exists' : 'unapplied';
}

/**
 * {@link postingOutcome}, telling an uncovered posting whose key already exists ('exists': a
 * retried step after the money moved on) from one that is not covered ('unapplied'). One more
 * query, only on the uncovered path.
 */
export async function resolvePostingOutcome(tx: DbOrTx, p: Posting, posted: number, moved: number): Promise<'applied' | 'exists' | 'unapplied'> {
  const outcome = postingOutcome(p, posted, moved);
  if (outcome !== 'unapplied') return outcome;
  return (await hasPosting(tx, p.businessId, p.environment, p.key)) ? 'exists' : 'unapplied';
}

/**
 * Applies one posting inside the caller's transaction. Idempotent: if a posting with this key
 * exists, nothing changes and `false` is returned. Throws {@link InsufficientFundsError} when the
 * debited balance does not cover the amount (nothing was written: the caller may go on in its
 * transaction, e.g. to record the failure).
 *
 * One statement on the hot path (docs/benchmarks.md): {@link postingCtes}, so the balance row,
 * which every payout of a business locks, is locked for one round trip plus the caller's COMMIT.
 * Callers put their posting last in their transaction for the same reason. The database creates the
 * balance row (zeros) on a business's first posting.
 */
export async function post(tx: DbOrTx, p: Posting): Promise<boolean> {
  const r = await sql<{ posted: number; moved: number }>`
    with ${postingCtes(p)}
    select (select count(*) from posting)::int as posted, (select count(*) from balance)::int as moved`.execute(tx);
  const outcome = await resolvePostingOutcome(tx, p, r.rows[0]!.posted, r.rows[0]!.moved);
  if (outcome === 'unapplied') throw new InsufficientFundsError(p.from, p.amount);
  return outcome === 'applied';
}

/**
 * A posting that gates other writes of the same statement (the one-statement payout accept,
 * src/core/payouts/accept.ts): the SQL of two CTEs to put after `with`, named `balance` (the
 * guard, {@link balanceGuard}: one row when the debited balance covers the amount) and `posting`
 * (the posting, inserted only when it does; the database moves the balance with it). The caller
 * inserts its own rows `from balance` so that all or none are written. The posting key must be
 * new: a key already used fails the whole statement (no ON CONFLICT), so nothing can be applied
 * twice. When the statement finds `balance` empty, call {@link explainUnappliedPosting}.
 */
export function gatedPostingCtes(p: Posting): RawBuilder<unknown> {
  if (p.amount <= 0n) throw new Error(`posting ${p.key}: amount must be positive`);
  if (BALANCE_COLUMN[p.from] === undefined) throw new Error(`posting ${p.key}: a gated posting must debit available or held`);
  return sql`${balanceGuard(p)}, posting as (
      ${postingInsert(p)}
      returning id
    )`;
}

/**
 * After a statement built on {@link gatedPostingCtes} wrote nothing: the debited balance does not
 * cover the amount (a business without a balance row has zero). Always throws
 * {@link InsufficientFundsError}.
 */
export async function explainUnappliedPosting(_tx: DbOrTx, p: Posting): Promise<never> {
  throw new InsufficientFundsError(p.from, p.amount);
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
