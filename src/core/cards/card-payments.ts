/**
 * Live card payments (docs/getting-paid.md "Card payments"; states in docs/states.md "Card
 * payment"): one Checkout Session per Surface B top-up or payment link/request card payment, moved
 * forward only; `paid` credits once, as a card deposit whose external id is the payment id. Owns `card_payments`.
 */
import type { Selectable } from 'kysely';
import { type CardCheckoutState, type CardEventKind, CardProcessorError } from '../../card-processors/processor';
import type { Environment } from '../../db/schema';
import type { CardPaymentStatus, CardPaymentsTable } from '../../db/tables/cards';
import { parseDuration } from '../../domain/durations';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { formatAmount } from '../../domain/money';
import type { Caller, Core } from '../context';
import { receiveDeposit } from '../funding/deposits';
import { liveCardProcessor } from './processor';

/** A stored card payment; `amount`, `fee`, `refunded` in minor units of `currency`. */
export type CardPaymentRow = Selectable<CardPaymentsTable>;

/** Statuses a payment can still leave. */
export const CARD_PAYMENT_OPEN_STATUSES: readonly CardPaymentStatus[] = ['creating', 'open', 'processing'];

/** Order of the non-final statuses; a final one (paid, failed, expired, canceled) never changes. */
const RANK: Record<CardPaymentStatus, number> = { creating: 0, open: 1, processing: 2, paid: 3, failed: 3, expired: 3, canceled: 3 };

/** The processor's limits on a session's lifetime, ms. */
const MIN_LIFETIME_MS = 30 * 60_000;
const MAX_LIFETIME_MS = 24 * 3600_000;

/** What {@link createCardPayment} makes; amounts in minor units of `currency`. */
export interface CreateCardPaymentInput {
  /** A `cpay_…` id made by the caller (to link it first, e.g. from a card top-up); default a new one. */
  id?: string;
  businessId: string;
  environment: Environment;
  purpose: CardPaymentsTable['purpose'];
  cardTopupId?: string | null;
  paymentLinkId?: string | null;
  paymentRequestId?: string | null;
  amount: bigint;
  currency: string;
  /** The line item's name the payer sees. */
  description: string;
  successUrl: string;
  cancelUrl: string;
  /** The session expires no later than this (a payment request's deadline), if sooner than CARD_CHECKOUT_LIFETIME. */
  notAfter?: Date | null;
}

/**
 * Creates a live card payment: the row `creating`, then the processor's Checkout Session (idempotency
 * key `<id>:1`, so a retried create makes one session), then `open` with the session's id, URL and
 * expiry. Errors: 400 channel_unavailable (not live, or no live card processor configured); 502
 * processor_unavailable (the processor refused or could not be reached: the row is `failed`).
 */
