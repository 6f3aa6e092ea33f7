/**
 * Paying a payment link or a payment request by card (docs/getting-paid.md "Card payments"): the
 * public page's "Pay by card" form makes a live card payment and sends the payer to the card
 * processor's checkout. No API key: the page tokens are the capability.
 */
import { ApiError, validationError } from '../../domain/errors';
import { AmountFormatError, parseAmount } from '../../domain/money';
import { paymentLinkUrl, paymentRequestUrl } from '../../domain/payment-links';
import { createCardPayment } from '../cards/card-payments';
import type { Core } from '../context';
import { MAX_DEPOSIT_UNITS } from '../funding/deposits';
import { findPublishedLinkByToken, methodReadiness } from './payment-links';
import { findPaymentRequestByToken } from './payment-requests';

/** The smallest card payment on a link without a request, USD. */
export const MIN_LINK_CARD_USD = '1.00';

/**
 * Makes the card payment of a page: a request's amount and currency, or `amountUsd` (decimal
 * string, USD) on a link's own page. Returns the checkout URL (the page answers 303 there), or
 * undefined when the page does not exist (404). Errors: 400 validation_error (`amount`), 409
 * invalid_state (the request is no longer open), 400 channel_unavailable (card not ready: not
 * offered by the link, not live, or no card processor), 502 processor_unavailable.
 */
export async function startPageCardPayment(core: Core, token: string, requestToken: string | undefined, amountUsd: unknown): Promise<string | undefined> {
  const link = await findPublishedLinkByToken(core.db, token);
  if (!link) return undefined;
  const request = requestToken !== undefined ? await findPaymentRequestByToken(core.db, link.id, requestToken) : undefined;
  if (requestToken !== undefined && !request) return undefined;
  const ready = await methodReadiness(core.db, link.business_id, link.environment, core.config);
  if (!(link.methods as string[]).includes('card') || !ready.card) throw new ApiError(400, 'channel_unavailable', 'Card payments are not offered here', null);
  const now = core.now();
  let amount: bigint;
  let currency: string;
  if (request) {
    if (request.status !== 'open' || new Date(request.expires_at).getTime() <= now.getTime()) {
      throw new ApiError(409, 'invalid_state', 'This request is no longer open', null);
    }
    amount = BigInt(request.amount);
    currency = request.currency;
  } else {
    try {
      amount = parseAmount(String(amountUsd ?? '').trim(), 'USD');
    } catch (e) {
      if (e instanceof AmountFormatError) throw validationError('amount', `Enter an amount in USD, e.g. 25.00 (${e.message})`);
      throw e;
    }
    if (amount < parseAmount(MIN_LINK_CARD_USD, 'USD')) throw validationError('amount', `The smallest card payment is ${MIN_LINK_CARD_USD} USD`);
    if (amount > parseAmount(MAX_DEPOSIT_UNITS, 'USD')) throw validationError('amount', `The largest card payment is ${MAX_DEPOSIT_UNITS} USD`);
    currency = 'USD';
  }
  const pageUrl = request ? paymentRequestUrl(core.config.publicUrl, link.token, request.token) : paymentLinkUrl(core.config.publicUrl, link.token);
  const payment = await createCardPayment(core, {
    businessId: link.business_id,
    environment: link.environment,
    purpose: request ? 'payment_request' : 'payment_link',
    paymentLinkId: link.id,
    paymentRequestId: request?.id ?? null,
    amount,
    currency,
    description: request ? `${link.name} (${request.reference})` : link.name,
    successUrl: `${pageUrl}?card=paid`,
    cancelUrl: `${pageUrl}?card=canceled`,
    notAfter: request ? new Date(request.expires_at) : null,
  });
  if (!payment.session_url) throw new ApiError(502, 'processor_unavailable', 'The card processor gave no checkout page; try again', null);
  return payment.session_url;
}
