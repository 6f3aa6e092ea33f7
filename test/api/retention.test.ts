/**
 * Data retention (docs/operations.md "Data retention"; src/core/retention.ts): rows past their
 * retention go, in bounded batches; rows inside it, and rows still at work (an undispatched event,
 * a pending delivery, a start not yet made, a live idempotency record), stay.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETENTION_BATCH, sweepRetention } from '../../src/core/retention';
import { createHarness, type Harness } from '../helpers/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ worker: false });
});
afterAll(async () => h?.close());

const DAY = 24 * 3600 * 1000;
const count = async (table: string, where = 'true') => Number((await sql<{ n: string }>`select count(*)::text as n from ${sql.table(table)} where ${sql.raw(where)}`.execute(h.db)).rows[0]!.n);

describe('retention sweep', () => {
  it('deletes rows past retention (also more than one batch) and keeps rows inside it or still at work', async () => {
    const b = await h.business();
    const now = Date.now();
    const old = new Date(now - 31 * DAY);
    const recent = new Date(now - 29 * DAY);
    const n = RETENTION_BATCH + 5; // more than one batch
    // Events: old dispatched (go), old undispatched (stay), recent dispatched (stay).
    await sql`insert into events (id, business_id, environment, type, object_type, object_id, data, dedupe_key, created_at, dispatched_at)
      select 'evt_old_' || g, ${b.id}, 'sandbox', 'payout.succeeded', 'payout', 'po_x', '{}'::jsonb, 'ret-old-' || g, ${old}, ${old} from generate_series(1, ${n}) g`.execute(h.db);
    await sql`insert into events (id, business_id, environment, type, object_type, object_id, data, dedupe_key, created_at, dispatched_at) values
      ('evt_old_waiting', ${b.id}, 'sandbox', 'payout.succeeded', 'payout', 'po_x', '{}'::jsonb, 'ret-waiting', ${old}, null),
      ('evt_recent', ${b.id}, 'sandbox', 'payout.succeeded', 'payout', 'po_x', '{}'::jsonb, 'ret-recent', ${recent}, ${recent})`.execute(h.db);
    // Workflow starts: started 8 days ago (go), started yesterday (stay), never started (stay).
    await sql`insert into workflow_starts (workflow_id, workflow_type, args, search_attributes, created_at, started_at) values
      ('ret-started-old', 'payoutWorkflow', '[]'::jsonb, '{}'::jsonb, ${new Date(now - 8 * DAY)}, ${new Date(now - 8 * DAY)}),
      ('ret-started-new', 'payoutWorkflow', '[]'::jsonb, '{}'::jsonb, ${new Date(now - DAY)}, ${new Date(now - DAY)}),
      ('ret-unstarted', 'payoutWorkflow', '[]'::jsonb, '{}'::jsonb, ${old}, null)`.execute(h.db);
    // Idempotency records: expired (go), live (stay).
    await sql`insert into idempotency_keys (business_id, environment, scope, key, fingerprint, state, locked_at, response_status, response_body, response_headers, expires_at) values
      (${b.id}, 'sandbox', 'B', 'ret-expired', 'f', 'done', ${old}, 201, '{}', null, ${new Date(now - 1000)}),
      (${b.id}, 'sandbox', 'A', 'ret-live', 'f', 'done', ${recent}, 201, '{}', null, ${new Date(now + DAY)})`.execute(h.db);

    const first = await sweepRetention(h.core);
    expect(first.deleted.events).toBe(n);
    expect(first.deleted.workflow_starts).toBe(1);
    expect(first.deleted.idempotency_keys).toBe(1);
    expect(await count('events', "id like 'evt_old_%' and id <> 'evt_old_waiting'")).toBe(0);
    expect(await count('events', "id in ('evt_old_waiting', 'evt_recent')")).toBe(2);
    expect(await count('workflow_starts', "workflow_id like 'ret-%'")).toBe(2);
    expect(await count('idempotency_keys', "key like 'ret-%'")).toBe(1);
    expect(await count('idempotency_keys', "key = 'ret-live'")).toBe(1);
    // Nothing left past retention: a second sweep deletes nothing.
    const second = await sweepRetention(h.core);
    expect(Object.values(second.deleted).every((x) => x === 0)).toBe(true);
    expect(second.more).toBe(false);
  });
});
