import { sql } from 'kysely';
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

/**
 * Applies one posting inside the caller's transaction. Idempotent: if a posting with this key
 * exists, nothing changes and `false` is returned. Throws {@link InsufficientFundsError} when the
 * debited balance does not cover the amount (the caller's transaction must then roll back).
 * Must run in a transaction (the posting row and the balance change commit together).
 */
export async function post(tx: DbOrTx, p: Posting): Promise<boolean> {
  if (p.amount <= 0n) throw new Error(`posting ${p.key}: amount must be positive`);
  await ensureBalanceRow(tx, p.businessId, p.environment);
  const inserted = await tx
    .insertInto('ledger_postings')
    .values({
      business_id: p.businessId,
      environment: p.environment,
      key: p.key,
      currency: USDC,
      debit_account: p.from,
      credit_account: p.to,
      amount: p.amount,
    })
    .onConflict((oc) => oc.columns(['business_id', 'environment', 'key']).doNothing())
    .returning('id')
    .execute();
  if (inserted.length === 0) return false;

  const from = BALANCE_COLUMN[p.from];
  const to = BALANCE_COLUMN[p.to];
  let q = tx
    .updateTable('balances')
    .where('business_id', '=', p.businessId)
    .where('environment', '=', p.environment)
    .where('currency', '=', USDC);
  const set: Record<string, unknown> = { updated_at: new Date() };
  if (from) {
    set[from] = sql`${sql.ref(from)} - ${p.amount}`;
    q = q.where(from, '>=', p.amount);
  }
  if (to) set[to] = sql`${sql.ref(to)} + ${p.amount}`;
  if (!from && !to) return true;
  const res = await q.set(set as any).executeTakeFirst();
  if ((res.numUpdatedRows ?? 0n) === 0n) throw new InsufficientFundsError(p.from, p.amount);
  return true;
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
