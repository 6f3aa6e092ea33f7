/**
 * The Stripe card processor (docs/getting-paid.md "Card payments"): Stripe Checkout through the
 * official `stripe` client, loaded at the first use (src/lazy-package.ts; docs/operations.md "Idle
 * cost"). Every create carries an idempotency key (a retried create makes one session, a retried
 * refund refunds once); the client retries network failures, 409, 429 and 5xx itself
 * (`CARD_STRIPE_MAX_NETWORK_RETRIES`) with the same key. With `CARD_STRIPE_API_URL` it talks to a
 * Stripe-compatible API instead (the test card processor, tools/test-card-processor/).
 */
import type Stripe from 'stripe';
import { lazyPackage } from '../../lazy-package';
import { CardEventRefusedError, CardProcessorError, cardProcessorModule, type CardCheckoutState, type CardProcessor, type CardProcessorEvent } from '../processor';
import { checkoutState, disputeState, eventRefund, refundResult, STRIPE_EVENT_KINDS } from './events';
import { STRIPE_SETTINGS } from './settings';

export const STRIPE_CARD_PROCESSOR = 'stripe';
/** How old a webhook signature may be (seconds), Stripe's default tolerance. */
export const STRIPE_SIGNATURE_TOLERANCE_S = 300;
/** What a session is read with: the charge and its balance transaction, for the fee. */
const SESSION_EXPAND = ['payment_intent.latest_charge.balance_transaction'];

const stripePackage = lazyPackage<typeof Stripe>('stripe');

/** Connection settings of {@link stripeCardProcessor}. */
export interface StripeProcessorSettings {
  secretKey: string;
  webhookSecret: string;
  /** `http(s)://host[:port]` of a Stripe-compatible API, or null for api.stripe.com. */
  apiUrl: string | null;
  maxNetworkRetries: number;
  timeoutMs: number;
}

/** The client's `host`/`port`/`protocol` options for `apiUrl` (none for api.stripe.com). */
export function stripeHostOptions(apiUrl: string | null): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  if (!apiUrl) return {};
  const u = new URL(apiUrl);
  const protocol = u.protocol === 'http:' ? 'http' : 'https';
  return { host: u.hostname, port: u.port || (protocol === 'http' ? 80 : 443), protocol };
}

/**
 * A Stripe error as {@link CardProcessorError}: retryable for a connection failure, 409 (a
 * concurrent request with the same key), 429 and 5xx; not for a refused request (4xx: invalid
 * parameters, a declined card, a wrong key, a reused idempotency key with other parameters). The
 * code is Stripe's `code` (`parameter_unknown`, `amount_too_large`, ...), else its error type.
 */
export function stripeError(err: unknown, what: string): CardProcessorError {
  if (err instanceof CardProcessorError) return err;
  const e = err as { type?: string; statusCode?: number; code?: string; message?: string };
  const status = e.statusCode;
  const retryable = e.type === 'StripeConnectionError' || e.type === 'StripeAPIError' || e.type === 'StripeRateLimitError' || status === undefined || status === 409 || status === 429 || status >= 500;
  const code = e.code ?? (e.type ? e.type.replace(/^Stripe/, '').replace(/Error$/, '').replace(/(?<=[a-z])([A-Z])/g, '_$1').toLowerCase() : null);
  return new CardProcessorError(`Stripe ${what} failed${status ? ` (HTTP ${status})` : ''}: ${e.message ?? String(err)}`, retryable, code);
}

