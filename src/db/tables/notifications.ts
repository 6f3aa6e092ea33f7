import type { Generated } from 'kysely';
import type { Environment } from './platform';

export type NotificationStatus = 'pending' | 'sent' | 'delivered' | 'failed' | 'canceled';

/** A recipient notification of a claim-link payout (docs/surface-c.md); `id` is the idempotency key of every provider call. */
export interface NotificationsTable {
  id: string;
  business_id: string;
  environment: Environment;
  payout_id: string;
  channel: string;
  /** E.164 phone or e-mail address; masked in responses. */
  destination: string;
  requested_language: string | null;
  language: string;
  status: NotificationStatus;
  provider: string | null;
  provider_message_id: string | null;
  attempts: number;
  error: string | null;
  sent_at: Date | null;
  delivered_at: Generated<Date | null>;
  failure_code: Generated<string | null>;
  created_at: Generated<Date>;
  updated_at: Date;
}

export type NotificationMessageStatus = 'sending' | 'sent' | 'delivered' | 'failed';

/** One provider message of a notification (docs/notifications.md "Exactly once"), recorded before the call; unique per (notification, channel). */
export interface NotificationMessagesTable {
  id: string;
  notification_id: string;
  payout_id: string;
  business_id: string;
  environment: Environment;
  channel: string;
  destination: string;
  /** 'fallback': SMS after WhatsApp could not reach the number. */
  purpose: 'primary' | 'fallback';
  provider: string;
  status: NotificationMessageStatus;
  /** True while a call's outcome is unrecorded (looked up before calling again). */
  in_flight: Generated<boolean>;
  attempts: Generated<number>;
  last_attempt_at: Date | null;
  provider_message_id: string | null;
  provider_status: string | null;
  failure_code: string | null;
  error: string | null;
  sent_at: Date | null;
  delivered_at: Date | null;
  failed_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface NotificationOptOutsTable {
  environment: Environment;
  channel: string;
  destination: string;
  source: string;
  created_at: Generated<Date>;
}

/** A provider callback already applied (a replay is refused). */
export interface NotificationCallbacksTable {
  /** sha256 hex over provider, URL and raw body. */
  digest: string;
  provider: string;
  outcome: string;
  received_at: Generated<Date>;
}

export interface SandboxNotificationMessagesTable {
  id: string;
  notification_id: string;
  business_id: string;
  environment: Environment;
  payout_id: string;
  channel: string;
  destination: string;
  language: string;
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
