/**
 * A payout's notification and a recorded sandbox message on the wire (snake_case, ISO 8601 UTC):
 * the `notification` of Surface C's payout and of the `payout.notification_*` events
 * (docs/surface-c.md, docs/notifications.md "Events"), and `GET /sandbox/notifications`.
 */
import type { NotificationChannel, NotificationLanguage, PayoutNotification, SandboxNotification } from '../../domain/notifications';

/** A payout's notification on the wire (`{channel, destination (masked), status, sent_at, ...}`). */
export interface WireNotification {
  channel: NotificationChannel;
  destination: string;
  language: NotificationLanguage;
  status: PayoutNotification['status'];
  sent_at: string | null;
  delivered_at: string | null;
  error: string | null;
  failure_code: string | null;
}

/** A recorded sandbox message on the wire. */
export interface WireSandboxNotification {
  id: string;
  object: 'sandbox_notification';
  notification_id: string;
  payout_id: string;
  channel: NotificationChannel;
  destination: string;
  language: NotificationLanguage;
  subject: string | null;
  body: string;
  claim_url: string;
  created_at: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The wire form of a payout's notification. */
export function renderPayoutNotification(n: PayoutNotification): WireNotification {
  return {
    channel: n.channel,
    destination: n.destination,
    language: n.language,
    status: n.status,
    sent_at: iso(n.sentAt),
    delivered_at: iso(n.deliveredAt),
    error: n.error,
    failure_code: n.failureCode,
  };
}

/** The wire form of a recorded sandbox message. */
export function renderSandboxNotification(m: SandboxNotification): WireSandboxNotification {
  return {
    id: m.id,
    object: 'sandbox_notification',
    notification_id: m.notificationId,
    payout_id: m.payoutId,
    channel: m.channel,
    destination: m.destination,
    language: m.language,
    subject: m.subject,
    body: m.body,
    claim_url: m.claimUrl,
    created_at: m.createdAt.toISOString(),
  };
}
