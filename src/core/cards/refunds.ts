/**
 * Refunds of card top-ups (docs/getting-paid.md "Refunds"): the balance is debited first (to
 * `refunds`), then the processor is asked; a failed refund gives the money back. Refunding X of a
 * top-up of A that credited N micro-USDC debits ceil(X * N / A), the last refund exactly the rest of
 * N (the processor's fee is not returned). Owns `card_refunds` (a top-up's refunded total is summed here).
 */
import type { CardProcessor, CardRefundResult } from '../../card-processors/processor';
import { CardProcessorError } from '../../card-processors/processor';
import type { CardRefundsTable } from '../../db/tables/cards';
import type { DbOrTx } from '../../db/schema';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { divRound, formatAmount, parseAmountParam, USDC } from '../../domain/money';
import type { Caller, Core } from '../context';
import { depositRefundedEvent } from '../../domain/domain-events';
import { emitEvent } from '../events';
import { toDeposit } from '../funding/deposits';
import { getBalance, InsufficientFundsError, insufficientBalance, post } from '../ledger';
import { liveCardProcessor } from './processor';

/** A refund as the surfaces render it (amountUsd in USD, debitedUsd in USDC of the balance). */
export interface CardRefundView {
  id: string;
  topupId: string | null;
  amountUsd: string;
  debitedUsd: string;
  status: CardRefundsTable['status'];
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The view of a refund row. */
export function cardRefundView(r: CardRefundsTable): CardRefundView {
  return {
    id: r.id,
    topupId: r.card_topup_id,
    amountUsd: formatAmount(BigInt(r.amount), 'USD'),
    debitedUsd: formatAmount(BigInt(r.debit), USDC),
    status: r.status,
    failureReason: r.failure_reason,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

/** The debit of refunding `amount` of `topupAmount` cents whose deposit credited `credited`, given what earlier refunds took. */
export function refundDebit(o: { amount: bigint; topupAmount: bigint; credited: bigint; refundedAmount: bigint; debited: bigint }): bigint {
  const leftDebit = o.credited - o.debited;
  if (o.refundedAmount + o.amount >= o.topupAmount) return leftDebit;
  const share = divRound(o.amount * o.credited, o.topupAmount, 'ceil');
  return share < leftDebit ? share : leftDebit;
}

interface RefundOptions {
  /** The live processor (default {@link liveCardProcessor}); tests pass their own. */
  processor?: CardProcessor | null;
}

/**
 * `POST /funding/card/{id}/refunds` (Surface B): refunds `amountUsd` (default: all that is left) of
 * the caller's completed card top-up. Debits the balance first (`card_refund:<id>`, available ->
 * refunds) in the transaction that records the refund; then, live, asks the processor (idempotency
 * key = the refund id): succeeded -> `succeeded`, failed -> `failed` and the money back, a retryable
 * error leaves it `pending` for the retry sweep. Sandbox: `succeeded` at once.
 * Errors: 404 not_found (unknown or another business's top-up), 409 invalid_state (not completed,
 * already fully refunded, live without a paid card payment), 400 validation_error / amount_out_of_range
 * (amountUsd malformed or above what is left), 402 insufficient_balance (nothing written).
 */
export async function refundCardTopup(core: Core, caller: Caller, topupId: string, input: { amountUsd?: unknown }, opts: RefundOptions = {}): Promise<CardRefundView> {
  const now = core.now();
  const { row, paymentIntentId } = await core.db.transaction().execute(async (tx) => {
    const topup = await tx
      .selectFrom('card_topups')
      .selectAll()
      .where('id', '=', topupId)
      .where('business_id', '=', caller.businessId)
      .where('environment', '=', caller.environment)
      .forUpdate()
      .executeTakeFirst();
    if (!topup) throw new ApiError(404, 'not_found', `No card top-up with id '${topupId}'`, 'id');
    // A live top-up's status and deposit are its card payment's (src/core/claim-flow/card-topups.ts).
    const pay = topup.card_payment_id
      ? await tx.selectFrom('card_payments').select(['id', 'status', 'deposit_id', 'payment_intent_id']).where('id', '=', topup.card_payment_id).executeTakeFirst()
      : undefined;
    const completed = pay ? pay.status === 'paid' : topup.status === 'completed';
    const depositId = pay ? pay.deposit_id : topup.deposit_id;
    if (!completed || !depositId) throw new ApiError(409, 'invalid_state', `Card top-up ${topupId} is not completed: only a completed top-up can be refunded`, null, { status: pay?.status ?? topup.status });
    const dep = await tx.selectFrom('deposits').select(['net_amount', 'status']).where('id', '=', depositId).executeTakeFirstOrThrow();
    if (dep.status !== 'credited') throw new ApiError(409, 'invalid_state', `The deposit of card top-up ${topupId} is not credited yet`, null, { status: dep.status });
    const done = await refundedSoFar(tx, topupId);
    const topupAmount = BigInt(topup.amount);
    const left = topupAmount - done.amount;
    if (left <= 0n) throw new ApiError(409, 'invalid_state', `Card top-up ${topupId} is already fully refunded`, null);
    const amount = input.amountUsd === undefined || input.amountUsd === null ? left : parseAmountParam(input.amountUsd, 'USD', 'amountUsd');
    if (amount > left) throw new ApiError(400, 'amount_out_of_range', `amountUsd must be at most ${formatAmount(left, 'USD')} USD (what is left to refund)`, 'amountUsd');
    const debit = refundDebit({ amount, topupAmount, credited: BigInt(dep.net_amount), refundedAmount: done.amount, debited: done.debit });
    if (debit <= 0n) throw new ApiError(409, 'invalid_state', `Card top-up ${topupId} has nothing left to debit`, null);
    let paymentIntentId: string | null = null;
    let cardPaymentId: string | null = null;
    if (caller.environment === 'live') {
      if (!pay?.payment_intent_id) throw new ApiError(409, 'invalid_state', `Card top-up ${topupId} has no paid card payment to refund`, null);
      paymentIntentId = pay.payment_intent_id;
      cardPaymentId = pay.id;
    }
    const id = newId('cref', now.getTime());
    const inserted = await tx
      .insertInto('card_refunds')
      .values({
        id,
        business_id: caller.businessId,
        environment: caller.environment,
        card_payment_id: cardPaymentId,
        card_topup_id: topupId,
        amount,
        currency: 'USD',
        debit,
        // Sandbox: no processor, the refund succeeds at once (docs/getting-paid.md "Refunds").
        status: caller.environment === 'live' ? 'pending' : 'succeeded',
        processor_refund_id: null,
        failure_reason: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    try {
      await post(tx, { businessId: caller.businessId, environment: caller.environment, key: `card_refund:${id}`, from: 'available', to: 'refunds', amount: debit });
    } catch (e) {
      if (e instanceof InsufficientFundsError) throw insufficientBalance(debit, (await getBalance(tx, caller.businessId, caller.environment)).available, 'amountUsd');
      throw e;
    }
    if (inserted.status === 'succeeded') await emitRefunded(tx, inserted);
    return { row: inserted, paymentIntentId };
  });
  if (row.status !== 'pending' || !paymentIntentId) return cardRefundView(row);
  return cardRefundView(await attemptRefund(core, row, paymentIntentId, opts.processor === undefined ? liveCardProcessor(core) : opts.processor));
}

/** `GET /funding/card/{id}/refunds`: the refunds of the caller's top-up, newest first; 404 not_found. */
export async function listCardTopupRefunds(core: Core, caller: Caller, topupId: string): Promise<CardRefundView[]> {
  const topup = await core.db
    .selectFrom('card_topups')
    .select('id')
    .where('id', '=', topupId)
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .executeTakeFirst();
  if (!topup) throw new ApiError(404, 'not_found', `No card top-up with id '${topupId}'`, 'id');
  const rows = await core.db.selectFrom('card_refunds').selectAll().where('card_topup_id', '=', topupId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  return rows.map(cardRefundView);
}

/** Cents refunded and micro-USDC debited by a top-up's refunds that did not fail. */
export async function refundedSoFar(db: DbOrTx, topupId: string): Promise<{ amount: bigint; debit: bigint }> {
  const r = await db
    .selectFrom('card_refunds')
    .select((eb) => [eb.fn.coalesce(eb.fn.sum<bigint>('amount'), eb.val(0n)).as('amount'), eb.fn.coalesce(eb.fn.sum<bigint>('debit'), eb.val(0n)).as('debit')])
    .where('card_topup_id', '=', topupId)
    .where('status', '!=', 'failed')
    .executeTakeFirstOrThrow();
  return { amount: BigInt(r.amount), debit: BigInt(r.debit) };
}

/** Asks the processor once for a pending refund and records the answer; a retryable failure (or no processor) leaves it pending. */
async function attemptRefund(core: Core, row: CardRefundsTable, paymentIntentId: string, processor: CardProcessor | null): Promise<CardRefundsTable> {
  if (!processor) return row;
  let result: CardRefundResult;
  try {
    result = await processor.refund({ paymentIntentId, amount: BigInt(row.amount), reference: row.id });
  } catch (e) {
    if (e instanceof CardProcessorError && !e.retryable) return (await failRefund(core, row.id, e.message, null)) ?? row;
    core.log.warn({ err: e, refundId: row.id }, 'card refund deferred: the processor call failed; the sweep retries it');
    return row;
  }
  return (await recordRefundResult(core, row.id, result)) ?? row;
}

/** Records a processor answer for refund `id`: succeeded / failed (money back) / pending (processor id kept). */
async function recordRefundResult(core: Core, id: string, result: CardRefundResult): Promise<CardRefundsTable | undefined> {
  if (result.status === 'failed' || result.status === 'canceled') return failRefund(core, id, result.failureReason ?? result.status, result.refundId);
  const now = core.now();
  const set = result.status === 'succeeded' ? { status: 'succeeded' as const, processor_refund_id: result.refundId, updated_at: now } : { processor_refund_id: result.refundId, updated_at: now };
  return core.db.transaction().execute(async (tx) => {
    const updated = await tx.updateTable('card_refunds').set(set).where('id', '=', id).where('status', '=', 'pending').returningAll().executeTakeFirst();
    if (updated?.status === 'succeeded') await emitRefunded(tx, updated);
    return updated;
  });
}

/** Emits `deposit.refunded` (the top-up's deposit with the refund; docs/getting-paid.md "Refunds") for a succeeded refund, in `tx`. */
async function emitRefunded(tx: DbOrTx, r: CardRefundsTable): Promise<void> {
  if (!r.card_topup_id) return;
  // A live top-up's deposit is its card payment's (src/core/claim-flow/card-topups.ts).
  const dep = await tx
    .selectFrom('card_topups')
    .leftJoin('card_payments', 'card_payments.id', 'card_topups.card_payment_id')
    .innerJoin('deposits', (j) => j.on((eb) => eb('deposits.id', '=', eb.fn.coalesce('card_payments.deposit_id', 'card_topups.deposit_id'))))
    .selectAll('deposits')
    .where('card_topups.id', '=', r.card_topup_id)
    .executeTakeFirst();
  if (!dep) return;
  const refund = { id: r.id, status: r.status, amount: BigInt(r.amount), currency: r.currency, debited: BigInt(r.debit), createdAt: new Date(r.created_at) };
  await emitEvent(tx, depositRefundedEvent({ businessId: r.business_id, environment: r.environment }, toDeposit(dep), refund));
}

/** Marks refund `id` failed (from pending or succeeded) and gives the debit back (`card_refund:<id>:reversal`, refunds -> available); idempotent. */
async function failRefund(core: Core, id: string, reason: string, processorRefundId: string | null): Promise<CardRefundsTable | undefined> {
  const now = core.now();
  return core.db.transaction().execute(async (tx) => {
    const r = await tx.selectFrom('card_refunds').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    if (!r || r.status === 'failed') return r;
    await post(tx, { businessId: r.business_id, environment: r.environment, key: `card_refund:${id}:reversal`, from: 'refunds', to: 'available', amount: BigInt(r.debit) });
    return tx
      .updateTable('card_refunds')
      .set({ status: 'failed', failure_reason: reason.slice(0, 500), processor_refund_id: processorRefundId ?? r.processor_refund_id, updated_at: now })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  });
}

/**
 * Applies a processor's refund update (event kind `refund_updated`) to our refund `reference`
 * (`cref_…`); idempotent. Returns the outcome recorded on the event (`succeeded`, `failed`, `pending`,
 * `stale`: unknown reference or nothing changed).
 */
export async function applyRefundEvent(core: Core, refund: CardRefundResult & { reference: string | null }): Promise<string> {
  if (!refund.reference) return 'stale';
  const row = await core.db.selectFrom('card_refunds').selectAll().where('id', '=', refund.reference).executeTakeFirst();
  if (!row || row.status === 'failed') return 'stale';
  if (row.status === 'succeeded' && refund.status !== 'failed' && refund.status !== 'canceled') return 'stale';
  const updated = await recordRefundResult(core, row.id, refund);
  if (!updated) return 'stale';
  return updated.status === 'pending' ? 'pending' : updated.status;
}

/** Relay task: asks the processor again for live refunds pending longer than a minute (same idempotency key). Returns how many it asked. */
export async function retryPendingRefunds(core: Core, opts: RefundOptions & { limit?: number } = {}): Promise<number> {
  const processor = opts.processor === undefined ? liveCardProcessor(core) : opts.processor;
  if (!processor) return 0;
  const rows = await core.db
    .selectFrom('card_refunds')
    .selectAll()
    .where('status', '=', 'pending')
    .where('environment', '=', 'live')
    .where('updated_at', '<=', new Date(core.now().getTime() - 60_000))
    .orderBy('updated_at')
    .limit(opts.limit ?? 100)
    .execute();
  for (const r of rows) {
    const pay = r.card_topup_id
      ? await core.db.selectFrom('card_payments').select('payment_intent_id').where('card_topup_id', '=', r.card_topup_id).where('status', '=', 'paid').executeTakeFirst()
      : undefined;
    if (!pay?.payment_intent_id) continue;
    const after = await attemptRefund(core, r, pay.payment_intent_id, processor);
    if (after.status === 'pending') await core.db.updateTable('card_refunds').set({ updated_at: core.now() }).where('id', '=', r.id).where('status', '=', 'pending').execute();
  }
  return rows.length;
}
