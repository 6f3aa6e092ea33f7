/**
 * A high-availability PostgreSQL on one machine, for the chaos run, the HA tests and `npm run
 * pg-ha` (docs/operations.md "High-availability PostgreSQL"): pg_auto_failover (Debian's
 * `postgresql-15-auto-failover`, the `pg_autoctl` command) runs a monitor and two data nodes, each
 * in its own data directory on its own loopback port; {@link PgHaNode.kill} takes a node's whole
 * "machine" (its keeper's process tree: the keeper, its services, the postmaster and the backends)
 * with SIGKILL at once. The primary commits synchronously to the standby (`synchronous_commit =
 * on` with `synchronous_standby_names`, set by the monitor); the monitor promotes the standby when
 * the primary stops answering, and a killed node started again rejoins as the standby (pg_rewind).
 * WAL is archived to one directory both nodes share, for point-in-time recovery.
 *
 * The failure detection is tuned for tests (a dead primary is replaced in about 10 s; production
 * values are in the docs): see {@link MONITOR_SETTINGS}.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/temporal/dev-server';
import { findPgBin } from '../stack/postgres';

/** The monitor's failure detection on this machine (milliseconds; docs/operations.md lists the production values). */
export const MONITOR_SETTINGS: Record<string, number> = {
  'pgautofailover.health_check_period': 1000,
  'pgautofailover.health_check_timeout': 1000,
  'pgautofailover.health_check_max_retries': 1,
  'pgautofailover.health_check_retry_delay': 500,
  'pgautofailover.node_considered_unhealthy_timeout': 4000,
  // How long the monitor waits for an unreachable primary to demote itself before promoting the
  // standby; each keeper demotes its own primary after KEEPER_PARTITION_TIMEOUT_S without the
  // monitor and the standby, which must be shorter.
  'pgautofailover.primary_demote_timeout': 6000,
};
/** The keepers' `timeout.network_partition_timeout` (seconds): below primary_demote_timeout. */
export const KEEPER_PARTITION_TIMEOUT_S = 3;

/** The `pg_autoctl` executable, or null when pg_auto_failover is not installed. */
export function findPgAutoctl(): string | null {
  for (const p of [process.env.PG_AUTOCTL, '/usr/bin/pg_autoctl', '/usr/local/bin/pg_autoctl']) if (p && existsSync(p)) return p;
  return null;
}

/** Why the HA cluster cannot start here, or null when it can (tests skip with this reason). */
export function pgHaMissing(): string | null {
  if (!findPgAutoctl()) return 'pg_auto_failover is not installed (Debian: apt-get install postgresql-15-auto-failover)';
  try {
    findPgBin();
  } catch (err) {
    return String((err as Error).message);
  }
  return null;
}

/** One data node: a keeper and its PostgreSQL, as one machine. */
export interface PgHaNode {
  /** `node_a` / `node_b` (the monitor's node name). */
  name: string;
  port: number;
  dataDir: string;
  /** The keeper's pid (the process-group leader) while it runs. */
  pid(): number | undefined;
  alive(): boolean;
  /** SIGKILLs the keeper, the postmaster and every backend at once (the machine dies); resolves when they are gone. */
  kill(): Promise<void>;
  /** Starts the keeper again (`pg_autoctl run`): it rejoins as the standby when another node is primary. */
  start(): void;
}

/** A node's state as the monitor sees it (`pgautofailover.node`). */
export interface PgHaNodeState {
  name: string;
  port: number;
  reported: string;
  assigned: string;
  /** 1 healthy, 0 unhealthy, -1 unknown (the monitor's health check). */
  health: number;
}

