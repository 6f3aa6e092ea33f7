/**
 * Writes an `events` row with arbitrary `data`, as the code before domain events did (docs/webhooks.md
 * "Event data"): a `surface_a` row is Surface A's snapshot, read by the legacy reader. The core writes
 * only domain events (src/domain/domain-events.ts); tests use this for rows of the old form or
 * hand-made payloads. Returns the id, or null when `dedupeKey` exists.
 */
import type { EventDataFormat } from '../../src/domain/event-objects';
import { newId } from '../../src/domain/ids';
import type { DbOrTx } from '../../src/db/schema';

export async function emitLegacyEvent(
  tx: DbOrTx,
  e: { businessId: string; environment: 'sandbox' | 'live'; type: string; objectType: string; objectId: string; data: Record<string, unknown>; dataFormat?: EventDataFormat; dedupeKey: string },
): Promise<string | null> {
  const row = await tx
    .insertInto('events')
    .values({
      id: newId('evt'),
      business_id: e.businessId,
      environment: e.environment,
      type: e.type,
      object_type: e.objectType,
      object_id: e.objectId,
      data: JSON.stringify(e.data),
      data_format: e.dataFormat ?? 'surface_a',
      dedupe_key: e.dedupeKey,
      dispatched_at: null,
    })
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id ?? null;
}
