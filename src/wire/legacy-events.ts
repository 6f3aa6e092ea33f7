/** Rewriting a legacy `surface_a` event into the domain form (migration 0070; docs/webhooks.md "Event data"). Pure. */
import { eventObjectData } from '../domain/event-objects';
import type { OutboxEvent } from '../domain/webhook-events';
import { readStoredEvent, surfaceAObject } from './events';
import { invertSurfaceAObject } from './surface-a/event-inverse';
import { surfaceBEnvelope } from './surface-b-envelope';
import { surfaceCEnvelope } from './surface-c-envelope';

/** The domain form of a legacy row's `data`, or null unless, read back, it gives Surfaces A, B and C the legacy row's bytes. */
export function domainFormOfLegacyEvent(row: { id: string; type: string; createdAt: Date; data: Record<string, unknown> }): Record<string, unknown> | null {
  const object = invertSurfaceAObject(row.data, surfaceAObject);
  if (!object) return null;
  const data = eventObjectData(object);
  const legacy: OutboxEvent = { id: row.id, type: row.type, createdAt: row.createdAt, object: null, data: row.data };
  const domain = readStoredEvent({ id: row.id, type: row.type, createdAt: row.createdAt, format: 'domain', data: JSON.parse(JSON.stringify(data)) as Record<string, unknown> });
  const same = (f: (e: OutboxEvent) => unknown) => JSON.stringify(f(legacy)) === JSON.stringify(f(domain));
  return same((e) => e.data) && same(surfaceBEnvelope) && same(surfaceCEnvelope) ? data : null;
}
