/**
 * The payout block of a dispute shortfall (docs/getting-paid.md "Disputes"): while a business has a
 * dispute whose withdrawal its balance and reserve did not cover (`card_disputes.shortfall > 0`, not
 * recovered), its new payouts are refused at acceptance with 403 `payouts_blocked`. The condition is
 * folded into the hold's balance guard (src/core/ledger.ts), so an accepted payout costs no extra
 * statement; the refusal is explained only on the failure path. Reads `card_disputes` (owned by
 * src/core/cards/disputes.ts); writes nothing.
 */
import { type RawBuilder, sql } from 'kysely';
import type { DbOrTx, Environment } from '../../db/schema';
import { ApiError } from '../../domain/errors';
import { formatAmount, USDC } from '../../domain/money';

/** SQL condition true when the business has no open dispute shortfall (index `card_disputes_shortfall`). */
export function noOpenShortfall(businessId: string, environment: Environment): RawBuilder<boolean> {
  return sql<boolean>`not exists (
      select 1 from card_disputes
      where business_id = ${businessId} and environment = ${environment} and shortfall > 0 and recovered_at is null
    )`;
}

/** The oldest open dispute shortfall of a business (micro-USDC), or undefined when its payouts are not blocked. */
export async function openShortfall(db: DbOrTx, businessId: string, environment: Environment): Promise<{ disputeId: string; shortfall: bigint } | undefined> {
  const row = await db
    .selectFrom('card_disputes')
    .select(['id', 'shortfall'])
    .where('business_id', '=', businessId)
    .where('environment', '=', environment)
    .where('shortfall', '>', 0n)
    .where('recovered_at', 'is', null)
    .orderBy('withdrawn_at')
    .orderBy('id')
    .executeTakeFirst();
  return row ? { disputeId: row.id, shortfall: BigInt(row.shortfall) } : undefined;
}

/** 403 `payouts_blocked` (docs/integration.md "Errors"): new payouts wait until the dispute shortfall is covered. */
export function payoutsBlocked(s: { disputeId: string; shortfall: bigint }): ApiError {
  return new ApiError(
    403,
    'payouts_blocked',
    `New payouts are blocked: card dispute ${s.disputeId} left a shortfall of ${formatAmount(s.shortfall, USDC)} USDC that the balance did not cover; fund the balance and payouts resume once it is recovered`,
    null,
    { disputeId: s.disputeId, shortfall: formatAmount(s.shortfall, USDC) },
  );
}
