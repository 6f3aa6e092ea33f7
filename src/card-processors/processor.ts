/**
 * The card-processor seam (docs/architecture.md "Seams"; docs/getting-paid.md "Card payments"): one
 * module per processor (`src/card-processors/<id>/`), listed in `src/card-processors/registry.ts`.
 * The core sees only these types. Amounts are minor units of `currency` (ISO 4217, upper case).
 */
import type { z } from 'zod';
import type { SeamModule, SeamSettings } from '../seams/module';

/**
 * A Checkout Session to make: `reference` our card payment id (`client_reference_id`), `metadata`
 * ours (shown back in events), `amount` minor units > 0, `description` the line item the payer sees,
 * `expiresAt` at most 24 h ahead, `idempotencyKey` one per attempt (`<reference>:<attempt>`).
 */
export interface CardCheckoutInput {
  reference: string;
  metadata: Record<string, string>;
  amount: bigint;
  currency: string;
  description: string;
  successUrl: string;
  cancelUrl: string;
  expiresAt: Date;
  idempotencyKey: string;
}

/** A session as the processor states it now: `url` where the payer pays, `reference` its `client_reference_id`, `fee` the charge's fee (minor units) when paid and known. */
export interface CardCheckoutState {
  sessionId: string;
  url: string | null;
  status: 'open' | 'complete' | 'expired';
  paymentStatus: 'paid' | 'unpaid' | 'no_payment_required';
  reference: string | null;
  amount: bigint;
  currency: string;
  expiresAt: Date | null;
  paymentIntentId: string | null;
  chargeId: string | null;
  fee: bigint | null;
}

/** A refund request: minor units of the payment's currency; `reference` our refund id (`cref_…`), also the idempotency key. */
export interface CardRefundInput {
  paymentIntentId: string;
  amount: bigint;
  reference: string;
}

export interface CardRefundResult {
  refundId: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  failureReason: string | null;
}

/**
 * A dispute as an event states it, minor units of `currency`: `status` the processor's (`needs_response`,
 * `under_review`, `won`, `lost`, ...); `withdrawn`/`reinstated` its balance transactions so far, with their fees, as magnitudes (>= 0).
 */
export interface CardDisputeState {
  id: string;
  paymentIntentId: string | null;
  chargeId: string | null;
  status: string;
  reason: string | null;
  amount: bigint;
  currency: string;
  withdrawn: { amount: bigint; fee: bigint } | null;
  reinstated: { amount: bigint; fee: bigint } | null;
}

/** The kinds of event the core applies; anything else is recorded as `other` and changes nothing. */
export type CardEventKind =
  | 'checkout_completed'
  | 'checkout_async_succeeded'
  | 'checkout_async_failed'
  | 'checkout_expired'
  | 'refund_updated'
  | 'dispute_created'
  | 'dispute_updated'
  | 'dispute_funds_withdrawn'
  | 'dispute_funds_reinstated'
  | 'dispute_closed'
  | 'other';

/** A verified processor event, normalized: `id`/`type` the processor's (`evt_…`, `checkout.session.completed`); `checkout`, `refund`, `dispute` by kind; `payload` the parsed body. */
export interface CardProcessorEvent {
  id: string;
  type: string;
  kind: CardEventKind;
  createdAt: Date;
  livemode: boolean;
  checkout: CardCheckoutState | null;
  refund: (CardRefundResult & { paymentIntentId: string | null; amount: bigint; reference: string | null }) | null;
  dispute: CardDisputeState | null;
  payload: unknown;
}

/** Thrown by {@link CardProcessor.verifyEvent}: the hook answers 400 with `code` and changes nothing. */
export class CardEventRefusedError extends Error {
  constructor(
    readonly code: 'signature_invalid' | 'signature_expired' | 'payload_invalid',
    message: string,
  ) {
    super(message);
    this.name = 'CardEventRefusedError';
  }
}

/** A failed processor call; `retryable` false when the same call will fail again (refused parameters, declined refund). */
export class CardProcessorError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'CardProcessorError';
  }
}

/** A connected processor. Every call throws {@link CardProcessorError} on failure. */
export interface CardProcessor {
  readonly id: string;
  createCheckout(input: CardCheckoutInput): Promise<CardCheckoutState>;
  retrieveCheckout(sessionId: string): Promise<CardCheckoutState>;
  expireCheckout(sessionId: string): Promise<CardCheckoutState>;
  refund(input: CardRefundInput): Promise<CardRefundResult>;
  /**
   * Verifies a webhook delivery (raw body, lower-case headers) at `now` and normalizes it. Throws
   * {@link CardEventRefusedError} for a bad or stale signature (tolerance 300 s) or an unreadable body.
   */
  verifyEvent(rawBody: string, headers: Record<string, string | undefined>, now: Date): CardProcessorEvent;
  close?(): void;
}

/** One card-processor module; `connect` is null when its settings are incomplete (no live card processor). */
export interface CardProcessorModule<S extends SeamSettings = SeamSettings> extends SeamModule<S> {
  connect(settings: z.infer<z.ZodObject<S>>, context: { timeoutMs: number }): CardProcessor | null;
}

/** Declares a module with its settings' type checked against `connect` (an identity). */
export function cardProcessorModule<S extends SeamSettings>(m: CardProcessorModule<S>): CardProcessorModule<S> {
  return m;
}
