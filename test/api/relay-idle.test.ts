/**
 * An idle relay (src/core/relay.ts, docs/operations.md "Idle cost") LISTENs on the outbox channel:
 * with nothing to do it backs off to one tick per RELAY_IDLE_MAX_MS instead of four a second, and
 * a new event (an INSERT into `events`, trigger of migration 0069) wakes it at once. Needs
 * DATABASE_URL (PostgreSQL's LISTEN/NOTIFY; on PGlite the relay ticks every 250 ms as before). Under a
 * stream of events, a NOTIFY starts a tick no sooner than RELAY_BUSY_MIN_GAP_MS after the last busy one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_BUSY_MIN_GAP_MS, RELAY_IDLE_MAX_MS, startRelay } from '../../src/core/relay';
import { createHarness, type Harness } from '../helpers/harness';
import { skipWithoutPostgres } from '../helpers/postgres';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const NO_POSTGRES = skipWithoutPostgres('test/api/relay-idle.test.ts', "the relay's LISTEN/NOTIFY wake-up");

describe.skipIf(NO_POSTGRES)('relay at idle on PostgreSQL', () => {
  let h: Harness;
  let stop: () => Promise<void>;
  const calls: number[] = [];
  beforeAll(async () => {
    h = await createHarness({ worker: false });
    const probe = async () => {
      calls.push(performance.now());
      return 0;
    };
    stop = startRelay(h.core, [probe], 250, { databaseUrl: h.databaseUrl! });
    await sleep(1000);
  });
  afterAll(async () => {
    await stop?.();
    await h?.close();
  });

  it('ticks at most once per RELAY_IDLE_MAX_MS once it has backed off (four a second without the back-off)', async () => {
    await sleep(3000);
    const from = calls.length;
    await sleep(6000);
    const ticks = calls.length - from;
    expect(ticks).toBeLessThanOrEqual(Math.ceil(6000 / RELAY_IDLE_MAX_MS) + 1);
    expect(ticks).toBeGreaterThanOrEqual(1);
  });

  it('a new event wakes the backed-off relay within milliseconds, not at the end of its pause', async () => {
    for (let i = 0; i < 3; i++) {
      await sleep(RELAY_IDLE_MAX_MS + 500);
      const before = calls.length;
      const t = performance.now();
      await h.db
        .insertInto('events')
        .values({
          id: `evt_relay_${Date.now()}_${i}`,
          business_id: 'biz_relay',
          environment: 'sandbox',
          type: 'payout.submitted',
          object_type: 'payout',
          object_id: `po_relay_${i}`,
          data: JSON.stringify({}) as any,
          dedupe_key: `relay-test:${Date.now()}:${i}`,
          dispatched_at: null,
        })
        .execute();
      for (let w = 0; w < 100 && calls.length === before; w++) await sleep(10);
      expect(calls.length).toBeGreaterThan(before);
      expect(calls[before]! - t).toBeLessThan(400);
    }
  });
});

describe.skipIf(NO_POSTGRES)('relay under a stream of events on PostgreSQL', () => {
  let h: Harness;
  let stop: () => Promise<void>;
  let pending = 0;
  let handled = 0;
  const busyTicks: number[] = [];
  beforeAll(async () => {
    h = await createHarness({ worker: false });
    const task = async () => {
      if (pending === 0) return 0;
      const n = pending;
      pending = 0;
      handled += n;
      busyTicks.push(performance.now());
      return n;
    };
    stop = startRelay(h.core, [task], 250, { databaseUrl: h.databaseUrl! });
    await sleep(500);
  });
  afterAll(async () => {
    await stop?.();
    await h?.close();
  });

  it('serves an event every 20 ms in ticks about RELAY_BUSY_MIN_GAP_MS apart, the last within 400 ms', async () => {
    const events = 100;
    const t0 = performance.now();
    for (let i = 0; i < events; i++) {
      pending++;
      await h.db
        .insertInto('events')
        .values({
          id: `evt_stream_${Date.now()}_${i}`,
          business_id: 'biz_relay',
          environment: 'sandbox',
          type: 'payout.submitted',
          object_type: 'payout',
          object_id: `po_stream_${i}`,
          data: JSON.stringify({}) as any,
          dedupe_key: `relay-stream:${Date.now()}:${i}`,
          dispatched_at: null,
        })
        .execute();
      await sleep(20);
    }
    const last = performance.now();
    for (let w = 0; w < 100 && handled < events; w++) await sleep(10);
    expect(handled).toBe(events);
    expect(busyTicks[busyTicks.length - 1]! - last).toBeLessThan(400);
    // Without the gap every NOTIFY starts a tick: about one per event.
    expect(busyTicks.length).toBeLessThanOrEqual(Math.ceil((last - t0) / RELAY_BUSY_MIN_GAP_MS) + 2);
    for (let i = 1; i < busyTicks.length; i++) expect(busyTicks[i]! - busyTicks[i - 1]!).toBeGreaterThanOrEqual(RELAY_BUSY_MIN_GAP_MS / 2);
  });
});
