import { type RawBuilder, sql } from 'kysely';
import { ApiError } from '../domain/errors';
import { formatAmount, USDC } from '../domain/money';
import type { DbOrTx, Environment } from '../db/schema';
import { noOpenShortfall, openShortfall, payoutsBlocked } from './cards/payout-block';

/**
 * Ledger accounts (docs/architecture.md "Money rules" 2): `available`, `held` (payouts in flight),
 * `reserve` (card money in the rolling reserve), `sent` (left through a rail), `external`, and the
 * card accounts `card_fees` (processor fees), `refunds` (card refunds), `disputes` (chargebacks and
 * their fees). The database moves balances (available, held, reserve) from postings only.
 */
export type Account = 'available' | 'held' | 'reserve' | 'sent' | 'external' | 'card_fees' | 'refunds' | 'disputes';

/** Move `amount` micro-USDC (> 0) from `from` to `to` under `key`, unique per business and environment. */
export interface Posting {
  businessId: string;
  environment: Environment;
  key: string;
  from: Account;
  to: Account;
  amount: bigint;
  /**
   * A new payout's hold: refused while the business has an open card dispute shortfall (403
   * `payouts_blocked`, docs/getting-paid.md "Disputes"); the condition joins the balance guard.
   */
  refusedWhenPayoutsBlocked?: boolean;
}

const BALANCE_COLUMN: Partial<Record<Account, 'available' | 'held' | 'reserve'>> = { available: 'available', held: 'held', reserve: 'reserve' };

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

const movesBalance = (p: Posting) => BALANCE_COLUMN[p.from] !== undefined || BALANCE_COLUMN[p.to] !== undefined;

/** The guard CTE `balance`: the debited balance row locked `for no key update` only when it covers the amount. */
function balanceGuard(p: Posting): RawBuilder<unknown> {
  const from = BALANCE_COLUMN[p.from];
  if (!from) return sql`balance as (select 1 as covered)`;
  return sql`balance as (
      select 1 as covered from balances
      where business_id = ${p.businessId} and environment = ${p.environment} and currency = ${USDC} and ${sql.ref(from)} >= ${p.amount}${p.refusedWhenPayoutsBlocked ? sql` and ${noOpenShortfall(p.businessId, p.environment)}` : sql``}
      for no key update
    )`;
}

const postingInsert = (p: Posting) =>
  sql`insert into ledger_postings (business_id, environment, key, currency, debit_account, credit_account, amount)
      select ${p.businessId}, ${p.environment}, ${p.key}, ${USDC}, ${p.from}, ${p.to}, ${p.amount} from balance`;

/** The idempotent posting as CTEs `balance` and `posting` (none when its key exists), for {@link postingOutcome}. */
export function postingCtes(p: Posting): RawBuilder<unknown> {
  if (p.amount <= 0n) throw new Error(`posting ${p.key}: amount must be positive`);
  return sql`${balanceGuard(p)}, posting as (
      ${postingInsert(p)}
      on conflict (business_id, environment, key) do nothing
      returning id
    )`;
}

/** 'applied', 'exists' or 'unapplied' (not covered; nothing written, the key may exist: {@link resolvePostingOutcome}). */
export function postingOutcome(p: Posting, posted: number, moved: number): 'applied' | 'exists' | 'unapplied' {
  if (posted > 0) return 'applied';
  return !movesBalance(p) || BALANCE_COLUMN[p.from] === undefined || moved > 0 ? 'exists' : 'unapplied';
}

export async function resolvePostingOutcome(tx: DbOrTx, p: Posting, posted: number, moved: number): Promise<'applied' | 'exists' | 'unapplied'> {
  const outcome = postingOutcome(p, posted, moved);
  if (outcome !== 'unapplied') return outcome;
  return (await hasPosting(tx, p.businessId, p.environment, p.key)) ? 'exists' : 'unapplied';
}

/**
 * Applies one posting in the caller's transaction; idempotent (`false` when the key exists). Throws
 * {@link InsufficientFundsError} when not covered, having written nothing. One statement, so the
 * business's balance row is locked for one round trip plus COMMIT: callers post last.
 */
export async function post(tx: DbOrTx, p: Posting): Promise<boolean> {
  const r = await sql<{ posted: number; moved: number }>`
    with ${postingCtes(p)}
    select (select count(*) from posting)::int as posted, (select count(*) from balance)::int as moved`.execute(tx);
  const outcome = await resolvePostingOutcome(tx, p, r.rows[0]!.posted, r.rows[0]!.moved);
  if (outcome === 'unapplied') return explainUnappliedPosting(tx, p);
  return outcome === 'applied';
}

/**
 * CTEs that gate the caller's own inserts (`from balance`): all or none are written. The key must be
 * new (no ON CONFLICT). When `balance` is empty, call {@link explainUnappliedPosting}.
 */
export function gatedPostingCtes(p: Posting): RawBuilder<unknown> {
  if (p.amount <= 0n) throw new Error(`posting ${p.key}: amount must be positive`);
  if (BALANCE_COLUMN[p.from] === undefined) throw new Error(`posting ${p.key}: a gated posting must debit available or held`);
  return sql`${balanceGuard(p)}, posting as (
      ${postingInsert(p)}
      returning id
    )`;
}

/** Throws why a posting was not applied: ApiError 403 `payouts_blocked` for a blocked hold, else {@link InsufficientFundsError}. */
export async function explainUnappliedPosting(tx: DbOrTx, p: Posting): Promise<never> {
  if (p.refusedWhenPayoutsBlocked) {
    const blocked = await openShortfall(tx, p.businessId, p.environment);
    if (blocked) throw payoutsBlocked(blocked);
  }
  throw new InsufficientFundsError(p.from, p.amount);
}

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
): Promise<{ available: bigint; held: bigint; reserve: bigint }> {
  const row = await db
    .selectFrom('balances')
    .select(['available', 'held', 'reserve'])
    .where('business_id', '=', businessId)
    .where('environment', '=', environment)
    .where('currency', '=', USDC)
    .executeTakeFirst();
  return { available: row?.available ?? 0n, held: row?.held ?? 0n, reserve: row?.reserve ?? 0n };
}

export function insufficientBalance(needed: bigint, available: bigint, param: string | null = null): ApiError {
  return new ApiError(
    402,
    'insufficient_balance',
    `Balance does not cover this: ${formatAmount(needed, USDC)} USDC needed, ${formatAmount(available, USDC)} USDC available`,
    param,
  );
}
