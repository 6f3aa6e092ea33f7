/**
 * The one small interface every notification provider implements (docs/surface-c.md: "Providers are behind
 * one small interface"). A provider delivers one rendered message; `idempotencyKey` (the
 * notification id `ntf_…`) is carried on every call, so a provider that sees the same key twice
 * delivers once: the sandbox provider records at most one message per key, the live HTTP provider
 * sends it as the `Idempotency-Key` header of its gateway.
 */
import type { Environment } from '../../db/schema';
import { maskDestinationsIn, type NotificationChannel, type NotificationLanguage } from './templates';

/** One message to deliver. */
export interface OutgoingNotification {
  /** The notification id (`ntf_…`): the provider's deduplication key. */
  idempotencyKey: string;
  /**
   * Our own reference of this provider message (`nmsg_…`, a notification_messages row, recorded
   * before the call): carried to the provider (Twilio StatusCallback query, WhatsApp
   * `biz_opaque_callback_data`, e-mail Message-ID and return path) so an unknown outcome can be
   * looked up. Absent for the sandbox and gateway providers, which deduplicate by idempotencyKey.
   */
  reference?: string;
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
  /** The template parameters (WhatsApp templates carry them instead of a free body): amount as shown, e.g. `25,00 USD`, and the sender's name. */
  templateParams?: { amount: string; senderName: string };
}

/** What a provider answered for a delivered message. */
export interface SentNotification {
  /** The provider's id of the message. */
  providerMessageId: string;
  /** True when the provider had already delivered a message with this idempotency key (nothing new was sent). */
  deduplicated: boolean;
}

/**
 * What a provider found when asked for a message sent under our reference by an earlier call whose
 * outcome is unknown (docs/notifications.md "Exactly once"):
 * - `found`: it was sent (its provider id); record it, do not send again;
 * - `not_found`: the provider has no such message; sending again is safe;
 * - `wait`: the provider cannot be asked yet (WhatsApp: no lookup API; its status webhook carrying
 *   our reference may still come); retry later;
 * - `unknowable`: the protocol offers no lookup at all (SMTP); the message is taken as sent
 *   (at most once) and the notification says so.
 */
export type LookupResult =
  | { result: 'found'; providerMessageId: string }
  | { result: 'not_found' }
  | { result: 'wait'; reason: string }
  | { result: 'unknowable'; reason: string; providerMessageId?: string };

/** Novu-style channel kinds: one provider per kind (e-mail, SMS, chat). */
export type ProviderChannelType = 'email' | 'sms' | 'chat';

/** A notification provider (sandbox recorder, live HTTP gateway, SMTP, Twilio, WhatsApp Cloud API). */
export interface NotificationProvider {
  /** Stored in notifications.provider and notification_messages.provider: 'sandbox', 'live-http', 'smtp', 'twilio', 'whatsapp-cloud'. */
  readonly name: string;
  /**
   * Delivers `message` at most once per `message.idempotencyKey`. Throws
   * {@link NotificationProviderError}: `retryable` for a transient failure (network, 5xx), not
   * retryable for a refusal or a missing configuration.
   */
  send(message: OutgoingNotification): Promise<SentNotification>;
  /**
   * Looks up a message an earlier call may have sent under `message.reference` (its attempt began at
   * `attemptedAt`). Providers without it deduplicate by `idempotencyKey` instead (sandbox, gateway).
   */
  lookup?(message: OutgoingNotification, attemptedAt: Date): Promise<LookupResult>;
}

/** An e-mail provider (SMTP through nodemailer). */
export interface EmailProvider extends NotificationProvider {
  readonly channelType: 'email';
}
/** An SMS provider (Twilio Programmable Messaging). */
export interface SmsProvider extends NotificationProvider {
  readonly channelType: 'sms';
}
/** A chat provider (WhatsApp Business Cloud API, template messages). */
export interface ChatProvider extends NotificationProvider {
  readonly channelType: 'chat';
}

/** A provider call that did not deliver the message. Its message never carries a destination (masked on construction). */
export class NotificationProviderError extends Error {
  constructor(
    message: string,
    /** Whether calling again may succeed. */
    readonly retryable: boolean,
    /** Machine-readable reason: 'not_configured', 'rejected', 'unavailable'. */
    readonly code: 'not_configured' | 'rejected' | 'unavailable',
    readonly details: {
      /** The provider's own error code (`21610`, `131026`, `smtp_550`), kept as the notification's failure_code. */
      providerCode?: string;
      /** True when the request may have reached the provider (a timeout, a dropped connection after sending): look it up before sending again. */
      outcomeUnknown?: boolean;
    } = {},
  ) {
    super(maskDestinationsIn(message));
    this.name = 'NotificationProviderError';
  }
}
