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

/** Envelope of a core outbox event, or null when Surface C does not receive it. */
export function surfaceCEnvelope(event: OutboxEvent): SurfaceCEnvelope | null {
  const type = surfaceCEventType(event.type);
  if (!type) return null;
  return {
    id: event.id,
    type,
    created_at: event.createdAt.toISOString(),
    data: { object: { id: String(event.data.id), object: 'payout', status: surfaceCPayoutStatus(String(event.data.status)) } },
  };
}
