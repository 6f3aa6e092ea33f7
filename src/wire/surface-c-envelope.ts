/** Surface C's webhook and events-API envelope of a core event (spec "Events, Surface C"). Pure. */
import { surfaceCEventType, surfaceCPayoutStatus, type SurfaceCPayoutStatus, type SurfaceCEventType } from '../domain/surface-c';
import type { OutboxEvent } from '../domain/webhook-events';

/** Spec `{type, data: {object: {id, status}}}` plus `id` and ISO 8601 `created_at` for deduplication. */
export interface SurfaceCEnvelope {
  id: string;
  type: SurfaceCEventType;
  created_at: string;
  data: { object: { id: string; object: 'payout'; status: SurfaceCPayoutStatus } };
}

/** Envelope of a core outbox event, or null when Surface C does not receive it: from the domain object (a legacy row: its Surface A object). */
export function surfaceCEnvelope(event: OutboxEvent): SurfaceCEnvelope | null {
  const type = surfaceCEventType(event.type);
  if (!type) return null;
  const ref = event.object ? { id: event.object.value.id, status: event.object.value.status } : { id: String(event.data.id), status: String(event.data.status) };
  return {
    id: event.id,
    type,
    created_at: event.createdAt.toISOString(),
    data: { object: { id: ref.id, object: 'payout', status: surfaceCPayoutStatus(ref.status) } },
  };
}
