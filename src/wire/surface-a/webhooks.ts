/** Surface A's webhook endpoints, deliveries and re-sends (docs/webhooks.md; snake_case, ISO 8601 times); Surface C serves the same shapes. */
import type { CreatedWebhookEndpoint, RotatedWebhookEndpoint, WebhookDelivery, WebhookEndpoint, WebhookResend } from '../../domain/webhooks';

/** An endpoint; never its secret. */
export interface WireWebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  events: string[];
  created_at: string;
}

/** The creation response: the endpoint plus its signing secret `whsec_…` (shown this once). */
export interface WireCreatedWebhookEndpoint extends WireWebhookEndpoint {
  secret: string;
}

/** The rotation response: the new secret (shown this once) and when the previous one stops signing. */
export interface WireRotatedWebhookEndpoint extends WireCreatedWebhookEndpoint {
  previous_secret_expires_at: string;
}

export interface WireWebhookDeliveryAttempt {
  number: number;
  attempted_at: string;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
}

export interface WireWebhookDelivery {
  id: string;
  object: 'webhook_delivery';
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: WebhookDelivery['status'];
  attempts: WireWebhookDeliveryAttempt[];
  created_at: string;
  completed_at: string | null;
}

export interface WireWebhookResend {
  object: 'webhook_resend';
  endpoint_id: string;
  resent: number;
  delivery_ids: string[];
  next_created_after: string | null;
}

/** Surface A's endpoint. */
export function renderWebhookEndpoint(e: WebhookEndpoint): WireWebhookEndpoint {
  return { id: e.id, object: 'webhook_endpoint', url: e.url, events: e.events, created_at: e.createdAt.toISOString() };
}

/** Surface A's endpoint with its secret. */
export function renderCreatedWebhookEndpoint(e: CreatedWebhookEndpoint): WireCreatedWebhookEndpoint {
  return { ...renderWebhookEndpoint(e), secret: e.secret };
}

/** Surface A's rotation response (Surface A and C rotations always open an overlap). */
export function renderRotatedWebhookEndpoint(e: RotatedWebhookEndpoint<Date>): WireRotatedWebhookEndpoint {
  return { ...renderCreatedWebhookEndpoint(e), previous_secret_expires_at: e.previousSecretExpiresAt.toISOString() };
}

/** Surface A's delivery with its attempts. */
export function renderWebhookDelivery(d: WebhookDelivery): WireWebhookDelivery {
  return {
    id: d.id,
    object: 'webhook_delivery',
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts.map((a) => ({
      number: a.number,
      attempted_at: a.attemptedAt.toISOString(),
      http_status: a.httpStatus,
      error: a.error,
      duration_ms: a.durationMs,
    })),
    created_at: d.createdAt.toISOString(),
    completed_at: d.completedAt ? d.completedAt.toISOString() : null,
  };
}

/** Surface A's re-send result. */
export function renderWebhookResend(r: WebhookResend): WireWebhookResend {
  return {
    object: 'webhook_resend',
    endpoint_id: r.endpointId,
    resent: r.resent,
    delivery_ids: r.deliveryIds,
    next_created_after: r.nextCreatedAfter ? r.nextCreatedAfter.toISOString() : null,
  };
}
