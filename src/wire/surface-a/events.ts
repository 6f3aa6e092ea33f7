/** Surface A's event envelope (spec "Envelope, Surface A"; docs/webhooks.md "Event data"). */
import type { OutboxEvent } from '../../domain/webhook-events';

/** `data.object` is the object's snapshot; `created_at` ISO 8601. Its JSON is the signed body of each delivery. */
export interface SurfaceAEnvelope {
  id: string;
  type: string;
  created_at: string;
  data: { object: Record<string, unknown> };
}

/** The Surface A envelope of an outbox event (`type` already Surface A's name). */
export function surfaceAEnvelope(event: OutboxEvent): SurfaceAEnvelope {
  return { id: event.id, type: event.type, created_at: event.createdAt.toISOString(), data: { object: event.data } };
}