/** A running HA cluster. */
export interface PgHaCluster {
  /**
   * libpq's multi-host URL with `target_session_attrs=read-write` (what `pg_autoctl show uri`
   * prints): `postgres://postgres@127.0.0.1:<a>,127.0.0.1:<b>/postgres?target_session_attrs=read-write`.
   */
  url: string;
  /** The nodes' addresses, in order. */
  hosts: Array<{ host: string; port: number }>;
  /** The monitor's database (`pg_auto_failover`), as superuser. */
  monitorUrl: string;
  nodes: PgHaNode[];
  /** Temporary directory (logs `<name>.log`, data directories, the WAL archive). */
  dir: string;
  /** Where both nodes archive WAL (`archive_command`): point-in-time recovery reads it. */
  walArchive: string;
  /** The nodes as the monitor sees them. */
  states(): Promise<PgHaNodeState[]>;
  /** The node the monitor has as the writable primary and that reports it ({@link WRITABLE}), or null (during a failover). */
  primary(): Promise<PgHaNode | null>;
  /** Resolves once one node is `primary` and the other `secondary` (both reported and assigned); throws after `timeoutMs`. */
  waitForSteadyState(timeoutMs?: number): Promise<{ primary: PgHaNode; standby: PgHaNode }>;
  /** A planned switchover (`pg_autoctl perform switchover`): the standby becomes primary; resolves in steady state. */
  switchover(timeoutMs?: number): Promise<{ primary: PgHaNode; standby: PgHaNode }>;
  /** Stops everything and removes the directory. Idempotent; also runs on process exit. */
  stop(): void;
}

/** The states in which a node is the writable primary (`wait_primary`: no standby in sync; commits are not synchronous). */
export const WRITABLE = new Set(['single', 'primary', 'wait_primary', 'join_primary', 'apply_settings']);

