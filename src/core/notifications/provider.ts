/**
 * The one small interface every notification provider implements (docs/surface-c.md: "Providers are behind
 * one small interface"). A provider delivers one rendered message; `idempotencyKey` (the
 * notification id `ntf_…`) is carried on every call, so a provider that sees the same key twice
 * delivers once: the sandbox provider records at most one message per key, the live HTTP provider
 * sends it as the `Idempotency-Key` header of its gateway.
 */
import type { Environment } from '../../db/schema';
import type { NotificationChannel, NotificationLanguage } from './templates';

/** One message to deliver. */
export interface OutgoingNotification {
  /** The notification id (`ntf_…`): the provider's deduplication key. */
  idempotencyKey: string;
  businessId: string;
  environment: Environment;
  payoutId: string;
  channel: NotificationChannel;
  /** E.164 phone number (whatsapp, sms) or e-mail address. */
  destination: string;
  language: NotificationLanguage;
  /** E-mail subject (null for whatsapp and sms). */
  subject: string | null;
  body: string;
  claimUrl: string;
}

/** What a provider answered for a delivered message. */
export interface SentNotification {
  /** The provider's id of the message. */
  providerMessageId: string;
  /** True when the provider had already delivered a message with this idempotency key (nothing new was sent). */
  deduplicated: boolean;
}

/** A notification provider (sandbox recorder, live HTTP gateway). */
export interface NotificationProvider {
  /** Stored in notifications.provider: 'sandbox', 'live-http'. */
  readonly name: string;
  /**
   * Delivers `message` at most once per `message.idempotencyKey`. Throws
   * {@link NotificationProviderError}: `retryable` for a transient failure (network, 5xx), not
   * retryable for a refusal or a missing configuration.
   */
  send(message: OutgoingNotification): Promise<SentNotification>;
}

/** A provider call that did not deliver the message. */
export class NotificationProviderError extends Error {
  constructor(
    message: string,
    /** Whether calling again may succeed. */
    readonly retryable: boolean,
    /** Machine-readable reason: 'not_configured', 'rejected', 'unavailable'. */
    readonly code: 'not_configured' | 'rejected' | 'unavailable',
  ) {
    super(message);
    this.name = 'NotificationProviderError';
  }
}
