/**
 * The stack's high-availability PostgreSQL (`haPostgres`, docs/chaos.md "PostgreSQL failover"):
 * pg_auto_failover's monitor and two data nodes (tools/pg-ha/cluster.ts), a primary with a
 * synchronous standby. The service processes get its multi-host URL (`target_session_attrs=
 * read-write`) and the Temporal servers its address list (TEMPORAL_PG_ADDR), and each finds the
 * primary itself. The stack's own handle and tools (migrations, the Temporal schema tool, psql,
 * the audit) go through a small TCP proxy in this process that hands each new connection to the
 * node the monitor has as the writable primary (what HAProxy with a primary check does in front of
 * a pair), so one single-host URL keeps reaching the primary across failovers.
 */
import { connect, createServer, type Socket } from 'node:net';
import { type PgHaCluster, type PgHaNode, startPgHa } from '../pg-ha/cluster';

/** What one {@link HaPostgres.killPrimary} did; the promotion and the rejoin are still under way when it resolves. */
export interface PgFailover {
  /** The node SIGKILLed (the primary before). */
  killed: string;
  /** When the kill was done (every process of the node gone), ms since the epoch. */
  killedAt: number;
  /**
   * The standby the monitor promoted and when it reported it writable (`wait_primary`), ms from the
   * kill. Rejects when no standby is promoted within the timeout.
   */
  promoted: Promise<{ node: string; ms: number }>;
  /**
   * After the promotion the killed node is started again; resolves once it is the standby of the
   * new primary in steady state (`primary` / `secondary`): ms from the kill. Rejects when the
   * promotion failed or the steady state is not reached within 120 s.
   */
  rejoined: Promise<number>;
}

/** A running HA PostgreSQL of the stack. */
export interface HaPostgres {
  cluster: PgHaCluster;
  /** The multi-host URL (libpq form, `target_session_attrs=read-write`): the services' DATABASE_URL. */
  url: string;
  /** The nodes' addresses, `h1:p1,h2:p2` (the Temporal servers' TEMPORAL_PG_ADDR). */
  addr: string;
  /** A single-host URL through the primary proxy: always the current primary (refused while there is none). */
  primaryUrl: string;
  /** The primary proxy's port on 127.0.0.1. */
  proxyPort: number;
  /**
   * SIGKILLs the node that is primary (keeper, postmaster and backends: the machine dies) and
   * resolves at once; the monitor then promotes the standby and the killed node is started again to
   * rejoin as the new standby ({@link PgFailover}). Throws when no node is primary in steady state
   * within 60 s. `promoteTimeoutMs` (default 60 s) bounds the wait for the promotion.
   */
  killPrimary(promoteTimeoutMs?: number): Promise<PgFailover>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts pg_auto_failover (about 15-30 s) and the primary proxy. Throws when pg_auto_failover is missing. */
export async function startHaPostgres(opts: { log?: (line: string) => void; maxConnections?: number } = {}): Promise<HaPostgres> {
  const cluster = await startPgHa({ log: opts.log, maxConnections: opts.maxConnections });
  const sockets = new Set<Socket>();
  // Each new connection goes to the writable primary the monitor names; none (during a failover)
  // or one that refuses: the connection is closed, and the client's next one is routed again.
  const server = createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    client.pause();
    cluster.primary().then(
      (primary) => {
        if (!primary || client.destroyed) return client.destroy();
        const up = connect(primary.port, '127.0.0.1');
        sockets.add(up);
        up.once('close', () => {
          sockets.delete(up);
          client.destroy();
        });
        up.on('error', () => up.destroy());
        client.once('close', () => up.destroy());
        up.once('connect', () => {
          up.pipe(client);
          client.pipe(up);
          client.resume();
        });
      },
      () => client.destroy(),
    );
  });
  const proxyPort = await new Promise<number>((res, rej) => {
    server.once('error', rej);
    server.listen(0, '127.0.0.1', () => res((server.address() as { port: number }).port));
  });
  const addr = cluster.hosts.map((h) => `${h.host}:${h.port}`).join(',');

  const killPrimary = async (promoteTimeoutMs = 60_000): Promise<PgFailover> => {
    const steady = await cluster.waitForSteadyState(60_000);
    const victim: PgHaNode = steady.primary;
    await victim.kill();
    const killedAt = Date.now();
    const promoted = (async () => {
      for (;;) {
        const p = await cluster.primary().catch(() => null);
        if (p && p !== victim) return { node: p.name, ms: Date.now() - killedAt };
        if (Date.now() - killedAt > promoteTimeoutMs) {
          throw new Error(`no standby promoted ${promoteTimeoutMs} ms after ${victim.name} was SIGKILLed: ${JSON.stringify(await cluster.states().catch(() => []))}`);
        }
        await sleep(100);
      }
    })();
    const rejoined = (async () => {
      // The killed machine comes back (after the promotion, or after giving up on it): its keeper
      // rewinds it and it follows the new primary.
      await promoted.finally(() => victim.start());
      const until = Date.now() + 120_000;
      for (;;) {
        const now = await cluster.waitForSteadyState(Math.max(1, until - Date.now()));
        if (now.standby === victim) return Date.now() - killedAt;
        await sleep(250);
      }
    })();
    // Observed by the caller; never an unhandled rejection.
    promoted.catch(() => {});
    rejoined.catch(() => {});
    return { killed: victim.name, killedAt, promoted, rejoined };
  };

  return {
    cluster,
    url: cluster.url,
    addr,
    primaryUrl: `postgres://postgres@127.0.0.1:${proxyPort}/postgres`,
    proxyPort,
    killPrimary,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      cluster.stop();
    },
  };
}
