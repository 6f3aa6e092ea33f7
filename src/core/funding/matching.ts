/** Deposit to payment request matching (docs/getting-paid.md "Matching"): only exactly one fitting open request is paid. */
import type { Selectable, Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import type { DepositsTable } from '../../db/tables/funding';
import { type DepositMatchResult, normaliseReference, PAYMENT_REQUEST_EVENT_ON_ENTER } from '../../domain/funding';
import type { Core } from '../context';
import { emitEvent } from '../events';
import { markPaymentRequestPaid, toPaymentRequest } from '../payment-links/payment-requests';
import { paymentRequestEvent } from '../../domain/domain-events';

type DepositRow = Selectable<DepositsTable>;

export interface MatchOutcome {
  result: DepositMatchResult;
  paymentRequestId: string | null;
}

/** Matches `dep` (being credited in `tx`); on exactly one fit marks the request paid and emits payment_request.paid. */
export async function matchDeposit(tx: Transaction<Database>, core: Core, dep: DepositRow, now: Date): Promise<MatchOutcome> {
  if (dep.source === 'crypto') return matchCryptoDeposit(tx, core, dep, now);
  // A card payment made on a request's page names it (docs/getting-paid.md "Card payments").
  if (dep.source === 'card') {
    if (!dep.payment_request_id) return { result: 'not_applicable', paymentRequestId: null };
    const req = await tx
      .selectFrom('payment_requests')
      .select('id')
      .where('id', '=', dep.payment_request_id)
      .where('business_id', '=', dep.business_id)
      .where('environment', '=', dep.environment)
      .forUpdate()
      .executeTakeFirst();
    return req ? payRequest(tx, core, dep, req.id, now) : { result: 'no_match', paymentRequestId: null };
  }
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

async function payRequest(tx: Transaction<Database>, core: Core, dep: DepositRow, requestId: string, now: Date): Promise<MatchOutcome> {
  const paid = await markPaymentRequestPaid(tx, requestId, dep.id, now);
  if (!paid) return { result: 'no_match', paymentRequestId: null };
  const link = await tx.selectFrom('payment_links').select('token').where('id', '=', paid.payment_link_id).executeTakeFirstOrThrow();
  const request = toPaymentRequest(paid, link.token, core.config.publicUrl);
  await emitEvent(tx, paymentRequestEvent({ businessId: paid.business_id, environment: paid.environment }, PAYMENT_REQUEST_EVENT_ON_ENTER.paid, request, 'paid'));
  return { result: 'matched', paymentRequestId: paid.id };
}

const MICRO_USDC_PER_CENT = 10_000n;

/** A USDC deposit on chain pays the one open USD request of exactly its amount; a memo breaks a tie. */
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
