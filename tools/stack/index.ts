/**
 * The stack as production runs it, for `npm run chaos` and `npm run bench`: a throwaway PostgreSQL
 * cluster (tools/stack/postgres.ts), Temporal (with `cluster`: a two-node Temporal cluster on that
 * PostgreSQL, tools/temporal-cluster; otherwise a dev server on a SQLite file,
 * src/temporal/dev-server.ts), N `npm run api` and M `npm run worker` child processes (each API
 * on its own port; workers share one prebuilt workflow bundle), and a round-robin proxy in front
 * of the APIs (tools/stack/proxy.ts). Processes can be SIGKILLed and restarted; a process that
 * dies on its own is restarted too when `supervise` is on (what systemd or Kubernetes would do).
 * `stop()` ends everything and removes the temporary directory; it also runs on exit, SIGINT and
 * SIGTERM, so nothing is left behind when the caller fails.
 *
 * Children run the compiled JavaScript production runs (`node <build>/main/<api|worker>.js`, built
 * by tools/build.ts into `dist/.stack-*` at start, about 2 s), or with `runtime: 'tsx'` (or
 * STACK_RUNTIME=tsx) `node --import tsx src/main/<api|worker>.ts` (what `npm run api` runs);
 * without npm's extra process either way, so the pid is the service's own. Their output goes to
 * `<dir>/<name>.log`. With `testBank`, the test bank (tools/test-bank) runs too and every process's
 * live sepa_eur and ach_usd rails are connected to it. With `haPostgres`, the database is a
 * high-availability pair instead of one server (tools/stack/ha-postgres.ts: pg_auto_failover, a
 * primary and a synchronous standby): the services and the Temporal servers get every node's
 * address and follow the primary; {@link Stack.killPostgresPrimary} makes it fail over.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { createBusiness } from '../../src/core/businesses';
import { migrate, openDb } from '../../src/db/connection';
import type { Db } from '../../src/db/schema';
import { writeWorkflowBundle } from '../../src/temporal/bundle';
import { buildServices, PRODUCTION_NODE_ENV, PRODUCTION_NODE_FLAGS } from '../build';
import { type DevServer, freePort, startDevServer } from '../../src/temporal/dev-server';
import { startTemporalCluster, type TemporalCluster } from '../temporal-cluster/cluster';
import { startTestBank, type TestBank } from '../test-bank/bank';
import { type RateSourceServer, startRateSources } from '../rate-sources/server';
import { type HaPostgres, type PgFailover, startHaPostgres } from './ha-postgres';
import { type Postgres, startPostgres } from './postgres';
import { type Proxy, startProxy } from './proxy';

/** Root of the repository (the children's working directory). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Options of {@link startStack}. */
export interface StackOptions {
  apis?: number;
  workers?: number;
  /** Extra environment of every API and worker process (e.g. SANDBOX_ARRIVAL, WEBHOOK_RETRY_INITIAL). */
  env?: Record<string, string>;
  /** Preload pg_stat_statements (the bench's SQL counts). */
  statements?: boolean;
  /**
   * The database as a high-availability pair (tools/stack/ha-postgres.ts: pg_auto_failover's
   * monitor, a primary and a synchronous standby) instead of one server: the API and worker
   * processes get the multi-host DATABASE_URL (`target_session_attrs=read-write`), the Temporal
   * cluster the address list (TEMPORAL_PG_ADDR). Needs pg_auto_failover (tools/pg-ha/cluster.ts
   * `pgHaMissing`). Default false: one server (tools/stack/postgres.ts).
   */
  haPostgres?: boolean;
  /** Restart API and worker processes that exit when nobody asked them to. Default true. */
  supervise?: boolean;
  /**
   * Run Temporal as a cluster of this many server processes on the stack's PostgreSQL (the server
   * built from its Go module, tools/temporal-cluster) instead of the dev server. 0 or absent: the
   * dev server.
   */
  clusterNodes?: number;
  /**
   * Start the test bank (tools/test-bank: a real OpenSSH SFTP server and the bank that answers
   * pain.001 and NACHA files) and connect the live sepa_eur and ach_usd rails of every process to it, with short
   * collection windows (docs/rails.md "Test bank").
   */
  testBank?: boolean;
  /** Progress lines (default: console.log with a prefix). */
  log?: (line: string) => void;
  /**
   * Profile switch: run every API and worker process under V8's CPU profiler (`node --cpu-prof`), writing
   * one `.cpuprofile` per thread (the main thread and each workflow thread) into this directory
   * when the process exits normally: stop it with `kill('SIGTERM')` (the SDK drains, the process
   * ends), not SIGKILL. Default: the environment variable STACK_CPU_PROF_DIR, else no profiler.
   */
  cpuProfileDir?: string;
  /** `compiled` (default; STACK_RUNTIME overrides): tools/build.ts's bundles; `tsx`: the sources through tsx. */
  runtime?: 'compiled' | 'tsx';
}

