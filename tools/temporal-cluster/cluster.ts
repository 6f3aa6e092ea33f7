/**
 * A self-hosted Temporal cluster on PostgreSQL, for `npm run stack`, `npm run chaos` and
 * `npm run bench -- --cluster` (docs/operations.md "Running Temporal in production"): the server
 * built from its Go module (./server.ts), its two databases set up with the schema tool, and N
 * server processes, each running the frontend, history, matching and worker services on its own
 * loopback ports, all rendered from the one configuration file `deploy/temporal/config.yaml`
 * (which docker-compose.yml mounts too). The service reaches the frontends through a small TCP
 * proxy that sends each new connection to a node that accepts it (what a load balancer in front of
 * the frontends does in production), so a node can be SIGKILLed and brought back during traffic.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { resolveTemporalCli } from '../../src/temporal/binaries';
import { SEARCH_ATTRIBUTE_NAMES } from '../../src/temporal/search-attributes';
import { resolveTemporalServer } from './server';

const ROOT = resolve(import.meta.dirname, '..', '..');
/** The configuration every node renders (also mounted by docker-compose.yml). */
export const CONFIG_TEMPLATE = join(ROOT, 'deploy', 'temporal', 'config.yaml');
/** Its dynamic configuration. */
export const DYNAMIC_CONFIG = join(ROOT, 'deploy', 'temporal', 'dynamicconfig.yaml');

/**
 * History shards of the cluster: fixed when the cluster is created and never changed after.
 * 4 suits these 2-core machines (each shard is an owner lock, a queue and a cache in one history
 * node; 4 spread over 2 nodes gives each node work and lets a shard move on a node's death); a
 * production cluster sizes it for its peak (docs/operations.md "History shards").
 */
export const HISTORY_SHARDS = 4;

/** One server process of the cluster. */
export interface TemporalNode {
  name: string;
  /** Frontend gRPC address of this node, host:port. */
  frontend: string;
  pid(): number | undefined;
  alive(): boolean;
  /** SIGKILLs the process (a node dying) and waits for its exit. */
  kill(): Promise<void>;
  /** Starts the process again with the same ports, and waits until its frontend answers. */
  start(): Promise<void>;
}

/** A running cluster. */
export interface TemporalCluster {
  /** The address clients use: the TCP proxy in front of every node's frontend. */
  address: string;
  nodes: TemporalNode[];
  /** `temporal operator cluster describe` output (JSON) through the proxy. */
  describe(): Promise<string>;
  /**
   * The cluster's members as the server records them (its `cluster_membership` table): one row
   * per service of each live node, e.g. `frontend 127.0.0.1:26186`.
   */
  members(): Array<{ role: string; address: string; sessionStart: string }>;
  stop(): Promise<void>;
}

/** Options of {@link startTemporalCluster}. */
export interface ClusterOptions {
  /**
   * PostgreSQL of the cluster (a superuser without a password on loopback, as tools/stack/postgres.ts
   * makes): `host`/`port` is where the schema tool and psql go (the primary at start; `members()`
   * keeps asking it, a standby answers too); `addr`, when set, is
   * what the servers connect to instead, `h1:p1,h2:p2` for a high-availability pair (TEMPORAL_PG_ADDR
   * of deploy/temporal/config.yaml: pgx, `target_session_attrs=read-write`, so they follow a failover).
   */
  pg: { host: string; port: number; user: string; addr?: string };
  /** Directory for logs. */
  dir: string;
  /** Number of server processes (default 2). */
  nodes?: number;
  log?: (line: string) => void;
  /**
   * A node that exits when nobody asked it to (e.g. the server's fatal "error starting scanner"
   * when it starts while PostgreSQL fails over) is started again a second later, as systemd or
   * Kubernetes would; this is told each time. Not after {@link TemporalCluster.stop}.
   */
  onCrash?: (node: string, code: number | null, signal: string | null) => void;
}

/** Runs the schema tool; throws with its output on failure. */
function sqlTool(tool: string, pg: ClusterOptions['pg'], db: string, args: string[]): void {
  const r = spawnSync(
    tool,
    ['--plugin', 'postgres12', '--endpoint', pg.host, '--port', String(pg.port), '--user', pg.user, '--password', '', '--database', db, ...args],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`temporal-sql-tool ${args.join(' ')} on ${db} failed (${r.status}):\n${r.stdout}${r.stderr}`);
}

/**
 * Creates the `temporal` and `temporal_visibility` databases and brings their schemas to the
 * version of the pinned server (create, setup-schema -v 0.0, update-schema from the module's
 * versioned directories). Idempotent: an existing database is updated, not recreated.
 */
