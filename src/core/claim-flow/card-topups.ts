/**
 * Surface B card top-ups (spec "Surface B resources": card top-up create `{amountUsd, successUrl,
 * cancelUrl}`; "Funds the balance ... by card top-up"). A top-up is a checkout: the payer completes
 * or cancels it on the checkout page (`{publicUrl}/checkout/<token>`; the sandbox page simulates the
 * card form) and is sent on to successUrl or cancelUrl. Completion records a core deposit with
 * source `card` (receiveDeposit: deposit.received, then credited by its workflow; the same deposits
 * Surface A lists), idempotent on the top-up id. Live: no card processor is configured (400
 * channel_unavailable), as live payout channels are paused.
 */
import { ApiError, validationError } from '../../domain/errors';
import { newId, randomToken } from '../../domain/ids';
import { AmountFormatError, formatAmount, parseAmount } from '../../domain/money';
import type { CardTopupsTable } from '../../db/tables/claim-flow';
import type { Caller, Core } from '../context';
import { MAX_DEPOSIT_UNITS, receiveDeposit } from '../funding/deposits';
import { MIN_DISBURSEMENT_CENTS } from './entry';

/** A card top-up as Surface B renders it. */
export interface CardTopupView {
  id: string;
  amountUsd: string;
  status: CardTopupsTable['status'];
  checkoutUrl: string;
  successUrl: string;
  cancelUrl: string;
  depositId: string | null;
  createdAt: string;
}

/** The view of a row. */
export function cardTopupView(row: CardTopupsTable, publicUrl: string): CardTopupView {
  return {
    id: row.id,
    amountUsd: formatAmount(row.amount, 'USD'),
    status: row.status,
    checkoutUrl: `${publicUrl}/checkout/${row.token}`,
    successUrl: row.success_url,
    cancelUrl: row.cancel_url,
    depositId: row.deposit_id,
    createdAt: row.created_at.toISOString(),
  };
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
 * (`amountUsd`: malformed, over 2 decimals or above MAX_DEPOSIT_UNITS; `successUrl`, `cancelUrl`:
 * not http(s)), 422
 * amount_below_minimum under 1.00 USD, 400 channel_unavailable on live.
 */
export async function createCardTopup(core: Core, caller: Caller, input: { amountUsd: unknown; successUrl: unknown; cancelUrl: unknown }): Promise<CardTopupsTable> {
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
  if (caller.environment === 'live') {
    throw new ApiError(400, 'channel_unavailable', 'No live card processor is configured; use the sandbox', null);
  }
  const now = core.now();
  return core.db
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
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The top-up behind a checkout token (any business), or undefined. */
export async function findCardTopupByToken(core: Core, token: string): Promise<CardTopupsTable | undefined> {
  return core.db.selectFrom('card_topups').selectAll().where('token', '=', token).executeTakeFirst();
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
