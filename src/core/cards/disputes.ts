/**
 * Disputes of card payments (docs/getting-paid.md "Disputes", where the money rules are): funds
 * withdrawn take `amount + fee` (micro-USDC at the deposit's rate, rounded up) from `available`,
 * then the reserves; the rest is a `shortfall` that blocks new payouts (an alert and
 * `card_dispute_shortfalls_total`) until a relay task recovers it; funds reinstated give back all
 * that was taken. Each step is guarded by the locked dispute row and its own posting key, so replays
 * and reordering change nothing twice. Owns `card_disputes`.
 */
import type { CardDisputeState } from '../../card-processors/processor';
import type { Selectable } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import type { CardDisputesTable } from '../../db/tables/cards';
import { divDecimal, parseDecimal, USDC } from '../../domain/money';
import type { Core } from '../context';
import { depositDisputeEvent } from '../../domain/domain-events';
import { emitEvent } from '../events';
import { toDeposit } from '../funding/deposits';
import { cardDisputeShortfalls } from '../metrics/registry';
import { InsufficientFundsError, post } from '../ledger';
import { takeFromReserves } from './reserve';

type CardDisputesRow = Selectable<CardDisputesTable>;

/** Processor statuses after which a dispute's status no longer changes (docs/getting-paid.md "Disputes"). */
export const FINAL_DISPUTE_STATUSES: readonly string[] = ['won', 'lost', 'warning_closed', 'prevented'];

/** Minor units of `currency` in micro-USDC at the deposit's `rate` (currency per USDC; '1' for USD), rounded up. */
export function disputeMicroUsdc(minor: bigint, currency: string, rate: string | null): bigint {
  const r = rate ?? (currency.toUpperCase() === 'USD' ? '1' : null);
  if (r === null) throw new Error(`dispute in ${currency}: no deposit rate to convert it`);
  return divDecimal(minor, parseDecimal(r), USDC, currency.toUpperCase(), 'ceil');
}

/**
 * Applies one verified dispute event (kinds `dispute_*`) to the dispute of card payment
 * `cardPaymentId`; idempotent (the event id is recorded once by src/core/cards/card-events.ts, and
 * every posting has its own key). Returns the outcome recorded on the event (`opened`, `withdrawn`,
 * `reinstated`, `closed`, `updated`, `stale`).
 */
