import pg from 'pg';
import type { Core } from './context';
import { sweepWorkflowStarts } from './workflow-starts';

/** A periodic task of the relay; returns how much work it found (0 = idle). */
export type RelayTask = (core: Core) => Promise<number>;

/** Channel notified by every INSERT statement into `events` (trigger `events_outbox_notify`, migration 0069). */
export const OUTBOX_CHANNEL = 'payouts_outbox';
/** Longest pause between two ticks of an idle relay while it listens on {@link OUTBOX_CHANNEL}. */
export const RELAY_IDLE_MAX_MS = 2000;
const RELISTEN_DELAY_MS = 1000;

/**
 * The relay runs in each worker process: it starts workflows whose start was recorded but never
 * made (a process died after commit), and hands new outbox events to webhook delivery. Tasks are
 * idempotent, so any number of workers may run it at once. Returns a stop function.
 *
 * It ticks every `intervalMs` while it finds work. With `databaseUrl` (PostgreSQL), it LISTENs on
 * {@link OUTBOX_CHANNEL}: an idle tick doubles the pause, up to {@link RELAY_IDLE_MAX_MS}, and a
 * notification (a new event) ends the pause at once, so an event is still handed on within
 * milliseconds. While the LISTEN connection is down (and on PGlite) it ticks every `intervalMs`.
 * (docs/architecture.md "Outboxes", docs/operations.md "Idle cost".)
 */
export function startRelay(core: Core, tasks: RelayTask[], intervalMs = 250, opts: { databaseUrl?: string } = {}): () => Promise<void> {
  let stopped = false;
  let current: Promise<boolean> = Promise.resolve(false);
  const all: RelayTask[] = [(c) => sweepWorkflowStarts(c), ...tasks];
  let listening = false;
  let nudged = false;
  let wake: (() => void) | null = null;
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
      current = tick();
      const found = await current;
      pause = found || nudged || !listening ? intervalMs : Math.min(pause * 2, RELAY_IDLE_MAX_MS);
      if (nudged) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, pause);
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
      });
    }
  };
  void loop();
  return async () => {
    stopped = true;
    wake?.();
    await current;
    await stopListening();
  };
}

/**
 * LISTENs on {@link OUTBOX_CHANNEL} over a connection of its own, calling `onNotify` per
 * notification and `onState` when the connection comes up or goes down (re-listening after
 * {@link RELISTEN_DELAY_MS}). Returns a stop function.
 */
function listen(databaseUrl: string, onNotify: () => void, onState: (up: boolean) => void, core: Core): () => Promise<void> {
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  const connect = () => {
    const c = new pg.Client({ connectionString: databaseUrl, application_name: 'payouts-relay-listener', keepAlive: true });
    client = c;
    const lost = (err: unknown) => {
      if (client !== c) return;
      client = null;
      onState(false);
      if (!stopped) core.log.warn({ err }, 'relay: LISTEN connection lost; polling every tick until it is back');
      c.end().catch(() => {});
      if (!stopped) {
        retry = setTimeout(connect, RELISTEN_DELAY_MS);
        retry.unref?.();
      }
    };
    c.on('notification', onNotify);
    c.on('error', lost);
    c.on('end', () => lost(new Error('connection ended')));
    c.connect()
      .then(() => c.query(`LISTEN ${OUTBOX_CHANNEL}`))
      .then(() => {
        if (client === c) onState(true);
      })
      .catch(lost);
  };
  connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const c = client;
    client = null;
    await c?.end().catch(() => {});
  };
}
