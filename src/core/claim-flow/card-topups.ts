/**
 * Surface B card top-ups (spec "Surface B resources"; docs/surface-b.md "Card top-ups"): a checkout
 * whose completion records a card deposit. Sandbox: the built-in checkout page
 * (`{publicUrl}/checkout/<token>`), idempotent on the top-up id. Live: a card payment at the live
 * processor (src/core/cards/card-payments.ts), whose status the top-up reads; none configured: 400 channel_unavailable.
 */
import { ApiError, validationError } from '../../domain/errors';
import { newId, randomToken } from '../../domain/ids';
import { AmountFormatError, formatAmount, parseAmount } from '../../domain/money';
import type { CardTopupsTable } from '../../db/tables/claim-flow';
import type { CardPaymentStatus } from '../../db/tables/cards';
import { cancelCardPayment, type CardPaymentRow, createCardPayment, findCardPayment } from '../cards/card-payments';
import { liveCardProcessor } from '../cards/processor';
import type { Caller, Core } from '../context';
import { ownedOr404 } from '../tenancy';
import { MAX_DEPOSIT_UNITS, receiveDeposit } from '../funding/deposits';
import { MIN_DISBURSEMENT_CENTS } from './entry';

/** A card top-up's status as Surface B renders it: a live top-up's reads from its card payment. */
export type CardTopupStatus = CardTopupsTable['status'] | 'expired' | 'failed';

/** A card top-up as Surface B renders it. */
export interface CardTopupView {
  id: string;
  amountUsd: string;
  status: CardTopupStatus;
  checkoutUrl: string;
  successUrl: string;
  cancelUrl: string;
  depositId: string | null;
  createdAt: string;
}

const TOPUP_STATUS_OF_PAYMENT: Record<CardPaymentStatus, CardTopupStatus> = {
  creating: 'pending',
  open: 'pending',
  processing: 'pending',
  paid: 'completed',
  failed: 'failed',
  expired: 'expired',
  canceled: 'cancelled',
};

/**
 * The view of a row; a live top-up's with its card payment `payment` (status, deposit, and the
 * session's URL as checkoutUrl: empty when no session was made, status `failed`).
 */
export function cardTopupView(row: CardTopupsTable, publicUrl: string, payment?: CardPaymentRow | null): CardTopupView {
  return {
    id: row.id,
    amountUsd: formatAmount(row.amount, 'USD'),
    status: payment ? TOPUP_STATUS_OF_PAYMENT[payment.status] : row.status,
    checkoutUrl: payment ? (payment.session_url ?? '') : `${publicUrl}/checkout/${row.token}`,
    successUrl: row.success_url,
    cancelUrl: row.cancel_url,
    depositId: payment ? payment.deposit_id : row.deposit_id,
    createdAt: row.created_at.toISOString(),
  };
}

/** A top-up with what its view needs: its card payment (live) and its deposit's processing fee (micro-USDC), once credited. */
export interface CardTopupDetail {
  row: CardTopupsTable;
  payment: CardPaymentRow | null;
  /** The card deposit's processing fee, micro-USDC; null before the deposit. */
  fee: bigint | null;
}

/** Loads a top-up's card payment and deposit fee. */
export async function cardTopupDetail(core: Core, row: CardTopupsTable): Promise<CardTopupDetail> {
  const payment = row.card_payment_id ? ((await findCardPayment(core, row.card_payment_id)) ?? null) : null;
  const depositId = payment ? payment.deposit_id : row.deposit_id;
  const dep = depositId ? await core.db.selectFrom('deposits').select('fee_processing').where('id', '=', depositId).executeTakeFirst() : undefined;
  return { row, payment, fee: dep ? BigInt(dep.fee_processing) : null };
}

/** `GET /funding/card/{id}`: the caller's top-up. 404 not_found. */
export async function getCardTopup(core: Core, caller: Caller, id: string): Promise<CardTopupDetail> {
  return cardTopupDetail(core, await ownedOr404(core.db, caller, 'card_topups', id, 'card top-up'));
}

/**
 * `POST /funding/card/{id}/cancel`: a pending top-up is cancelled (live: the processor expires the
 * session first; if the payer paid meanwhile it completes instead). A finished one is returned
 * unchanged. Errors: 404 not_found; 502 processor_unavailable.
 */
export async function cancelCardTopup(core: Core, caller: Caller, id: string): Promise<CardTopupDetail> {
  const row = await ownedOr404(core.db, caller, 'card_topups', id, 'card top-up');
  if (row.card_payment_id) {
    await cancelCardPayment(core, row.card_payment_id);
    return cardTopupDetail(core, row);
  }
  const after = (await finishCardTopup(core, row.token, 'cancel')) ?? row;
  return cardTopupDetail(core, after);
}

