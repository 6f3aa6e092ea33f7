/**
 * The one interface every notification provider implements (docs/notifications.md). A provider
 * delivers a message at most once per `idempotencyKey` (the notification id `ntf_…`).
 */
import { maskDestinationsIn, type NotificationChannel, type NotificationLanguage } from '../domain/notifications';

export interface OutgoingNotification {
  idempotencyKey: string;
  /** Our reference (`nmsg_…`, recorded before the call) carried to the provider so an unknown outcome can be looked up. */
  reference?: string;
  businessId: string;
  environment: 'sandbox' | 'live';
  payoutId: string;
  channel: NotificationChannel;
  /** E.164 phone number or e-mail address. */
  destination: string;
  language: NotificationLanguage;
  /** Null for whatsapp and sms. */
  subject: string | null;
  body: string;
  claimUrl: string;
  /** WhatsApp template parameters: amount as shown (`25,00 USD`) and the sender's name. */
  templateParams?: { amount: string; senderName: string };
}

export interface SentNotification {
  providerMessageId: string;
  /** True when nothing new was sent (same idempotency key). */
  deduplicated: boolean;
}

/**
 * Outcome of looking up an earlier call with unknown outcome (docs/notifications.md "Exactly once"):
 * `found` (record it), `not_found` (safe to send), `wait` (retry later), `unknowable` (taken as sent).
 */
export type LookupResult =
  | { result: 'found'; providerMessageId: string }
  | { result: 'not_found' }
  | { result: 'wait'; reason: string }
  | { result: 'unknowable'; reason: string; providerMessageId?: string };

export type ProviderChannelType = 'email' | 'sms' | 'chat';

export interface NotificationProvider {
  /** Stored in notifications.provider and notification_messages.provider. */
  readonly name: string;
  /** Delivers at most once per idempotency key; throws {@link NotificationProviderError} (`retryable` when transient). */
  send(message: OutgoingNotification): Promise<SentNotification>;
  /** Looks up a message sent under `message.reference` (its attempt began at `attemptedAt`). */
  lookup?(message: OutgoingNotification, attemptedAt: Date): Promise<LookupResult>;
}

export interface EmailProvider extends NotificationProvider {
  readonly channelType: 'email';
}
export interface SmsProvider extends NotificationProvider {
  readonly channelType: 'sms';
}
export interface ChatProvider extends NotificationProvider {
  readonly channelType: 'chat';
}

/** A provider call that did not deliver; its message never carries a destination (masked on construction). */
export class NotificationProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly code: 'not_configured' | 'rejected' | 'unavailable',
    readonly details: {
      /** Kept as the notification's failure_code. */
      providerCode?: string;
      /** The request may have reached the provider: look it up before sending again. */
      outcomeUnknown?: boolean;
    } = {},
  ) {
    super(maskDestinationsIn(message));
    this.name = 'NotificationProviderError';
  }
}
