/**
 * A claim-link payout's recipient notification (docs/surface-c.md, docs/notifications.md) and a
 * message the sandbox provider recorded, as the core returns them. Surface C renders them
 * (src/wire/surface-a/notifications.ts: the shape its payout and events carry).
 */

/** Template languages (ISO 639-1). */
export const NOTIFICATION_LANGUAGES = ['en', 'es', 'pt'] as const;
/** One of {@link NOTIFICATION_LANGUAGES}. */
export type NotificationLanguage = (typeof NOTIFICATION_LANGUAGES)[number];

/** Delivery channels of a notification (Surface C `delivery_channel`). */
export const NOTIFICATION_CHANNELS = ['whatsapp', 'sms', 'email'] as const;
/** One of {@link NOTIFICATION_CHANNELS}. */
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/** A payout's notification. */
export interface PayoutNotification {
  channel: NotificationChannel;
  /** Masked: `+52•••••5678`, `a•••@example.com`. */
  destination: string;
  language: NotificationLanguage;
  status: 'pending' | 'sent' | 'delivered' | 'failed' | 'canceled';
  /** When the provider accepted the message. */
  sentAt: Date | null;
  /** When a provider reported it delivered. */
  deliveredAt: Date | null;
  /** Why it failed, or that a fallback was used. */
  error: string | null;
  /** A provider code (`30003`, `smtp_550`), `opted_out`, `not_delivered`; else null. */
  failureCode: string | null;
}

/** A message the sandbox provider recorded (unmasked: the tester reads what the recipient would receive). */
export interface SandboxNotification {
  /** `msg_…`. */
  id: string;
  /** `ntf_…`: the notification it was sent for. */
  notificationId: string;
  payoutId: string;
  channel: NotificationChannel;
  destination: string;
  language: NotificationLanguage;
  /** E-mail subject; null for whatsapp and sms. */
  subject: string | null;
  body: string;
  /** The claim link the body carries. */
  claimUrl: string;
  createdAt: Date;
}

/** A masked phone (`+52•••••5678`) or e-mail (`a•••@example.com`) for responses. */
export function maskDestination(destination: string): string {
  const at = destination.lastIndexOf('@');
  if (at > 0) return `${destination[0]}•••${destination.slice(at)}`;
  if (destination.length <= 7) return `${destination.slice(0, 1)}•••`;
  return `${destination.slice(0, 3)}${'•'.repeat(destination.length - 7)}${destination.slice(-4)}`;
}

/** `text` with every phone number and e-mail masked, for provider error texts before they are logged or stored. */
export function maskDestinationsIn(text: string): string {
  return text
    .replace(/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, (m) => maskDestination(m))
    .replace(/\+?\d{7,15}\b/g, (m) => maskDestination(m));
}
