/**
 * Matching a deposit to a payment request (spec Surface A rule 2; docs/getting-paid.md "Matching").
 * A deposit pays a request only when exactly one open request of the same business and environment
 * fits all of:
 * - amount: equal to the deposit's amount (same minor units), and currency equal;
 * - timing: created_at <= the deposit's received_at < expires_at;
 * - owner: the deposit arrived in a virtual account of the request's business, and when that
 *   account has `reference_required`, the deposit's reference equals the request's (compared
 *   trimmed, whitespace collapsed, case-insensitive; normaliseReference).
 * Zero fitting requests: `no_match`; two or more: `ambiguous` (none is paid). Either way the deposit
 * is credited as a plain deposit and the requests stay open. Crypto and card deposits are
 * `not_applicable` (requests are paid by bank transfer).
 *
 * Runs inside creditDeposit's transaction, after the credit posting has locked the business's
 * balance row, so concurrent credits of one business match one after the other; the candidate rows
 * are also locked, and unique indexes (deposits.payment_request_id, payment_requests.deposit_id)
 * make a double payment impossible even if that changed.
 */
import type { Selectable, Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import type { DepositsTable } from '../../db/tables/funding';
import { type DepositMatchResult, normaliseReference, PAYMENT_REQUEST_EVENT_ON_ENTER } from '../../domain/funding';
import type { Core } from '../context';
import { emitEvent } from '../events';
import { markPaymentRequestPaid, toPaymentRequest } from '../payment-links/payment-requests';
import { eventObjectData } from '../../domain/event-objects';

/** A stored deposit row (as deposits.ts DepositRow; declared here so matching does not import deposits.ts back). */
type DepositRow = Selectable<DepositsTable>;

/** What matching decided. */
export interface MatchOutcome {
  result: DepositMatchResult;
  paymentRequestId: string | null;
}

/**
 * Matches `dep` (being credited in `tx`) and, on exactly one fit, marks that request paid
 * (paid_at = `now`, deposit_id) and emits payment_request.paid (dedupe
 * `payment_request:{id}:paid`). Returns the outcome for the deposit row.
 */
export async function matchDeposit(tx: Transaction<Database>, core: Core, dep: DepositRow, now: Date): Promise<MatchOutcome> {
  if (dep.source === 'crypto') return matchCryptoDeposit(tx, core, dep, now);
  if (dep.source !== 'virtual_account' || !dep.virtual_account_id) return { result: 'not_applicable', paymentRequestId: null };
  const va = await tx
    .selectFrom('virtual_accounts')
    .select(['reference_required'])
    .where('id', '=', dep.virtual_account_id)
    .where('business_id', '=', dep.business_id)
    .where('environment', '=', dep.environment)
    .executeTakeFirst();
  if (!va) return { result: 'no_match', paymentRequestId: null };
  const ref = normaliseReference(dep.reference);
  if (va.reference_required && ref === null) return { result: 'no_match', paymentRequestId: null };

  let q = tx
    .selectFrom('payment_requests')
    .selectAll()
    .where('business_id', '=', dep.business_id)
    .where('environment', '=', dep.environment)
    .where('status', '=', 'open')
    .where('currency', '=', dep.currency)
    .where('amount', '=', dep.amount)
    .where('created_at', '<=', dep.received_at)
    .where('expires_at', '>', dep.received_at);
  if (va.reference_required) q = q.where('reference_key', '=', ref as string);
  const candidates = await q.orderBy('id').limit(2).forUpdate().execute();
  if (candidates.length === 0) return { result: 'no_match', paymentRequestId: null };
  if (candidates.length > 1) return { result: 'ambiguous', paymentRequestId: null };

  const [req] = candidates;
  return payRequest(tx, core, dep, req.id, now);
}

/** Marks request `requestId` paid by `dep` (guarded on `open`) and emits payment_request.paid. */
async function payRequest(tx: Transaction<Database>, core: Core, dep: DepositRow, requestId: string, now: Date): Promise<MatchOutcome> {
  const paid = await markPaymentRequestPaid(tx, requestId, dep.id, now);
  if (!paid) return { result: 'no_match', paymentRequestId: null };
  const link = await tx.selectFrom('payment_links').select('token').where('id', '=', paid.payment_link_id).executeTakeFirstOrThrow();
  await emitEvent(tx, {
    businessId: paid.business_id,
    environment: paid.environment,
    type: PAYMENT_REQUEST_EVENT_ON_ENTER.paid,
    objectType: 'payment_request',
    objectId: paid.id,
    data: eventObjectData({ object: 'payment_request', value: toPaymentRequest(paid, link.token, core.config.publicUrl) }),
    dataFormat: 'domain',
    dedupeKey: `payment_request:${paid.id}:paid`,
  });
  return { result: 'matched', paymentRequestId: paid.id };
}

/** Micro-USDC per cent: a USDC deposit pays a USD request 1:1 (USDC has 6 decimals, USD 2). */
const MICRO_USDC_PER_CENT = 10_000n;

/**
 * A USDC deposit on chain (docs/getting-paid.md "Crypto deposits", "Matching"): it arrived at the
 * business's own deposit address, so, like a USD account without `reference_required`, the
 * address identifies the business and the amount the request: an open USD request of exactly the
 * amount (1 USDC = 1 USD), created before and expiring after the deposit's receipt. When two fit
 * and the transfer carried a memo, the memo, compared as references are, picks the one.
 */
async function matchCryptoDeposit(tx: Transaction<Database>, core: Core, dep: DepositRow, now: Date): Promise<MatchOutcome> {
  if (dep.currency !== 'USDC' || dep.amount % MICRO_USDC_PER_CENT !== 0n) return { result: 'no_match', paymentRequestId: null };
  const q = tx
    .selectFrom('payment_requests')
    .selectAll()
    .where('business_id', '=', dep.business_id)
    .where('environment', '=', dep.environment)
    .where('status', '=', 'open')
    .where('currency', '=', 'USD')
    .where('amount', '=', dep.amount / MICRO_USDC_PER_CENT)
    .where('created_at', '<=', dep.received_at)
    .where('expires_at', '>', dep.received_at);
  let candidates = await q.orderBy('id').limit(2).forUpdate().execute();
  const ref = normaliseReference(dep.reference);
  if (candidates.length > 1 && ref !== null) candidates = await q.where('reference_key', '=', ref).orderBy('id').limit(2).forUpdate().execute();
  if (candidates.length === 0) return { result: 'no_match', paymentRequestId: null };
  if (candidates.length > 1) return { result: 'ambiguous', paymentRequestId: null };
  return payRequest(tx, core, dep, candidates[0].id, now);
}
