/** Webhook endpoints, deliveries and re-sends as domain objects (docs/webhooks.md); each surface renders its own shape. Pure. */

/** A registered endpoint of one surface; never carries its secret. */
export interface WebhookEndpoint {
  id: string;
  url: string;
  /** Subscription patterns (event types or wildcards of the endpoint's surface). */
  events: string[];
  createdAt: Date;
}

/** An endpoint just registered, with its signing secret (plaintext, shown once). */
export interface CreatedWebhookEndpoint extends WebhookEndpoint {
  secret: string;
}

/** An endpoint after a secret rotation (docs/webhooks.md "Secret rotation"). */
export interface RotatedWebhookEndpoint<Until extends Date | null = Date | null> extends CreatedWebhookEndpoint {
  /** Until then deliveries also carry a signature made with the previous secret; null when none signs (a no-op rotation). */
  previousSecretExpiresAt: Until;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One attempt of a delivery. */
export interface WebhookDeliveryAttempt {
  /** 1-based, in time order across every run of the delivery. */
  number: number;
  attemptedAt: Date;
  /** null when the endpoint could not be reached. */
  httpStatus: number | null;
  /** null for a 2xx. */
  error: string | null;
  durationMs: number;
}

/** One event sent to one endpoint. */
export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  /** The event's name on the endpoint's surface. */
  eventType: string;
  status: WebhookDeliveryStatus;
  attempts: WebhookDeliveryAttempt[];
  createdAt: Date;
  /** null while pending. */
  completedAt: Date | null;
}

/** What one re-send call reopened (docs/webhooks.md "Resend and catch-up"). */
export interface WebhookResend {
  endpointId: string;
  resent: number;
  deliveryIds: string[];
  /** The `createdAfter` to call again with when the batch was full, else null. */
  nextCreatedAfter: Date | null;
}