/** Options of {@link startPgHa}. */
export interface PgHaOptions {
  maxConnections?: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** Keep the directory at stop (debugging). */
  keep?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Creates and starts the monitor and two data nodes; resolves once the second node is the
 * synchronous standby of the first. About 30 s on this machine. Throws when pg_auto_failover is
 * missing ({@link pgHaMissing}) or a node does not come up (with its log).
 */
export async function startPgHa(opts: PgHaOptions = {}): Promise<PgHaCluster> {
  const missing = pgHaMissing();
  if (missing) throw new Error(missing);
  const autoctl = findPgAutoctl()!;
  const bin = findPgBin();
  const log = opts.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), 'payouts-pg-ha-'));
  const walArchive = join(dir, 'wal-archive');
  mkdirSync(walArchive);
  const asRoot = process.getuid?.() === 0;
  const prefix: string[] = [];
  if (asRoot) {
    if (spawnSync('id', ['-u', 'postgres']).status !== 0) execFileSync('useradd', ['--system', '--no-create-home', 'postgres']);
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    chownSync(dir, uid, 0);
    chownSync(walArchive, uid, 0);
    prefix.push('runuser', '-u', 'postgres', '--');
  }
  // pg_autoctl keeps its configuration and state under XDG_CONFIG_HOME / XDG_DATA_HOME.
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'state'), PG_CONFIG: join(bin, 'pg_config') };
  const envArgs = ['env', `PATH=${env.PATH}`, `XDG_CONFIG_HOME=${env.XDG_CONFIG_HOME}`, `XDG_DATA_HOME=${env.XDG_DATA_HOME}`, `PG_CONFIG=${env.PG_CONFIG}`];
  const run = (args: string[]) => {
    const full = [...prefix, ...envArgs, ...args];
    const r = spawnSync(full[0]!, full.slice(1), { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${args.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
    return r.stdout;
  };
  const children = new Set<ChildProcess>();
  const spawnKeeper = (name: string, args: string[]): ChildProcess => {
    const out = createWriteStream(join(dir, `${name}.log`), { flags: 'a' });
    const full = [...prefix, ...envArgs, autoctl, ...args];
    // detached: out of the caller's process group (a Ctrl-C reaches the caller, whose exit handler stops the cluster).
    const child = spawn(full[0]!, full.slice(1), { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(out);
    child.stderr!.pipe(out);
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  };
  const killGroup = async (child: ChildProcess | null) => {
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    killTree(child.pid);
    await exited;
  };

  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    const pids = [...children].flatMap((c) => (c.pid ? killTree(c.pid) : []));
    // The directory goes only once every process is gone (a dying server still writes to it).
    const until = Date.now() + 5000;
    while (pids.some(isAlive) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);

  try {
    // The monitor.
    const monitorPort = await freePort();
    const monitorData = join(dir, 'monitor');
    spawnKeeper('monitor', ['create', 'monitor', '--pgdata', monitorData, '--pgport', String(monitorPort), '--hostname', '127.0.0.1', '--auth', 'trust', '--no-ssl', '--run']);
    const monitorUrl = `postgres://postgres@127.0.0.1:${monitorPort}/pg_auto_failover`;
    await waitFor(async () => (await query(monitorUrl, 'select 1 from pgautofailover.formation limit 1')).length > 0, 60_000, () => tail(join(dir, 'monitor.log')));
    for (const [k, v] of Object.entries(MONITOR_SETTINGS)) await query(monitorUrl, `alter system set ${k} = ${v}`);
    await query(monitorUrl, 'select pg_reload_conf()');
    log(`pg_auto_failover monitor on port ${monitorPort}`);

    const nodeMonitorUrl = `postgres://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover?sslmode=disable`;
    const nodes: PgHaNode[] = [];
    const hosts: Array<{ host: string; port: number }> = [];
    for (const name of ['node_a', 'node_b']) {
      const port = await freePort();
      const dataDir = join(dir, name);
      if (name === 'node_a') {
        // initdb first, with this project's settings appended after pg_auto_failover's include
        // (its own tuning would take a quarter of the machine's memory per node).
        run([join(bin, 'initdb'), '-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
        appendFileSync(join(dataDir, 'postgresql.conf'), settings(opts.maxConnections ?? 300, walArchive));
      }
      const createArgs = ['create', 'postgres', '--pgdata', dataDir, '--pgport', String(port), '--hostname', '127.0.0.1', '--name', name, '--auth', 'trust', '--no-ssl', '--monitor', nodeMonitorUrl];
      let child: ChildProcess | null = spawnKeeper(name, [...createArgs, '--run']);
      const node: PgHaNode = {
        name,
        port,
        dataDir,
        pid: () => child?.pid,
        alive: () => !!child && child.exitCode === null && child.signalCode === null,
        kill: async () => {
          await killGroup(child);
          child = null;
        },
        start: () => {
          if (node.alive()) return;
          child = spawnKeeper(name, ['run', '--pgdata', dataDir]);
        },
      };
      nodes.push(node);
      hosts.push({ host: '127.0.0.1', port });
      const want = name === 'node_a' ? ['single'] : ['secondary'];
      await waitFor(
        async () => {
          const s = (await states(monitorUrl)).find((x) => x.name === name);
          return !!s && want.includes(s.reported) && s.reported === s.assigned;
        },
        90_000,
        () => tail(join(dir, `${name}.log`)),
      );
      run([autoctl, 'config', 'set', '--pgdata', dataDir, 'timeout.network_partition_timeout', String(KEEPER_PARTITION_TIMEOUT_S)]);
      log(`pg_auto_failover ${name} on port ${port}`);
    }

    const byName = new Map(nodes.map((n) => [n.name, n]));
    const cluster: PgHaCluster = {
      url: `postgres://postgres@${hosts.map((h) => `${h.host}:${h.port}`).join(',')}/postgres?target_session_attrs=read-write`,
      hosts,
      monitorUrl,
      nodes,
      dir,
      walArchive,
      states: () => states(monitorUrl),
      primary: async () => {
        const s = (await states(monitorUrl)).find((x) => WRITABLE.has(x.reported) && x.reported === x.assigned);
        return s ? (byName.get(s.name) ?? null) : null;
      },
      waitForSteadyState: async (timeoutMs = 60_000) => {
        let found: { primary: PgHaNode; standby: PgHaNode } | null = null;
        await waitFor(
          async () => {
            const s = await states(monitorUrl);
            const p = s.find((x) => x.reported === 'primary' && x.assigned === 'primary');
            const q = s.find((x) => x.reported === 'secondary' && x.assigned === 'secondary');
            found = p && q ? { primary: byName.get(p.name)!, standby: byName.get(q.name)! } : null;
            return !!found;
          },
          timeoutMs,
          async () => JSON.stringify(await states(monitorUrl).catch(() => [])),
        );
        return found!;
      },
      switchover: async (timeoutMs = 60_000) => {
        // What `pg_autoctl perform switchover` calls (its own wait fails on pg_autoctl 2.0 from the monitor's host).
        const before = await cluster.primary();
        await query(monitorUrl, "select pgautofailover.perform_failover('default', 0)");
        const until = Date.now() + timeoutMs;
        for (;;) {
          const now = await cluster.waitForSteadyState(Math.max(1, until - Date.now()));
          if (now.primary !== before) return now;
          await sleep(250);
        }
      },
      stop,
    };
    // The standby joins as `secondary` with the primary in `primary` (synchronous from then on).
    await cluster.waitForSteadyState(60_000);
    return cluster;
  } catch (err) {
    stop();
    throw err;
  }
}

/**
 * SIGKILLs `pid` and every process below it at once; returns their pids. A process group would not do: pg_autoctl's
 * supervised services and PostgreSQL's backends each call setsid, and an orphaned pg_autoctl
 * "start/stop postgres" service starts its PostgreSQL again.
 */
function killTree(pid: number): number[] {
  const ps = spawnSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' }).stdout ?? '';
  const kids = new Map<number, number[]>();
  for (const line of ps.split('\n')) {
    const [p, pp] = line.trim().split(/\s+/).map(Number);
    if (p && pp !== undefined) kids.set(pp, [...(kids.get(pp) ?? []), p]);
  }
  const tree: number[] = [];
  const walk = (p: number) => {
    tree.push(p);
    for (const k of kids.get(p) ?? []) walk(k);
  };
  walk(pid);
  for (const p of tree) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return tree;
}

/** Whether `pid` still runs (a zombie whose parent has not reaped it counts as gone). */
function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \S+ Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/\(.*\)/, 'x'));
  } catch {
    return false;
  }
}

/** This project's settings for every data node (appended after pg_auto_failover's own). */
function settings(maxConnections: number, walArchive: string): string {
  return [
    '',
    '# payouts: tools/pg-ha/cluster.ts (after pg_auto_failover\'s include, so these win)',
    'listen_addresses = \'127.0.0.1\'',
    `max_connections = ${maxConnections}`,
    'shared_buffers = 128MB',
    'maintenance_work_mem = 64MB',
    'effective_cache_size = 1GB',
    'work_mem = 4MB',
    // A test machine's disk: the operating system does not crash here, and what reached it
    // survives a process crash. full_page_writes stays on (pg_rewind needs it).
    'fsync = off',
    'archive_mode = on',
    `archive_command = 'test ! -f ${walArchive}/%f && cp %p ${walArchive}/%f'`,
    'archive_timeout = 60',
    '',
  ].join('\n');
}

/** Runs one statement on a fresh connection and returns its rows. */
async function query(url: string, text: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return (await client.query(text)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

async function states(monitorUrl: string): Promise<PgHaNodeState[]> {
  const rows = await query(monitorUrl, 'select nodename, nodeport, reportedstate::text, goalstate::text, health from pgautofailover.node order by nodeid');
  return rows.map((r) => ({ name: String(r.nodename), port: Number(r.nodeport), reported: String(r.reportedstate), assigned: String(r.goalstate), health: Number(r.health) }));
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, why: () => string | Promise<string>): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > until) throw new Error(`pg_auto_failover: not ready after ${timeoutMs} ms: ${await why()}`);
    await sleep(250);
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '(no log)';
  }
}