function httpUrl(v: unknown, param: string): string {
  if (typeof v !== 'string' || v.length > 2048) throw validationError(param, `${param} must be an http(s) URL`);
  try {
    const u = new URL(v);
    if (u.protocol === 'https:' || u.protocol === 'http:') return u.toString();
  } catch {
    // fall through
  }
  throw validationError(param, `${param} must be an http(s) URL`);
}

/**
 * `POST /funding/card`: a pending top-up with its checkout URL. Errors: 400 validation_error
 * (`amountUsd`, `successUrl`, `cancelUrl`), 422 amount_below_minimum under 1.00 USD, 400
 * channel_unavailable (live, no processor), 502 processor_unavailable (the top-up is `failed`).
 */
export async function createCardTopup(core: Core, caller: Caller, input: { amountUsd: unknown; successUrl: unknown; cancelUrl: unknown }): Promise<CardTopupDetail> {
  let cents: bigint;
  try {
    cents = parseAmount(String(input.amountUsd ?? ''), 'USD', { allowZero: true });
  } catch (e) {
    if (e instanceof AmountFormatError) throw validationError('amountUsd', `amountUsd: ${e.message}`);
    throw e;
  }
  if (cents < MIN_DISBURSEMENT_CENTS) throw new ApiError(422, 'amount_below_minimum', 'amountUsd must be at least 1.00 USD', 'amountUsd');
  // The deposit it becomes is bounded (receiveDeposit): refuse now, not when the payer pays.
  if (cents > parseAmount(MAX_DEPOSIT_UNITS, 'USD')) throw validationError('amountUsd', `amountUsd must be at most ${MAX_DEPOSIT_UNITS} USD`);
  const successUrl = httpUrl(input.successUrl, 'successUrl');
  const cancelUrl = httpUrl(input.cancelUrl, 'cancelUrl');
  if (caller.environment === 'live' && !liveCardProcessor(core)) {
    throw new ApiError(400, 'channel_unavailable', 'No live card processor is configured; use the sandbox', null);
  }
  const now = core.now();
  const cardPaymentId = caller.environment === 'live' ? newId('cpay', now.getTime()) : null;
  const row = await core.db
    .insertInto('card_topups')
    .values({
      id: newId('ctu', now.getTime()),
      business_id: caller.businessId,
      environment: caller.environment,
      amount: cents,
      status: 'pending',
      token: randomToken(18),
      success_url: successUrl,
      cancel_url: cancelUrl,
      deposit_id: null,
      card_payment_id: cardPaymentId,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (!cardPaymentId) return { row, payment: null, fee: null };
  const payment = await createCardPayment(core, {
    id: cardPaymentId,
    businessId: caller.businessId,
    environment: caller.environment,
    purpose: 'topup',
    cardTopupId: row.id,
    amount: cents,
    currency: 'USD',
    description: 'Balance top-up',
    successUrl,
    cancelUrl,
  });
  return { row, payment, fee: null };
}

/** The sandbox top-up behind a checkout token (any business), or undefined (a live top-up is paid at the processor). */
export async function findCardTopupByToken(core: Core, token: string): Promise<CardTopupsTable | undefined> {
  return core.db.selectFrom('card_topups').selectAll().where('token', '=', token).where('card_payment_id', 'is', null).executeTakeFirst();
}

/**
 * The payer completes (`pay`) or cancels the checkout. `pay` on a pending top-up records the card
 * deposit (receiveDeposit, externalId = the top-up id, so a repeated click credits once) and marks
 * it completed; `cancel` marks it cancelled. A finished top-up is returned unchanged.
 */
export async function finishCardTopup(core: Core, token: string, action: 'pay' | 'cancel'): Promise<CardTopupsTable | undefined> {
  const row = await findCardTopupByToken(core, token);
  if (!row || row.status !== 'pending') return row;
  const now = core.now();
  if (action === 'cancel') {
    return core.db
      .updateTable('card_topups')
      .set({ status: 'cancelled', updated_at: now })
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst()
      .then((r) => r ?? findCardTopupByToken(core, token));
  }
  const caller: Caller = { businessId: row.business_id, environment: row.environment, keyId: 'card_checkout', role: 'member', policy: null };
  const dep = await receiveDeposit(core, caller, {
    source: 'card',
    amount: formatAmount(row.amount, 'USD'),
    currency: 'USD',
    externalId: row.id,
    reference: `card top-up ${row.id}`,
  });
  return core.db
    .updateTable('card_topups')
    .set({ status: 'completed', deposit_id: dep.deposit.id, updated_at: now })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirst();
}