/** One API or worker process under the stack's control. */
export class ServiceProcess {
  child: ChildProcess | null = null;
  /** Restarts so far (by kill/restart or by supervision). */
  restarts = 0;
  private stopping = false;
  private out: WriteStream;

  constructor(
    readonly name: string,
    readonly role: 'api' | 'worker',
    readonly port: number | null,
    private readonly env: NodeJS.ProcessEnv,
    readonly logFile: string,
    private readonly onCrash: (p: ServiceProcess, code: number | null, signal: string | null) => void,
    /** Extra node options before the entry point (e.g. the CPU profiler's). */
    private readonly nodeArgs: string[] = [],
    /** Directory of the compiled entry points (`<dir>/<role>.js`); null: run the sources through tsx. */
    private readonly compiledDir: string | null = null,
  ) {
    this.out = createWriteStream(logFile, { flags: 'a' });
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Whether the process is running (spawned and not exited). */
  get alive(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Spawns the process and resolves once it logs that it is ready ('api listening' / 'worker running'). */
  start(timeoutMs = 180_000): Promise<void> {
    this.stopping = false;
    const entry = this.compiledDir ? [join(this.compiledDir, `${this.role}.js`)] : ['--import', 'tsx', `src/main/${this.role}.ts`];
    const child = spawn(process.execPath, [...this.nodeArgs, ...entry], {
      cwd: ROOT,
      env: { ...this.env, ...(this.port ? { PORT: String(this.port) } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const marker = this.role === 'api' ? 'api listening' : 'worker running';
    let seen = '';
    return new Promise((resolve, reject) => {
      let ready = false;
      const timer = setTimeout(() => reject(new Error(`${this.name} not ready after ${timeoutMs} ms; see ${this.logFile}`)), timeoutMs);
      const onData = (b: Buffer) => {
        this.out.write(b);
        if (ready) return;
        seen = (seen + String(b)).slice(-4000);
        if (seen.includes(marker)) {
          ready = true;
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code, signal) => {
        this.out.write(`\n[stack] ${this.name} exited code=${code} signal=${signal}\n`);
        if (!ready) {
          clearTimeout(timer);
          reject(new Error(`${this.name} exited (${code ?? signal}) before it was ready:\n${seen}`));
        } else if (!this.stopping) this.onCrash(this, code, signal);
      });
    });
  }

  /** Sends `signal` (default SIGKILL) and waits for the exit. Not restarted by supervision. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill(signal);
    const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(t);
  }

  /** Kills (SIGKILL) and starts again on the same port. */
  async restart(): Promise<void> {
    await this.kill('SIGKILL');
    this.restarts++;
    await this.start();
  }

  close(): void {
    this.out.end();
  }
}

/** A running stack. */
export interface Stack {
  dir: string;
  /** The single PostgreSQL server (null with `haPostgres`). */
  pg: Postgres | null;
  /** The high-availability pair (with `haPostgres`, else null). */
  pgHa: HaPostgres | null;
  /** The DATABASE_URL every API and worker process gets (multi-host with `haPostgres`). */
  databaseUrl: string;
  /** A Kysely handle on the stack's database (for setup and audits). */
  db: Db;
  /** The dev server (null when the stack runs a cluster). */
  temporal: DevServer | null;
  /** The Temporal cluster (null when the stack runs the dev server). */
  cluster: TemporalCluster | null;
  temporalAddress: string;
  apis: ServiceProcess[];
  workers: ServiceProcess[];
  proxy: Proxy;
  /** Base origin of the proxy, e.g. http://127.0.0.1:41234. */
  url: string;
  /** Unexpected exits seen by supervision (each was restarted), Temporal cluster nodes' too. */
  crashes: { name: string; code: number | null; signal: string | null; at: Date }[];
  /**
   * SIGKILLs Temporal and brings it back: the dev server on the same port and SQLite file, or one
   * node of the cluster (`node`, default a random one) while the others keep serving. Returns
   * what it did, for the fault log.
   */
  restartTemporal(node?: number): Promise<string>;
  /** Pids of the Temporal server processes (the dev server, or every live cluster node). */
  temporalPids(): number[];
  /**
   * Stops PostgreSQL at once (immediate mode, as a crash) and starts it again on the same port and
   * data. The single server only: throws with `haPostgres` (see {@link Stack.killPostgresPrimary}).
   */
  restartPostgres(): Promise<void>;
  /**
   * With `haPostgres`: SIGKILLs the primary node and returns what happened and is under way: the
   * standby's promotion, then the killed node started again and rejoining as the new standby
   * (tools/stack/ha-postgres.ts `killPrimary`). Throws without `haPostgres`, or when no node is
   * primary in steady state within 60 s.
   */
  killPostgresPrimary(): Promise<PgFailover>;
  /** The test bank when started with `testBank` (else null). */
  bank: TestBank | null;
  /** With `testBank`: the live rate sources every process reads (tools/rate-sources; docs/rates.md), else null. */
  rates: RateSourceServer | null;
  /** A new business with sandbox and live owner keys (`verified`: may open virtual accounts). */
  createBusiness(name: string, approvals?: number, verified?: boolean): Promise<{ business_id: string; keys: { sandbox: string; live: string } }>;
  /** The tail of a process's log (for failure reports). */
  tail(p: ServiceProcess, lines?: number): string;
  stop(): Promise<void>;
}

/** Starts the stack; on any failure stops what was started and rethrows. */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const log = opts.log ?? ((l: string) => console.log(`[stack] ${l}`));
  const dir = mkdtempSync(join(tmpdir(), 'payouts-stack-'));
  const cleanups: (() => Promise<void> | void)[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const c of cleanups.reverse()) {
      try {
        await c();
      } catch {
        // keep stopping the rest
      }
    }
    if (process.env.STACK_KEEP_LOGS) log(`logs kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  };
  // On Ctrl-C or SIGTERM: kill everything synchronously (children SIGKILL, PostgreSQL immediate
  // stop through its own exit hook) and leave; an async stop could be cut short.
  const onSignal = () => {
    stopped = true;
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  cleanups.push(() => {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  });

  let temporal: DevServer = undefined as unknown as DevServer;
  try {
    const t0 = performance.now();
    let pg: Postgres | null = null;
    let pgHa: HaPostgres | null = null;
    if (opts.haPostgres) {
      const ha = await startHaPostgres({ log: (l) => log(l) });
      pgHa = ha;
      cleanups.push(() => ha.stop());
      log(`PostgreSQL HA pair ${ha.addr} (pg_auto_failover, monitor ${ha.cluster.monitorUrl}); the stack's own handle through the primary proxy on port ${ha.proxyPort}`);
    } else {
      // A cluster stack restarts PostgreSQL among its faults: no acknowledged commit may be lost then.
      const single = await startPostgres({ statements: opts.statements, crashSafe: !!opts.clusterNodes });
      pg = single;
      cleanups.push(() => single.stop());
      log(`PostgreSQL on port ${single.port} (pid ${single.pid})`);
    }
    // The stack's own handle (migrations, createBusiness, audits): the primary, through the proxy on HA.
    const db = await openDb({ url: pgHa ? pgHa.primaryUrl : pg!.url }, { poolSize: 5 });
    cleanups.push(() => db.destroy());
    await migrate(db);
    if (pgHa && opts.statements) {
      // pg_auto_failover preloads pg_stat_statements on every node; the extension is created on the primary (and replicated).
      await sql`create extension if not exists pg_stat_statements`.execute(db);
    }

    const killTemporal = () => {
      if (temporal?.process && temporal.process.exitCode === null) temporal.process.kill('SIGKILL');
    };
    process.on('exit', killTemporal);
    cleanups.push(() => {
      process.removeListener('exit', killTemporal);
    });
    const crashes: Stack['crashes'] = [];
    let cluster: TemporalCluster | null = null;
    let temporalPort = 0;
    const dbFile = join(dir, 'temporal.sqlite');
    if (opts.clusterNodes) {
      cluster = await startTemporalCluster({
        // On HA: the schema tool on the primary's own port (it runs synchronously, so not through
        // the proxy in this process), the servers on every node (pgx, read-write).
        pg: pgHa ? { host: '127.0.0.1', port: (await pgHa.cluster.waitForSteadyState()).primary.port, user: 'postgres', addr: pgHa.addr } : { host: '127.0.0.1', port: pg!.port, user: 'postgres' },
        dir,
        nodes: opts.clusterNodes,
        log: (l) => log(`[temporal] ${l}`),
        // Restarted by the cluster itself (a node that starts while PostgreSQL fails over may exit).
        onCrash: (name, code, signal) => {
          if (!stopped) crashes.push({ name, code, signal, at: new Date() });
        },
      });
      const c = cluster;
      cleanups.push(() => c.stop());
    } else {
      temporalPort = await freePort();
      temporal = await startDevServer({ port: temporalPort, dbFile, headless: true });
      cleanups.push(() => {
        temporal.process.kill('SIGKILL');
      });
      log(`Temporal dev server on ${temporal.address} (pid ${temporal.process.pid})`);
    }
    const temporalAddress = cluster ? cluster.address : temporal.address;
    const bundle = await writeWorkflowBundle(join(dir, 'workflow-bundle.js'));
    let bank: TestBank | null = null;
    let rates: RateSourceServer | null = null;
    if (opts.testBank) {
      // ACH late returns 8 s after the upload: after settlement (PT3S), inside the return window.
      // Both rails' return windows are PT180S: wide enough for a bank answer held up by faults (an
      // inbox poll held by a killed worker until its 20 s heartbeat timeout, a backlog of bank
      // statuses to dispatch); a 5-minute chaos run saw an ACH return, a 10-minute one a SEPA
      // return, and another 10-minute one late ACH returns (five payouts off, the three it showed
      // late R02s), read after a shorter window (5 s, 5 s, 60 s) had closed (docs/chaos.md).
      // Production's windows are days.
      bank = await startTestBank({ dir: join(dir, 'bank'), pollMs: 200, achLateReturnDelayMs: 8000 });
      const b = bank;
      cleanups.push(() => b.stop());
      log(`test bank: SFTP on ${b.server.host}:${b.server.port}, files in ${b.filesDir}`);
      // Live prices need live rates (docs/rates.md): the rate test servers, refreshed every 2 s.
      rates = await startRateSources();
      const r = rates;
      cleanups.push(() => r.stop());
    }

    const env: NodeJS.ProcessEnv = {
      ...PRODUCTION_NODE_ENV,
      ...process.env,
      DATABASE_URL: pgHa ? pgHa.url : pg!.url,
      TEMPORAL_ADDRESS: temporalAddress,
      WORKFLOW_BUNDLE: bundle,
      LOG_LEVEL: 'info',
      ...(bank
        ? {
            // Live screening against OFAC's SDN CSV set, from the small official-format copy in the
            // repository (BANCO NACIONAL DE CUBA among it): the stack has no internet (docs/screening.md).
            SCREENING_LISTS: 'ofac-sdn-csv',
            SCREENING_OFAC_SDN_CSV_DIR: join(ROOT, 'test', 'fixtures', 'screening', 'ofac-csv'),
            ...bank.env,
            ...rates?.env,
            RATE_REFRESH_INTERVAL: 'PT2S',
            RAIL_SEPA_BATCH_WINDOW: 'PT2S',
            RAIL_SEPA_POLL_INTERVAL: 'PT1S',
            RAIL_SEPA_RETURN_WINDOW: 'PT180S',
            RAIL_ACH_BATCH_WINDOW: 'PT2S',
            RAIL_ACH_POLL_INTERVAL: 'PT1S',
            RAIL_ACH_SETTLE_AFTER: 'PT3S',
            RAIL_ACH_RETURN_WINDOW: 'PT180S',
          }
        : {}),
      ...opts.env,
    };
    const supervise = opts.supervise ?? true;
    const onCrash = (p: ServiceProcess, code: number | null, signal: string | null) => {
      if (stopped) return;
      crashes.push({ name: p.name, code, signal, at: new Date() });
      log(`${p.name} exited on its own (${code ?? signal})${supervise ? '; restarting' : ''}`);
      if (supervise) {
        p.restarts++;
        p.start().catch((err) => log(`${p.name} did not restart: ${String(err)}`));
      }
    };
    const apis: ServiceProcess[] = [];
    const workers: ServiceProcess[] = [];
    const profileDir = opts.cpuProfileDir ?? process.env.STACK_CPU_PROF_DIR;
    // The production flags (tools/build.ts), then STACK_NODE_ARGS (space-separated; for experiments; a later flag wins).
    const extraNodeArgs = (process.env.STACK_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const workerNodeArgs = [...PRODUCTION_NODE_FLAGS, ...extraNodeArgs, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
    if (profileDir) log(`API and worker CPU profiles (on a normal exit) in ${profileDir}`);
    let compiledDir: string | null = null;
    if ((process.env.STACK_RUNTIME ?? opts.runtime ?? 'compiled') === 'compiled') {
      const out = join(ROOT, 'dist', `.stack-${basename(dir)}`);
      cleanups.push(() => rmSync(out, { recursive: true, force: true }));
      const tb = performance.now();
      await buildServices(out);
      compiledDir = out;
      log(`API and worker compiled into ${out} in ${((performance.now() - tb) / 1000).toFixed(1)} s (tools/build.ts)`);
    } else log('API and worker run through tsx (STACK_RUNTIME=tsx)');
    for (let i = 0; i < (opts.apis ?? 1); i++) {
      const port = await freePort();
      apis.push(new ServiceProcess(`api-${i + 1}`, 'api', port, { ...env, PUBLIC_URL: `http://127.0.0.1:${port}` }, join(dir, `api-${i + 1}.log`), onCrash, workerNodeArgs, compiledDir));
    }
    for (let i = 0; i < (opts.workers ?? 1); i++) {
      workers.push(new ServiceProcess(`worker-${i + 1}`, 'worker', null, env, join(dir, `worker-${i + 1}.log`), onCrash, workerNodeArgs, compiledDir));
    }
    cleanups.push(async () => {
      // A profiled worker writes its profiles only on a normal exit: SIGTERM drains and ends it.
      await Promise.all([...apis, ...workers].map((p) => p.kill(profileDir ? 'SIGTERM' : 'SIGKILL')));
      for (const p of [...apis, ...workers]) p.close();
    });
    // Never leave children behind, however this process ends.
    const killAll = () => {
      for (const p of [...apis, ...workers]) if (p.alive) p.child?.kill('SIGKILL');
      if (process.env.STACK_KEEP_LOGS) console.log(`[stack] logs kept in ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    };
    process.once('exit', killAll);
    cleanups.push(() => {
      process.removeListener('exit', killAll);
    });
    // Workers first (they register search attributes), then the APIs, one at a time: on 2 shared
    // cores, starting all at once only makes each slower.
    for (const p of [...workers, ...apis]) {
      await p.start();
      log(`${p.name} ready (pid ${p.pid}${p.port ? `, port ${p.port}` : ''})`);
    }
    const proxy = await startProxy(() => apis.map((a) => a.port!));
    cleanups.push(() => proxy.close());
    log(`proxy ${proxy.url} -> ${apis.map((a) => a.port).join(', ')}; stack up in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const stack: Stack = {
      dir,
      pg,
      pgHa,
      databaseUrl: pgHa ? pgHa.url : pg!.url,
      db,
      get temporal() {
        return cluster ? null : temporal;
      },
      cluster,
      bank,
      rates,
      temporalAddress,
      apis,
      workers,
      proxy,
      url: proxy.url,
      crashes,
      async restartTemporal(node) {
        if (cluster) {
          const victim = cluster.nodes[node ?? Math.floor(Math.random() * cluster.nodes.length)]!;
          const s0 = Date.now();
          await victim.kill();
          // Down for a while, as a node that crashed and is rescheduled: its shards move meanwhile.
          await new Promise((r) => setTimeout(r, 5000));
          await victim.start();
          return `Temporal node ${victim.name} SIGKILLed, back in ${((Date.now() - s0) / 1000).toFixed(1)} s`;
        }
        const old = temporal;
        const s0 = Date.now();
        const exited = new Promise<void>((r) => (old.process.exitCode !== null ? r() : old.process.once('exit', () => r())));
        old.process.kill('SIGKILL');
        await exited;
        temporal = await startDevServer({ port: temporalPort, dbFile, headless: true });
        return `Temporal dev server SIGKILLed, back in ${((Date.now() - s0) / 1000).toFixed(1)} s`;
      },
      temporalPids() {
        if (cluster) return cluster.nodes.map((n) => n.pid()).filter((p): p is number => p !== undefined);
        return temporal.process.pid ? [temporal.process.pid] : [];
      },
      async restartPostgres() {
        if (!pg) throw new Error('restartPostgres: the stack runs the HA pair (haPostgres); use killPostgresPrimary');
        await pg.restart();
      },
      async killPostgresPrimary() {
        if (!pgHa) throw new Error('killPostgresPrimary: the stack runs one PostgreSQL server (start it with haPostgres)');
        return pgHa.killPrimary();
      },
      async createBusiness(name, approvals, verified) {
        const b = await createBusiness(db, { name, approvalsRequired: approvals, verified });
        return { business_id: b.businessId, keys: b.keys };
      },
      tail(p, lines = 40) {
        try {
          return readFileSync(p.logFile, 'utf8').split('\n').slice(-lines).join('\n');
        } catch {
          return '';
        }
      },
      stop,
    };
    return stack;
  } catch (err) {
    await stop();
    throw err;
  }
}