export function setupTemporalSchema(pg: ClusterOptions['pg'], log: (l: string) => void = () => {}): void {
  const install = resolveTemporalServer({ log });
  for (const [db, dir] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ] as const) {
    const exists = spawnSync('psql', ['-h', pg.host, '-p', String(pg.port), '-U', pg.user, '-d', 'postgres', '-tAc', `select 1 from pg_database where datname='${db}'`], {
      encoding: 'utf8',
    });
    if (exists.stdout.trim() !== '1') {
      sqlTool(install.sqlTool, pg, db, ['create-database']);
      sqlTool(install.sqlTool, pg, db, ['setup-schema', '-v', '0.0']);
    }
    sqlTool(install.sqlTool, pg, db, ['update-schema', '-d', join(install.schemaDir, dir, 'versioned')]);
  }
  log('Temporal schema ready (temporal, temporal_visibility)');
}

/** A TCP proxy that hands each new connection to the first node (round robin) that accepts it. */
function startFrontendProxy(upstreams: string[]): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  let next = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.pause();
    const tryAt = (tried: number) => {
      if (tried >= upstreams.length) return client.destroy();
      const [host, port] = upstreams[(next++ + 0) % upstreams.length]!.split(':');
      const up = connect(Number(port), host);
      let connected = false;
      up.once('connect', () => {
        connected = true;
        sockets.add(up);
        up.once('close', () => sockets.delete(up));
        up.pipe(client);
        client.pipe(up);
        client.resume();
        up.on('error', () => client.destroy());
        client.on('error', () => up.destroy());
        client.once('close', () => up.destroy());
        up.once('close', () => client.destroy());
      });
      // A node that refuses (down, restarting): try the next. (Testing readyState here left the
      // client's socket open and silent after a refused connect, since a failed socket reads
      // 'closed': a client that reconnected while a node was down hung, found by `npm run chaos`.)
      up.once('error', () => {
        if (!connected) tryAt(tried + 1);
      });
    };
    tryAt(0);
  });
  return new Promise((res) => server.listen(0, '127.0.0.1', () => res({ server, port: (server.address() as { port: number }).port, sockets })));
}

