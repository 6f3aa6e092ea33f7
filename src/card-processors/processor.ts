/**
 * The card-processor seam (docs/architecture.md "Seams"; docs/getting-paid.md "Card payments"): one
 * module per processor (`src/card-processors/<id>/`), listed in `src/card-processors/registry.ts`.
 * The core sees only these types. Amounts are minor units of `currency` (ISO 4217, upper case).
 */
import type { z } from 'zod';
import type { SeamModule, SeamSettings } from '../seams/module';

/** What a Checkout Session is made for; `reference` is our card payment id (`cpay_…`). */
export interface CardCheckoutInput {
  /** Our card payment id: the session's `client_reference_id`. */
  reference: string;
  /** Ours, shown back in events (`business_id`, `environment`, `purpose`, `card_topup_id`, ...). */
  metadata: Record<string, string>;
  /** Minor units of `currency`, > 0. */
  amount: bigint;
  currency: string;
  /** The line item's name the payer sees. */
  description: string;
  successUrl: string;
  cancelUrl: string;
  /** At most 24 h after creation (the processor's limit). */
  expiresAt: Date;
  /** One per attempt to create (`<reference>:<attempt>`): a retried create makes one session. */
  idempotencyKey: string;
}

/** A session as the processor states it now. */
export interface CardCheckoutState {
  sessionId: string;
  /** Where the payer pays. */
  url: string | null;
  status: 'open' | 'complete' | 'expired';
  paymentStatus: 'paid' | 'unpaid' | 'no_payment_required';
  /** The session's `client_reference_id` (our card payment id), if any. */
  reference: string | null;
  /** Minor units. */
  amount: bigint;
  currency: string;
  expiresAt: Date | null;
  paymentIntentId: string | null;
  chargeId: string | null;
  /** The processor's fee for the charge, minor units of `currency`, when paid and known. */
  fee: bigint | null;
}

/** A refund request: minor units of the payment's currency. */
export interface CardRefundInput {
  paymentIntentId: string;
  amount: bigint;
  /** Our refund id (`cref_…`), also the idempotency key: a retried call refunds once. */
  reference: string;
}

export interface CardRefundResult {
  refundId: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  failureReason: string | null;
}

/** A dispute as an event states it; amounts in minor units of `currency`. */
export interface CardDisputeState {
  id: string;
  paymentIntentId: string | null;
  chargeId: string | null;
  /** The processor's status (`warning_needs_response`, `needs_response`, `under_review`, `won`, `lost`, ...). */
  status: string;
  reason: string | null;
  amount: bigint;
  currency: string;
  /** Net of the dispute's balance transactions so far: withdrawn (negative) and reinstated (positive), and the fees among them. */
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

/** A verified processor event, normalized. */
export interface CardProcessorEvent {
  /** The processor's event id (`evt_…`). */
  id: string;
  /** The processor's own type (`checkout.session.completed`). */
  type: string;
  kind: CardEventKind;
  createdAt: Date;
  /** Live or test mode as the processor states it. */
  livemode: boolean;
  /** For checkout_* kinds. */
  checkout: CardCheckoutState | null;
  /** For refund_updated. */
  refund: (CardRefundResult & { paymentIntentId: string | null; amount: bigint; reference: string | null }) | null;
  /** For dispute_* kinds. */
  dispute: CardDisputeState | null;
  /** The parsed body, stored as received. */
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
  /** The module id (`stripe`). */
  readonly id: string;
  createCheckout(input: CardCheckoutInput): Promise<CardCheckoutState>;
  retrieveCheckout(sessionId: string): Promise<CardCheckoutState>;
  /** Expires an open session (the payer can no longer pay); the state after. */
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