/** Minor units as the JSON number Stripe takes; refuses (not retryable) an amount a number cannot carry exactly. */
export function stripeAmount(amount: bigint): number {
  if (amount <= 0n || amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new CardProcessorError(`amount ${amount} is out of range for Stripe`, false, 'amount_out_of_range');
  return Number(amount);
}

/** A {@link CardProcessor} over one `stripe` client, made at its first call. */
export function stripeCardProcessor(s: StripeProcessorSettings): CardProcessor {
  let made: Stripe | undefined;
  const client = (): Stripe => {
    const StripeClient = stripePackage();
    return (made ??= new StripeClient(s.secretKey, {
      maxNetworkRetries: s.maxNetworkRetries,
      timeout: s.timeoutMs,
      telemetry: false,
      ...stripeHostOptions(s.apiUrl),
    }));
  };
  const call = async <T>(what: string, fn: (stripe: Stripe) => Promise<T>): Promise<T> => {
    try {
      return await fn(client());
    } catch (err) {
      throw stripeError(err, what);
    }
  };
  const retrieve = (sessionId: string) => call('checkout.sessions.retrieve', (c) => c.checkout.sessions.retrieve(sessionId, { expand: SESSION_EXPAND })).then(checkoutState);

  return {
    id: STRIPE_CARD_PROCESSOR,
    async createCheckout(input): Promise<CardCheckoutState> {
      const session = await call('checkout.sessions.create', (c) =>
        c.checkout.sessions.create(
          {
            mode: 'payment',
            line_items: [{ quantity: 1, price_data: { currency: input.currency.toLowerCase(), unit_amount: stripeAmount(input.amount), product_data: { name: input.description } } }],
            client_reference_id: input.reference,
            metadata: input.metadata,
            // The same metadata on the payment intent, so its refunds and disputes name our payment.
            payment_intent_data: { metadata: input.metadata },
            success_url: input.successUrl,
            cancel_url: input.cancelUrl,
            expires_at: Math.floor(input.expiresAt.getTime() / 1000),
          },
          { idempotencyKey: input.idempotencyKey },
        ),
      );
      return checkoutState(session);
    },
    retrieveCheckout: retrieve,
    async expireCheckout(sessionId) {
      try {
        return checkoutState(await client().checkout.sessions.expire(sessionId, { expand: SESSION_EXPAND }));
      } catch (err) {
        const refused = stripeError(err, 'checkout.sessions.expire');
        if (refused.retryable) throw refused;
        // Stripe refuses to expire a session that is not open: a complete (or already expired) session is its answer.
        const now = await retrieve(sessionId);
        if (now.status === 'open') throw refused;
        return now;
      }
    },
    async refund(input) {
      const r = await call('refunds.create', (c) =>
        c.refunds.create({ payment_intent: input.paymentIntentId, amount: stripeAmount(input.amount), metadata: { reference: input.reference } }, { idempotencyKey: input.reference }),
      );
      return refundResult(r);
    },
    verifyEvent(rawBody, headers, now): CardProcessorEvent {
      const header = headers['stripe-signature'] ?? '';
      const webhooks = client().webhooks;
      // The client's own check, twice: first the signature alone (tolerance 0 skips the age) and the
      // body's JSON, then the age at `now` (`receivedAt`, so a test clock decides it), whose only
      // possible failure left is the age.
      let event: Stripe.Event;
      try {
        event = webhooks.constructEvent(rawBody, header, s.webhookSecret, 0);
      } catch (err) {
        if ((err as { type?: string }).type === 'StripeSignatureVerificationError')
          throw new CardEventRefusedError('signature_invalid', `the Stripe-Signature header does not verify: ${(err as Error).message.split('\n')[0]}`);
        throw new CardEventRefusedError('payload_invalid', `the event body is not JSON: ${(err as Error).message}`);
      }
      try {
        webhooks.constructEvent(rawBody, header, s.webhookSecret, STRIPE_SIGNATURE_TOLERANCE_S, undefined, now.getTime());
      } catch {
        throw new CardEventRefusedError('signature_expired', `the Stripe-Signature timestamp is more than ${STRIPE_SIGNATURE_TOLERANCE_S} s old`);
      }
      if (!event || typeof event !== 'object' || typeof event.id !== 'string' || typeof event.type !== 'string' || !event.data?.object)
        throw new CardEventRefusedError('payload_invalid', 'the body is not a Stripe event (id, type, data.object)');
      return normalizeStripeEvent(event);
    },
  };
}

/** A verified Stripe event as {@link CardProcessorEvent} (docs/getting-paid.md "Card payments"). */
export function normalizeStripeEvent(event: Stripe.Event): CardProcessorEvent {
  let kind = STRIPE_EVENT_KINDS[event.type] ?? 'other';
  const object = event.data.object as unknown as Record<string, unknown>;
  let checkout: CardProcessorEvent['checkout'] = null;
  let refund: CardProcessorEvent['refund'] = null;
  let dispute: CardProcessorEvent['dispute'] = null;
  try {
    if (kind.startsWith('checkout_')) checkout = checkoutState(object as unknown as Stripe.Checkout.Session);
    else if (kind.startsWith('dispute_')) dispute = disputeState(object as unknown as Stripe.Dispute);
    else if (kind === 'refund_updated') {
      if (object.object === 'charge') {
        // charge.refunded: the newest refund among the charge's (when the charge carries its list).
        const latest = (object as unknown as Stripe.Charge).refunds?.data?.[0];
        if (latest) refund = eventRefund(latest);
        else kind = 'other';
      } else refund = eventRefund(object as unknown as Stripe.Refund);
    }
  } catch (err) {
    throw new CardEventRefusedError('payload_invalid', `the ${event.type} event's object is not readable: ${(err as Error).message}`);
  }
  return { id: event.id, type: event.type, kind, createdAt: new Date(event.created * 1000), livemode: event.livemode, checkout, refund, dispute, payload: event };
}

/** The Stripe module: connects when both the secret key and the webhook secret are set. */
export const STRIPE_CARD_PROCESSOR_MODULE = cardProcessorModule({
  id: STRIPE_CARD_PROCESSOR,
  settings: STRIPE_SETTINGS,
  connect(settings, context) {
    if (!settings.CARD_STRIPE_SECRET_KEY || !settings.CARD_STRIPE_WEBHOOK_SECRET) return null;
    return stripeCardProcessor({
      secretKey: settings.CARD_STRIPE_SECRET_KEY,
      webhookSecret: settings.CARD_STRIPE_WEBHOOK_SECRET,
      apiUrl: settings.CARD_STRIPE_API_URL ?? null,
      maxNetworkRetries: settings.CARD_STRIPE_MAX_NETWORK_RETRIES,
      timeoutMs: context.timeoutMs,
    });
  },
});
