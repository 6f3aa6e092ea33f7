/** Surface A's event envelope (spec "Envelope, Surface A"; docs/webhooks.md "Event data"). */
import { type OutboxEvent, surfaceAEventType } from '../../domain/webhook-events';

/** `data.object` is the object's snapshot; `created_at` ISO 8601. Its JSON is the signed body of each delivery. */
export interface SurfaceAEnvelope {
  id: string;
  type: string;
  created_at: string;
  data: { object: Record<string, unknown> };
}

/** The Surface A envelope of an outbox event whose `type` is already Surface A's name (webhook deliveries). */
export function surfaceAEnvelope(event: OutboxEvent): SurfaceAEnvelope {
  return { id: event.id, type: event.type, created_at: event.createdAt.toISOString(), data: { object: event.data } };
}

/** The Surface A envelope of a core event, its type renamed to Surface A's (`surfaceAEventType`): the events API. */
export const renderSurfaceAEvent = (e: OutboxEvent): SurfaceAEnvelope => surfaceAEnvelope({ ...e, type: surfaceAEventType(e.type) ?? e.type });
