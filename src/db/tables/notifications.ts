import type { Generated } from 'kysely';
import type { Environment } from './platform';

/** Delivery status of a recipient notification (src/core/notifications). */
export type NotificationStatus = 'pending' | 'sent' | 'failed' | 'canceled';

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
  created_at: Generated<Date>;
  updated_at: Date;
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
}