export async function createCardPayment(core: Core, input: CreateCardPaymentInput): Promise<CardPaymentRow> {
  const processor = input.environment === 'live' ? liveCardProcessor(core) : null;
  if (!processor) throw new ApiError(400, 'channel_unavailable', 'No live card processor is configured', null);
  const now = core.now();
  const id = input.id ?? newId('cpay', now.getTime());
  const row = await core.db
    .insertInto('card_payments')
    .values({
      id,
      business_id: input.businessId,
      environment: input.environment,
      purpose: input.purpose,
      card_topup_id: input.cardTopupId ?? null,
      payment_link_id: input.paymentLinkId ?? null,
      payment_request_id: input.paymentRequestId ?? null,
      processor: processor.id,
      amount: input.amount,
      currency: input.currency,
      status: 'creating',
      session_id: null,
      session_url: null,
      session_expires_at: null,
      payment_intent_id: null,
      charge_id: null,
      fee: null,
      deposit_id: null,
      refunded: 0n,
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
      paid_at: null,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  let lifetime = Math.min(MAX_LIFETIME_MS, parseDuration(core.config.CARD_CHECKOUT_LIFETIME));
  if (input.notAfter) lifetime = Math.min(lifetime, input.notAfter.getTime() - now.getTime());
  const expiresAt = new Date(now.getTime() + Math.max(MIN_LIFETIME_MS, lifetime));
  return openSession(core, row, expiresAt, input.description);
}

/** Asks the processor for the session of a `creating` payment (idempotency key `<id>:1`: one session) and stores it; 502 processor_unavailable (then `failed`). */
async function openSession(core: Core, row: CardPaymentRow, expiresAt: Date, description: string): Promise<CardPaymentRow> {
  const processor = liveCardProcessor(core);
  if (!processor || processor.id !== row.processor) throw new ApiError(502, 'processor_unavailable', `Card processor ${row.processor} is not configured`, null);
  let state: CardCheckoutState;
  try {
    const metadata: Record<string, string> = { business_id: row.business_id, environment: row.environment, purpose: row.purpose };
    if (row.card_topup_id) metadata.card_topup_id = row.card_topup_id;
    if (row.payment_link_id) metadata.payment_link_id = row.payment_link_id;
    if (row.payment_request_id) metadata.payment_request_id = row.payment_request_id;
    state = await processor.createCheckout({
      reference: row.id,
      metadata,
      amount: BigInt(row.amount),
      currency: row.currency,
      description,
      successUrl: row.success_url,
      cancelUrl: row.cancel_url,
      expiresAt,
      idempotencyKey: `${row.id}:1`,
    });
  } catch (err) {
    core.log.warn({ err, cardPaymentId: row.id, retryable: err instanceof CardProcessorError ? err.retryable : null }, 'card checkout not created');
    // Nobody got this URL (the caller gets 502): `failed`, even if the session exists (it expires unseen).
    await moveStatus(core, row.id, ['creating'], { status: 'failed' });
    throw new ApiError(502, 'processor_unavailable', 'The card processor could not start the checkout; try again', null);
  }
  const updated = await core.db
    .updateTable('card_payments')
    .set({
      status: 'open',
      session_id: state.sessionId,
      session_url: state.url,
      session_expires_at: state.expiresAt ?? expiresAt,
      payment_intent_id: state.paymentIntentId,
      updated_at: core.now(),
    })
    .where('id', '=', row.id)
    .where('status', '=', 'creating')
    .returningAll()
    .executeTakeFirst();
  // An event or the poller may have moved it meanwhile; apply what the processor said either way.
  const after = updated ?? row;
  if (state.status !== 'open') return (await applyCheckoutState(core, state)).payment ?? after;
  return after;
}

async function moveStatus(core: Core, id: string, from: readonly CardPaymentStatus[], set: Partial<CardPaymentsTable>): Promise<CardPaymentRow | undefined> {
  return core.db
    .updateTable('card_payments')
    .set({ ...set, updated_at: core.now() })
    .where('id', '=', id)
    .where('status', 'in', from as CardPaymentStatus[])
    .returningAll()
    .executeTakeFirst();
}

/** The card payment `id` (any business), or undefined. */
export async function findCardPayment(core: Core, id: string): Promise<CardPaymentRow | undefined> {
  return core.db.selectFrom('card_payments').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The card payment of a session: by session id, else by our reference (`client_reference_id`). */
export async function findCardPaymentOfSession(core: Core, processor: string, sessionId: string, reference: string | null): Promise<CardPaymentRow | undefined> {
  const bySession = await core.db.selectFrom('card_payments').selectAll().where('processor', '=', processor).where('session_id', '=', sessionId).executeTakeFirst();
  if (bySession || !reference) return bySession;
  return core.db
    .selectFrom('card_payments')
    .selectAll()
    .where('processor', '=', processor)
    .where('id', '=', reference)
    .where((eb) => eb.or([eb('session_id', 'is', null), eb('session_id', '=', sessionId)]))
    .executeTakeFirst();
}

/** The card payment of a processor's payment intent (refunds, disputes), or undefined. */
export async function findCardPaymentOfIntent(core: Core, processor: string, paymentIntentId: string): Promise<CardPaymentRow | undefined> {
  return core.db.selectFrom('card_payments').selectAll().where('processor', '=', processor).where('payment_intent_id', '=', paymentIntentId).executeTakeFirst();
}

/** The status a session's state (and the event's kind, when from an event) asks for. */
export function checkoutTarget(state: CardCheckoutState, kind?: CardEventKind): CardPaymentStatus {
  if (kind === 'checkout_async_failed') return 'failed';
  if (state.status === 'expired') return 'expired';
  if (state.status === 'complete') {
    if (state.paymentStatus === 'paid' || kind === 'checkout_async_succeeded') return 'paid';
    return 'processing';
  }
  return 'open';
}

/** What {@link applyCheckoutState} did: `credited`, `processing`, `failed`, `expired`, `unchanged`, `stale` (already final), `unknown_payment`. */
export interface CheckoutApplied {
  payment: CardPaymentRow | undefined;
  outcome: 'credited' | 'processing' | 'failed' | 'expired' | 'open' | 'unchanged' | 'stale' | 'unknown_payment';
}

/**
 * Applies a session's state, from a verified event (`kind`) or polling: forward only, a final payment
 * never changes. On `paid` it credits once (receiveDeposit: source `card`, externalId the payment id,
 * the processor's fee, a request's id). Idempotent; throws what receiveDeposit or the processor throws.
 */
export async function applyCheckoutState(core: Core, state: CardCheckoutState, kind?: CardEventKind, known?: CardPaymentRow): Promise<CheckoutApplied> {
  const payment = known ?? (await findCardPaymentOfSession(core, liveCardProcessor(core)?.id ?? '', state.sessionId, state.reference));
  if (!payment) return { payment, outcome: 'unknown_payment' };
  const target = checkoutTarget(state, kind);
  if (RANK[payment.status] === 3) return { payment, outcome: 'stale' };
  if (target !== 'paid' && target !== 'failed' && RANK[target] <= RANK[payment.status]) return { payment, outcome: 'unchanged' };
  if (target === 'expired' && payment.status === 'processing') return { payment, outcome: 'stale' };
  const session = {
    session_id: payment.session_id ?? state.sessionId,
    session_url: payment.session_url ?? state.url,
    payment_intent_id: payment.payment_intent_id ?? state.paymentIntentId,
    charge_id: payment.charge_id ?? state.chargeId,
  };
  const withCharge = (s: CardCheckoutState) => ({ ...session, payment_intent_id: session.payment_intent_id ?? s.paymentIntentId, charge_id: session.charge_id ?? s.chargeId });
  const from = CARD_PAYMENT_OPEN_STATUSES.filter((s) => RANK[s] < RANK[target]);
  if (target !== 'paid') {
    const moved = await moveStatus(core, payment.id, from, { ...session, status: target });
    return moved ? { payment: moved, outcome: target as CheckoutApplied['outcome'] } : { payment: await findCardPayment(core, payment.id), outcome: 'stale' };
  }
  if (state.amount !== BigInt(payment.amount) || state.currency.toUpperCase() !== payment.currency) {
    core.log.warn({ cardPaymentId: payment.id, sessionAmount: String(state.amount), sessionCurrency: state.currency }, 'card session amount differs from the payment; crediting the payment amount');
  }
  // An event's session has no fee: ask the processor (a failure leaves the event to its redelivery or the poller).
  let paidState = state;
  const processor = state.fee === null ? liveCardProcessor(core) : null;
  if (processor) {
    const fresh = await processor.retrieveCheckout(state.sessionId);
    if (fresh.status === 'complete' && fresh.paymentStatus === 'paid') paidState = fresh;
  }
  // Credit first (idempotent on the payment id), then mark paid: a crash between them is retried by the poller.
  const caller: Caller = { businessId: payment.business_id, environment: payment.environment, keyId: 'card_processor', role: 'member', policy: null };
  const dep = await receiveDeposit(core, caller, {
    source: 'card',
    amount: formatAmount(BigInt(payment.amount), payment.currency),
    currency: payment.currency,
    externalId: payment.id,
    reference: `card payment ${payment.id}`,
    processorFee: paidState.fee,
    paymentRequestId: payment.payment_request_id,
  });
  const paid = await moveStatus(core, payment.id, from, {
    ...withCharge(paidState),
    status: 'paid',
    fee: paidState.fee,
    deposit_id: dep.deposit.id,
    paid_at: core.now(),
  });
  return paid ? { payment: paid, outcome: 'credited' } : { payment: await findCardPayment(core, payment.id), outcome: 'stale' };
}

/**
 * Cancels an open card payment (its top-up was canceled): the processor expires the session, then
 * the payment is `canceled`; if the payer paid meanwhile, that state is applied instead (credited).
 * Errors: 502 processor_unavailable. A final payment is returned unchanged.
 */
export async function cancelCardPayment(core: Core, id: string): Promise<CardPaymentRow | undefined> {
  const payment = await findCardPayment(core, id);
  if (!payment || RANK[payment.status] === 3) return payment;
  if (payment.status === 'processing') return payment; // paid, waiting for the bank: cannot be canceled
  const processor = liveCardProcessor(core);
  if (payment.session_id) {
    if (!processor) throw new ApiError(502, 'processor_unavailable', `Card processor ${payment.processor} is not configured`, null);
    let state: CardCheckoutState;
    try {
      state = await processor.expireCheckout(payment.session_id);
    } catch (err) {
      core.log.warn({ err, cardPaymentId: id }, 'card checkout not expired');
      // Already complete or expired at the processor: apply what it says now.
      try {
        state = await processor.retrieveCheckout(payment.session_id);
      } catch {
        throw new ApiError(502, 'processor_unavailable', 'The card processor could not cancel the checkout; try again', null);
      }
    }
    if (state.status !== 'expired') return (await applyCheckoutState(core, state, undefined, payment)).payment;
  }
  return (await moveStatus(core, id, ['creating', 'open'], { status: 'canceled' })) ?? findCardPayment(core, id);
}

/** Payments the poller looks at per run. */
export const CARD_POLL_BATCH = 50;

/**
 * The poller (a relay task): each `open`/`processing` payment unchanged for CARD_POLL_AFTER is asked
 * of the processor and its state applied (a lost event still credits); a `creating` one left by a
 * stopped process is `failed`. Returns how many it looked at.
 */
export async function pollCardPayments(core: Core): Promise<number> {
  const processor = liveCardProcessor(core);
  if (!processor) return 0;
  const now = core.now();
  const before = new Date(now.getTime() - parseDuration(core.config.CARD_POLL_AFTER));
  const due = await core.db
    .selectFrom('card_payments')
    .selectAll()
    .where('status', 'in', ['creating', 'open', 'processing'])
    .where('updated_at', '<=', before)
    .where('processor', '=', processor.id)
    .orderBy('updated_at')
    .limit(CARD_POLL_BATCH)
    .execute();
  for (const p of due) {
    try {
      // Looked at now: the next look is CARD_POLL_AFTER later unless the state moves it.
      await core.db.updateTable('card_payments').set({ updated_at: now }).where('id', '=', p.id).where('status', '=', p.status).execute();
      if (!p.session_id) {
        // Left `creating` by a process that stopped mid-create: its caller never got a URL.
        await moveStatus(core, p.id, ['creating'], { status: 'failed' });
        continue;
      }
      let state = await processor.retrieveCheckout(p.session_id);
      if (state.status === 'open' && p.session_expires_at && p.session_expires_at.getTime() <= now.getTime()) {
        state = await processor.expireCheckout(p.session_id);
      }
      await applyCheckoutState(core, state, undefined, p);
    } catch (err) {
      core.log.warn({ err, cardPaymentId: p.id }, 'card payment poll failed; tried again later');
    }
  }
  return due.length;
}
