import type { Generated } from 'kysely';
import type { Environment } from './platform';

/** Delivery status of a recipient notification (src/core/notifications). */
export type NotificationStatus = 'pending' | 'sent' | 'delivered' | 'failed' | 'canceled';

/**
 * A recipient notification of a claim-link payout (docs/surface-c.md): written with the payout, sent by the
 * payout workflow's notification step. `id` (`ntf_…`) is the idempotency key every provider call
 * carries.
 */
export interface NotificationsTable {
  id: string;
  business_id: string;
  environment: Environment;
  /** Unique: one notification per payout. */
  payout_id: string;
  /** 'whatsapp' | 'sms' | 'email'. */
  channel: string;
  /** E.164 phone number (whatsapp, sms) or e-mail address; unmasked here, masked in responses. */
  destination: string;
  /** notification.language as given (null when absent). */
  requested_language: string | null;
  /** The template language used: 'en' | 'es' | 'pt'. */
  language: string;
  status: NotificationStatus;
  /** 'sandbox' or 'live-http'. */
  provider: string | null;
  provider_message_id: string | null;
  /** Provider calls made (retries included). */
  attempts: number;
  /** Why the notification failed (status failed). */
  error: string | null;
  sent_at: Date | null;
  /** When a provider reported the message delivered (status delivered). */
  delivered_at: Generated<Date | null>;
  /** Machine-readable reason of a failure: a provider's error code (`30003`, `131026`, `smtp_550`) or `opted_out`, `not_configured`. */
  failure_code: Generated<string | null>;
  created_at: Generated<Date>;
  updated_at: Date;
}

/** Status of one provider message (src/core/notifications/messages.ts). */
export type NotificationMessageStatus = 'sending' | 'sent' | 'delivered' | 'failed';

/**
 * One provider message of a notification (docs/notifications.md "Exactly once"): recorded before
 * the provider is called; `id` (`nmsg_…`) is our own reference carried to the provider. Unique per
 * (notification, channel): a channel is messaged at most once. Written only by
 * src/core/notifications/messages.ts.
 */
export interface NotificationMessagesTable {
  id: string;
  notification_id: string;
  payout_id: string;
  business_id: string;
  environment: Environment;
  /** 'whatsapp' | 'sms' | 'email'. */
  channel: string;
  /** E.164 phone number or e-mail address (unmasked here; masked in logs and responses). */
  destination: string;
  /** 'primary' (the notification's channel) or 'fallback' (SMS after WhatsApp could not reach the number). */
  purpose: 'primary' | 'fallback';
  /** 'smtp' | 'twilio' | 'whatsapp-cloud' | 'sandbox' | 'live-http'. */
  provider: string;
  status: NotificationMessageStatus;
  /** True while a provider call may have happened whose outcome is not recorded (looked up before calling again). */
  in_flight: Generated<boolean>;
  attempts: Generated<number>;
  last_attempt_at: Date | null;
  provider_message_id: string | null;
  /** The provider's last reported status (queued, sent, delivered, read, undelivered, failed). */
  provider_status: string | null;
  failure_code: string | null;
  error: string | null;
  sent_at: Date | null;
  delivered_at: Date | null;
  failed_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** A destination that opted out of a channel (Twilio inbound STOP). Written only by src/core/notifications/opt-outs.ts. */
export interface NotificationOptOutsTable {
  environment: Environment;
  channel: string;
  /** E.164 phone number. */
  destination: string;
  /** What recorded it, e.g. 'twilio:STOP'. */
  source: string;
  created_at: Generated<Date>;
}

/** A provider callback already applied (a replay is refused). Written only by src/core/notifications/callbacks.ts. */
export interface NotificationCallbacksTable {
  /** sha256 hex over provider, URL and raw body. */
  digest: string;
  provider: string;
  outcome: string;
  received_at: Generated<Date>;
}

/** A message the sandbox provider recorded instead of sending it (read with GET /sandbox/notifications). */
export interface SandboxNotificationMessagesTable {
  id: string;
  /** Unique: the provider's deduplication key (a retried send records nothing new). */
  notification_id: string;
  business_id: string;
  environment: Environment;
  payout_id: string;
  channel: string;
  destination: string;
  language: string;
  /** E-mail subject (null for whatsapp and sms). */
  subject: string | null;
  body: string;
  claim_url: string;
  created_at: Generated<Date>;
}

export interface NotificationTables {
  notifications: NotificationsTable;
  sandbox_notification_messages: SandboxNotificationMessagesTable;
  notification_messages: NotificationMessagesTable;
  notification_opt_outs: NotificationOptOutsTable;
  notification_callbacks: NotificationCallbacksTable;
}
