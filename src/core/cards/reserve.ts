/**
 * The rolling reserve of card money (docs/getting-paid.md "Rolling reserve"): a share of each live
 * card deposit's credit stays in the `reserve` balance for a period, then returns to `available`;
 * a dispute beyond the available balance takes from it first. Owns `card_reserves`.
 */
import type { DbOrTx, Environment } from '../../db/schema';
import { parseDuration } from '../../domain/durations';
import { divRound, parseDecimal } from '../../domain/money';
import type { Core } from '../context';
import { post } from '../ledger';

/** What {@link holdCardReserve} reserves: micro-USDC of a card deposit's credit. */
export interface CardReserveInput {
  businessId: string;
  environment: Environment;
  depositId: string;
  cardPaymentId: string | null;
  /** The deposit's net credit, micro-USDC (already posted to `available` in `tx`). */
  credited: bigint;
  /** When the deposit was credited; the reserve is released `CARD_RESERVE_PERIOD` later. */
  creditedAt: Date;
}

/** The reserve settings of the configuration (`CARD_RESERVE_PERCENT`, `CARD_RESERVE_PERIOD`), for {@link holdCardReserve}. */
export function cardReserveSettings(config: { CARD_RESERVE_PERCENT?: string; CARD_RESERVE_PERIOD?: string }): { percent: string; periodMs: number } {
  return { percent: config.CARD_RESERVE_PERCENT ?? '10', periodMs: parseDuration(config.CARD_RESERVE_PERIOD ?? 'P90D') };
}

/** `percent` (decimal string, 0 to 100) of `credited` micro-USDC, rounded down (the business keeps the odd micro-USDC). */
export function reserveShare(credited: bigint, percent: string): bigint {
  const p = parseDecimal(percent);
  return divRound(credited * p.digits, 100n * 10n ** BigInt(p.scale), 'floor');
}

/**
 * In the credit's transaction, after its posting: moves `CARD_RESERVE_PERCENT` of `credited`
 * (rounded down) available -> reserve (posting `deposit:<id>:reserve`) and records the reserve row,
 * released at `creditedAt + CARD_RESERVE_PERIOD`; idempotent on the deposit id (a replay returns the
 * amount first reserved). Returns the micro-USDC reserved (0 when the share is 0). Throws
 * InsufficientFundsError only if `available` no longer covers the share (never after the credit).
 */
export async function holdCardReserve(tx: DbOrTx, input: CardReserveInput, settings: { percent: string; periodMs: number }): Promise<bigint> {
  const existing = await tx.selectFrom('card_reserves').select('amount').where('deposit_id', '=', input.depositId).executeTakeFirst();
  if (existing) return BigInt(existing.amount);
  const amount = reserveShare(input.credited, settings.percent);
  if (amount <= 0n) return 0n;
  await post(tx, { businessId: input.businessId, environment: input.environment, key: `deposit:${input.depositId}:reserve`, from: 'available', to: 'reserve', amount });
  await tx
    .insertInto('card_reserves')
    .values({
      deposit_id: input.depositId,
      business_id: input.businessId,
      environment: input.environment,
      card_payment_id: input.cardPaymentId,
      amount,
      remaining: amount,
      release_at: new Date(input.creditedAt.getTime() + settings.periodMs),
      released_at: null,
      created_at: input.creditedAt,
      updated_at: input.creditedAt,
    })
    .onConflict((oc) => oc.column('deposit_id').doNothing())
    .execute();
  return amount;
}

/**
 * Relay task: releases reserves due at `core.now()` (at most `limit`): posts `remaining`
 * reserve -> available (`deposit:<id>:reserve_release`) and marks the row released, one
 * transaction each; idempotent. Returns how many were released.
 */
export async function releaseDueReserves(core: Core, limit = 100): Promise<number> {
  const now = core.now();
  const due = await core.db
    .selectFrom('card_reserves')
    .select('deposit_id')
    .where('released_at', 'is', null)
    .where('release_at', '<=', now)
    .orderBy('release_at')
    .limit(limit)
    .execute();
  let released = 0;
  for (const { deposit_id } of due) {
    const done = await core.db.transaction().execute(async (tx) => {
      const r = await tx.selectFrom('card_reserves').selectAll().where('deposit_id', '=', deposit_id).where('released_at', 'is', null).forUpdate().executeTakeFirst();
      if (!r) return false;
      const remaining = BigInt(r.remaining);
      if (remaining > 0n) {
        await post(tx, { businessId: r.business_id, environment: r.environment, key: `deposit:${r.deposit_id}:reserve_release`, from: 'reserve', to: 'available', amount: remaining });
      }
      await tx.updateTable('card_reserves').set({ remaining: 0n, released_at: now, updated_at: now }).where('deposit_id', '=', deposit_id).execute();
      return true;
    });
    if (done) released++;
  }
  return released;
}

/**
 * Takes up to `amount` micro-USDC from the business's unreleased reserves for dispute `disputeId`,
 * the earliest release first: posts reserve -> disputes (`card_dispute:<dispute>:reserve:<deposit>`)
 * and lowers each row's `remaining`, in `tx` (the dispute's transaction). Returns what it took.
 */
export async function takeFromReserves(tx: DbOrTx, businessId: string, environment: Environment, disputeId: string, amount: bigint, now: Date): Promise<bigint> {
  if (amount <= 0n) return 0n;
  const rows = await tx
    .selectFrom('card_reserves')
    .select(['deposit_id', 'remaining'])
    .where('business_id', '=', businessId)
    .where('environment', '=', environment)
    .where('released_at', 'is', null)
    .where('remaining', '>', 0n)
    .orderBy('release_at')
    .orderBy('deposit_id')
    .forUpdate()
    .execute();
  let taken = 0n;
  for (const r of rows) {
    if (taken >= amount) break;
    const take = BigInt(r.remaining) < amount - taken ? BigInt(r.remaining) : amount - taken;
    await post(tx, { businessId, environment, key: `card_dispute:${disputeId}:reserve:${r.deposit_id}`, from: 'reserve', to: 'disputes', amount: take });
    await tx.updateTable('card_reserves').set({ remaining: BigInt(r.remaining) - take, updated_at: now }).where('deposit_id', '=', r.deposit_id).execute();
    taken += take;
  }
  return taken;
}