export async function applyDisputeEvent(
  core: Core,
  event: { id: string; kind: string; createdAt: Date; dispute: CardDisputeState },
  payment: { id: string; businessId: string; environment: 'sandbox' | 'live'; depositId: string | null; currency: string },
): Promise<string> {
  const d = event.dispute;
  const now = core.now();
  const result = await core.db.transaction().execute(async (tx) => {
    const processor = await tx.selectFrom('card_payments').select('processor').where('id', '=', payment.id).executeTakeFirst();
    const insert = await tx
      .insertInto('card_disputes')
      .values({
        id: d.id,
        processor: processor?.processor ?? 'unknown',
        card_payment_id: payment.id,
        business_id: payment.businessId,
        environment: payment.environment,
        status: d.status,
        reason: d.reason,
        amount: d.amount,
        fee: d.withdrawn?.fee ?? 0n,
        withdrawn_at: null,
        reinstated_at: null,
        taken_available: 0n,
        taken_reserve: 0n,
        shortfall: 0n,
        recovered_at: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    const row = await tx.selectFrom('card_disputes').selectAll().where('id', '=', d.id).forUpdate().executeTakeFirstOrThrow();
    if (row.business_id !== payment.businessId || row.environment !== payment.environment) return { outcome: 'stale' };
    let outcome = (insert.numInsertedOrUpdatedRows ?? 0n) > 0n ? 'opened' : 'updated';
    const set: Record<string, unknown> = {};
    const finalNow = FINAL_DISPUTE_STATUSES.includes(row.status);
    if (!finalNow && d.status !== row.status) set.status = d.status;
    if (d.reason && !row.reason) set.reason = d.reason;
    let shortfall = 0n;

    // Withdrawn: once, and never after a reinstatement recorded first (the net is then zero).
    if (d.withdrawn && !row.withdrawn_at && !row.reinstated_at) {
      const dep = payment.depositId ? await tx.selectFrom('deposits').select(['rate']).where('id', '=', payment.depositId).executeTakeFirst() : undefined;
      const total = disputeMicroUsdc(d.withdrawn.amount + d.withdrawn.fee, payment.currency, dep?.rate ?? null);
      // Lock order as the release sweep's (reserve rows, then the balance row): no deadlock between them.
      await tx
        .selectFrom('card_reserves')
        .select('deposit_id')
        .where('business_id', '=', payment.businessId)
        .where('environment', '=', payment.environment)
        .where('released_at', 'is', null)
        .forUpdate()
        .execute();
      const bal = await tx
        .selectFrom('balances')
        .select('available')
        .where('business_id', '=', payment.businessId)
        .where('environment', '=', payment.environment)
        .where('currency', '=', USDC)
        .forNoKeyUpdate()
        .executeTakeFirst();
      const available = bal ? BigInt(bal.available) : 0n;
      const fromAvailable = available < total ? available : total;
      if (fromAvailable > 0n) {
        await post(tx, { businessId: payment.businessId, environment: payment.environment, key: `card_dispute:${d.id}:withdraw_available`, from: 'available', to: 'disputes', amount: fromAvailable });
      }
      const fromReserve = await takeFromReserves(tx, payment.businessId, payment.environment, d.id, total - fromAvailable, now);
      shortfall = total - fromAvailable - fromReserve;
      Object.assign(set, { fee: d.withdrawn.fee, withdrawn_at: now, taken_available: fromAvailable, taken_reserve: fromReserve, shortfall });
      outcome = 'withdrawn';
    }

    // Reinstated (won): give back exactly what was taken (and what a recovery took), clear an open shortfall.
    if (d.reinstated && !row.reinstated_at) {
      const withdrawnNow = set.withdrawn_at !== undefined;
      const takenAvailable = withdrawnNow ? (set.taken_available as bigint) : BigInt(row.taken_available);
      const takenReserve = withdrawnNow ? (set.taken_reserve as bigint) : BigInt(row.taken_reserve);
      const short = withdrawnNow ? shortfall : BigInt(row.shortfall);
      const recovered = !withdrawnNow && row.recovered_at !== null && short > 0n ? short : 0n;
      const back = takenAvailable + takenReserve + recovered;
      if (back > 0n) {
        await post(tx, { businessId: payment.businessId, environment: payment.environment, key: `card_dispute:${d.id}:reinstate`, from: 'disputes', to: 'available', amount: back });
      }
      set.reinstated_at = now;
      if (short > 0n && (withdrawnNow || row.recovered_at === null)) set.recovered_at = now;
      shortfall = 0n;
      outcome = 'reinstated';
    }

    if (event.kind === 'dispute_closed') {
      set.status = d.status;
      if (outcome === 'updated') outcome = 'closed';
    }
    const opened = (insert.numInsertedOrUpdatedRows ?? 0n) > 0n;
    const withdrawnNow = set.withdrawn_at !== undefined;
    const closedNow = set.status !== undefined && FINAL_DISPUTE_STATUSES.includes(set.status as string) && !finalNow;
    let after = row;
    if (Object.keys(set).length > 0) {
      after = await tx.updateTable('card_disputes').set({ ...set, updated_at: now }).where('id', '=', d.id).returningAll().executeTakeFirstOrThrow();
    } else if (outcome === 'updated') {
      outcome = 'stale';
    }
    // deposit.disputed when first seen, and again (its own dedupe key) when the funds are withdrawn
    // later; deposit.dispute_closed at the final status (docs/getting-paid.md "Disputes").
    if (payment.depositId) {
      const emit = (phase: 'opened' | 'withdrawn' | 'closed') => emitDisputeEvent(tx, phase, after, payment.depositId!, payment.currency);
      if (opened) await emit('opened');
      else if (withdrawnNow) await emit('withdrawn');
      if (closedNow) await emit('closed');
    }
    return { outcome, shortfall };
  });
  if (result.shortfall && result.shortfall > 0n) {
    cardDisputeShortfalls.inc({ environment: payment.environment });
    core.log.error(
      { alert: 'card_dispute_shortfall', disputeId: d.id, businessId: payment.businessId, environment: payment.environment, shortfall: String(result.shortfall) },
      'card dispute shortfall: the balance and reserve did not cover the withdrawal; new payouts of the business are blocked (docs/operations.md "Dispute runbook")',
    );
  }
  return result.outcome;
}

/** Emits `deposit.disputed` (phase opened or withdrawn) / `deposit.dispute_closed` (closed) with the dispute as recorded (docs/getting-paid.md "Disputes"), in `tx`. */
async function emitDisputeEvent(tx: DbOrTx, phase: 'opened' | 'withdrawn' | 'closed', r: CardDisputesRow, depositId: string, currency: string): Promise<void> {
  const dep = await tx.selectFrom('deposits').selectAll().where('id', '=', depositId).executeTakeFirst();
  if (!dep) return;
  const taken = BigInt(r.taken_available) + BigInt(r.taken_reserve);
  const recovered = r.recovered_at !== null && r.reinstated_at === null ? BigInt(r.shortfall) : 0n;
  const dispute = {
    id: r.id,
    status: r.status,
    reason: r.reason,
    amount: BigInt(r.amount),
    fee: BigInt(r.fee),
    currency: currency.toUpperCase(),
    withdrawn: taken + recovered,
    shortfall: r.recovered_at === null ? BigInt(r.shortfall) : 0n,
    reinstated: r.reinstated_at !== null ? taken : 0n,
  };
  await emitEvent(tx, depositDisputeEvent({ businessId: r.business_id, environment: r.environment }, phase, toDeposit(dep), dispute));
}

/**
 * Relay task: takes each open dispute shortfall from `available` when it covers it fully
 * (`card_dispute:<id>:recover`, available -> disputes) and marks it recovered, which lifts the payout
 * block; one transaction each, idempotent. Returns how many were recovered.
 */
export async function recoverDisputeShortfalls(core: Core, limit = 100): Promise<number> {
  const open = await core.db
    .selectFrom('card_disputes')
    .select('id')
    .where('shortfall', '>', 0n)
    .where('recovered_at', 'is', null)
    .orderBy('withdrawn_at')
    .limit(limit)
    .execute();
  let recovered = 0;
  for (const { id } of open) {
    const done = await core.db.transaction().execute(async (tx) => recoverOne(tx, id, core.now()));
    if (done) {
      recovered++;
      core.log.info({ disputeId: id }, 'card dispute shortfall recovered; payouts unblocked');
    }
  }
  return recovered;
}

async function recoverOne(tx: DbOrTx, id: string, now: Date): Promise<boolean> {
  const r = await tx.selectFrom('card_disputes').selectAll().where('id', '=', id).where('recovered_at', 'is', null).forUpdate().executeTakeFirst();
  if (!r || BigInt(r.shortfall) <= 0n) return false;
  try {
    await post(tx, { businessId: r.business_id, environment: r.environment, key: `card_dispute:${id}:recover`, from: 'available', to: 'disputes', amount: BigInt(r.shortfall) });
  } catch (e) {
    if (e instanceof InsufficientFundsError) return false;
    throw e;
  }
  await tx.updateTable('card_disputes').set({ recovered_at: now, updated_at: now }).where('id', '=', id).execute();
  return true;
}