/** Waits until a frontend answers GetSystemInfo (or throws after `timeoutMs`). */
async function waitForFrontend(address: string, timeoutMs: number, child?: ChildProcess, logFile?: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && child.exitCode !== null) {
      throw new Error(`Temporal node exited (${child.exitCode}) before it was ready:\n${logFile ? readFileSync(logFile, 'utf8').slice(-4000) : ''}`);
    }
    try {
      const c = await Connection.connect({ address, connectTimeout: 2000 });
      try {
        await c.workflowService.getSystemInfo({});
        return;
      } finally {
        await c.close();
      }
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`Temporal frontend ${address} not ready after ${timeoutMs} ms: ${String(err)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * Starts the cluster: schema, N nodes (each on its own block of ports), the frontend proxy, the
 * `default` namespace and the service's search attributes. On failure stops what it started.
 */
export async function startTemporalCluster(opts: ClusterOptions): Promise<TemporalCluster> {
  const log = opts.log ?? ((l: string) => console.log(`[temporal-cluster] ${l}`));
  const install = resolveTemporalServer({ log });
  setupTemporalSchema(opts.pg, log);
  const n = opts.nodes ?? 2;
  // A block of ports per node (base, base+1..4, base+10..13, base+20), found free at start. Below
  // 32768: the server stores membership ports in a smallint column.
  const bases: number[] = [];
  for (let tries = 0; bases.length < n; tries++) {
    if (tries > 500) throw new Error('no free block of ports for a Temporal node');
    const base = 20000 + 32 * Math.floor(Math.random() * 370);
    if (bases.includes(base)) continue;
    const free = await Promise.all([0, 1, 2, 3, 4, 10, 11, 12, 13, 20].map((o) => portFree(base + o)));
    if (free.every(Boolean)) bases.push(base);
  }
  const frontends = bases.map((b) => `127.0.0.1:${b}`);
  const proxy = await startFrontendProxy(frontends);
  const address = `127.0.0.1:${proxy.port}`;
  mkdirSync(opts.dir, { recursive: true });
  let stopped = false;
  const nodes: (TemporalNode & { child: ChildProcess | null; stopping: boolean })[] = bases.map((base, i) => {
    const name = `temporal-${i + 1}`;
    const logFile = join(opts.dir, `${name}.log`);
    const env = {
      ...process.env,
      TEMPORAL_PORT_BASE: String(base),
      TEMPORAL_PG_HOST: opts.pg.host,
      TEMPORAL_PG_PORT: String(opts.pg.port),
      TEMPORAL_PG_USER: opts.pg.user,
      // Empty: the template's default (host:port), whatever the caller's environment says.
      TEMPORAL_PG_ADDR: opts.pg.addr ?? '',
      TEMPORAL_NUM_HISTORY_SHARDS: String(HISTORY_SHARDS),
      TEMPORAL_PUBLIC_FRONTEND: address,
      TEMPORAL_DYNAMIC_CONFIG: DYNAMIC_CONFIG,
      TEMPORAL_LOG_LEVEL: process.env.TEMPORAL_LOG_LEVEL ?? 'warn',
    };
    const node = {
      name,
      frontend: frontends[i]!,
      child: null as ChildProcess | null,
      /** kill() asked for the exit: not restarted. */
      stopping: false,
      pid: () => node.child?.pid,
      alive: () => !!node.child && node.child.exitCode === null && node.child.signalCode === null,
      async kill() {
        node.stopping = true;
        const c = node.child;
        if (!c || c.exitCode !== null || c.signalCode !== null) return;
        const exited = new Promise<void>((r) => c.once('exit', () => r()));
        c.kill('SIGKILL');
        await exited;
      },
      async start() {
        const out = createWriteStream(logFile, { flags: 'a' });
        const c = spawn(install.server, ['-r', join(ROOT, 'deploy', 'temporal'), '-c', '.', '-e', 'config', '--allow-no-auth', 'start'], {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        c.stdout?.pipe(out);
        c.stderr?.pipe(out);
        node.child = c;
        node.stopping = false;
        c.once('exit', (code, signal) => {
          if (node.stopping || stopped || node.child !== c) return;
          opts.onCrash?.(name, code, signal);
          log(`${name} exited on its own (${code ?? signal}); starting it again`);
          setTimeout(() => {
            if (!node.stopping && !stopped && node.child === c) node.start().catch((err) => log(`${name} did not start again: ${String(err).slice(0, 300)}`));
          }, 1000);
        });
        await waitForFrontend(node.frontend, 120_000, c, logFile);
      },
    };
    return node;
  });
  const killAll = () => {
    for (const node of nodes) if (node.alive()) node.child?.kill('SIGKILL');
  };
  process.once('exit', killAll);
  const stop = async () => {
    stopped = true;
    process.removeListener('exit', killAll);
    await Promise.all(nodes.map((node) => node.kill()));
    for (const s of proxy.sockets) s.destroy();
    await new Promise<void>((r) => proxy.server.close(() => r()));
  };
  try {
    // The first node creates the cluster metadata; the others join it.
    for (const node of nodes) {
      await node.start();
      log(`${node.name} up (pid ${node.pid()}, frontend ${node.frontend})`);
    }
    const ns = await cli(['operator', 'namespace', 'describe', '--namespace', 'default', '--address', address]);
    if (ns.status !== 0) {
      const created = await cli(['operator', 'namespace', 'create', '--namespace', 'default', '--retention', '72h', '--address', address]);
      if (created.status !== 0 && !/already/i.test(created.out)) throw new Error(`namespace create failed: ${created.out}`);
    }
    // The service's search attributes (the worker also registers missing ones at start-up).
    for (let tries = 0; ; tries++) {
      const r = await cli(
        [
          'operator',
          'search-attribute',
          'create',
          '--namespace',
          'default',
          '--address',
          address,
          ...SEARCH_ATTRIBUTE_NAMES.flatMap((name) => ['--name', name, '--type', 'Keyword']),
        ],
      );
      if (r.status === 0 || /already exists/i.test(r.out)) break;
      // A namespace just created takes a few seconds to reach every node's cache.
      if (tries > 30) throw new Error(`search attributes: ${r.out}`);
      await new Promise((res) => setTimeout(res, 1000));
    }
    log(`cluster of ${n} nodes behind ${address} (PostgreSQL ${opts.pg.addr ?? `${opts.pg.host}:${opts.pg.port}`}, ${HISTORY_SHARDS} history shards)`);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    address,
    nodes,
    members() {
      const r = spawnSync(
        'psql',
        ['-h', opts.pg.host, '-p', String(opts.pg.port), '-U', opts.pg.user, '-d', 'temporal', '-tAF', '|', '-c',
          "select role, rpc_address || ':' || rpc_port, session_start from cluster_membership where record_expiry > now() order by role, rpc_port"],
        { encoding: 'utf8' },
      );
      const roles = ['frontend', 'history', 'matching', 'worker'];
      return r.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [role, address, sessionStart] = line.split('|');
          return { role: roles[Number(role) - 1] ?? String(role), address: address!, sessionStart: sessionStart! };
        });
    },
    async describe() {
      return (await cli(['operator', 'cluster', 'describe', '--address', address, '-o', 'json'])).out;
    },
    stop,
  };
}

/**
 * Runs the Temporal CLI without blocking the event loop (the frontend proxy runs in this process).
 */
function cli(args: string[]): Promise<{ status: number; out: string }> {
  return new Promise((res) => {
    execFile(resolveTemporalCli(), args, { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      res({ status: code, out: `${stdout}${stderr}` });
    });
  });
}

function portFree(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = createServer();
    s.once('error', () => res(false));
    s.listen(port, '127.0.0.1', () => s.close(() => res(true)));
  });
}
