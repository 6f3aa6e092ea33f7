import type pg from 'pg';
import type { Core } from './context';
import { parseDatabaseUrl } from '../db/database-url';
import { connectClient, failoverSettingsOf } from '../db/primary';
import { sweepWorkflowStarts } from './workflow-starts';

/** A periodic task of the relay; returns how much work it found (0 = idle). */
export type RelayTask = (core: Core) => Promise<number>;

/** Channel notified by every INSERT into `events` (trigger `events_outbox_notify`). */
export const OUTBOX_CHANNEL = 'payouts_outbox';
/** Longest pause of an idle relay listening on {@link OUTBOX_CHANNEL}. */
export const RELAY_IDLE_MAX_MS = 2000;
const RELISTEN_DELAY_MS = 1000;

/** While busy, the least ms from one tick's start to a NOTIFY-started next tick (events dispatched in batches). */
export const RELAY_BUSY_MIN_GAP_MS = 250;

/**
 * Runs the relay's idempotent tasks in this worker (docs/architecture.md "Outboxes"): every
 * `intervalMs` while there is work; with `databaseUrl`, an idle relay backs off up to
 * {@link RELAY_IDLE_MAX_MS} and a NOTIFY on {@link OUTBOX_CHANNEL} wakes it at once, or, after a tick
 * that found work, {@link RELAY_BUSY_MIN_GAP_MS} after that tick began. Returns a stop function.
 */
export function startRelay(core: Core, tasks: RelayTask[], intervalMs = 250, opts: { databaseUrl?: string } = {}): () => Promise<void> {
  let stopped = false;
  let current: Promise<boolean> = Promise.resolve(false);
  const all: RelayTask[] = [(c) => sweepWorkflowStarts(c), ...tasks];
  let listening = false;
  let nudged = false;
  /** The earliest time (Date.now()) a nudge may start the next tick. */
  let earliest = 0;
  let wake: (() => void) | null = null;
  let interrupt: (() => void) | null = null;
  const nudge = () => {
    nudged = true;
    wake?.();
  };
  const stopListening = opts.databaseUrl
    ? listen(opts.databaseUrl, nudge, (up) => {
        listening = up;
        if (!up) nudge();
      }, core)
    : async () => {};
  const tick = async (): Promise<boolean> => {
    let found = false;
    for (const task of all) {
      if (stopped) return found;
      try {
        while (!stopped && (await task(core)) > 0) found = true;
      } catch (err) {
        found = true;
        core.log.warn({ err }, 'relay task failed; retrying on the next tick');
      }
    }
    return found;
  };
  const loop = async () => {
    let pause = intervalMs;
    while (!stopped) {
      nudged = false;
      const began = Date.now();
      current = tick();
      const found = await current;
      pause = found || nudged || !listening ? intervalMs : Math.min(pause * 2, RELAY_IDLE_MAX_MS);
      earliest = found ? began + RELAY_BUSY_MIN_GAP_MS : 0;
      if (stopped || (nudged && earliest <= Date.now())) continue;
      await new Promise<void>((resolve) => {
        let timer = setTimeout(done, nudged ? earliest - Date.now() : pause);
        function done() {
          clearTimeout(timer);
          wake = null;
          interrupt = null;
          resolve();
        }
        wake = () => {
          clearTimeout(timer);
          timer = setTimeout(done, Math.max(0, earliest - Date.now()));
        };
        interrupt = done;
      });
    }
  };
  void loop();
  return async () => {
    stopped = true;
    interrupt?.();
    await current;
    await stopListening();
  };
}

/** LISTENs on {@link OUTBOX_CHANNEL} on its own connection (to the primary), re-listening when it drops; returns a stop function. */
function listen(databaseUrl: string, onNotify: () => void, onState: (up: boolean) => void, core: Core): () => Promise<void> {
  const url = parseDatabaseUrl(databaseUrl);
  const failover = failoverSettingsOf(core.config);
  let stopped = false;
  let client: pg.Client | null = null;
  let attempt: object | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  const connect = () => {
    const mine = {};
    attempt = mine;
    let c: pg.Client | null = null;
    const lost = (err: unknown) => {
      if (attempt !== mine) return;
      attempt = null;
      client = null;
      onState(false);
      if (!stopped) core.log.warn({ err }, 'relay: LISTEN connection lost; polling every tick until it is back');
      c?.end().catch(() => {});
      if (!stopped) {
        retry = setTimeout(connect, RELISTEN_DELAY_MS);
        retry.unref?.();
      }
    };
    connectClient(url, { application_name: 'payouts-relay-listener', keepAlive: true }, failover)
      .then(async (conn) => {
        if (attempt !== mine || stopped) {
          await conn.end().catch(() => {});
          return;
        }
        c = conn;
        client = conn;
        conn.on('notification', onNotify);
        conn.on('error', lost);
        conn.on('end', () => lost(new Error('connection ended')));
        await conn.query(`LISTEN ${OUTBOX_CHANNEL}`);
        if (attempt === mine) onState(true);
      })
      .catch(lost);
  };
  connect();
  return async () => {
    stopped = true;
    attempt = null;
    if (retry) clearTimeout(retry);
    const c = client;
    client = null;
    await c?.end().catch(() => {});
  };
}
