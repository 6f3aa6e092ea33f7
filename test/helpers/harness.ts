import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import pg from 'pg';
import pino from 'pino';
import { inject } from 'vitest';
import { createApp } from '../../src/api/app';
import { loadConfig, type Config } from '../../src/config';
import type { Core } from '../../src/core/context';
import { createBusiness } from '../../src/core/businesses';
import { startRelay } from '../../src/core/relay';
import { relayTasks } from '../../src/core/relay-tasks';
import { drainWorkflowStarts } from '../../src/core/workflow-starts';
import { actAsRole, type AppRole, migrate, openDb } from '../../src/db/connection';
import type { Db } from '../../src/db/schema';
import { parseDatabaseUrl, withDatabase } from '../../src/db/database-url';
import { connectClient } from '../../src/db/primary';
import { createWorker, type PaymentsWorker } from '../../src/temporal/worker';
import { startRateRefresher } from '../../src/core/rates/refresher';
import { sandboxAdapters } from '../../src/sandbox/adapters';
import { createScreeningServices } from '../../src/core/screening/service';
import { type RateSourceServer, startRateSources } from '../../tools/rate-sources/server';

/** Options of {@link Harness.request}. */
export interface RequestOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  form?: FormData;
  headers?: Record<string, string>;
}

/** A response of {@link Harness.request}: status, parsed JSON body (else the text), headers and raw text. */
export interface Reply<T> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/** What a test file works with: the core, the HTTP app, and helpers to call it as an integrator. */
export interface Harness {
  core: Core;
  db: Db;
  app: ReturnType<typeof createApp>;
  config: Config;
  /** URL of this harness's own PostgreSQL database (unset on PGlite), e.g. for a spawned worker process. */
  databaseUrl?: string;
  /**
   * Calls the app in process. `key` becomes the bearer token; `body` is sent as JSON, `rawBody` as
   * is, `form` as multipart/form-data. `T` types the parsed body of a success; pass the route
   * module's response type, e.g. `h.request<PayoutResponse>('GET', '/sandbox/v1/payouts/po_…')`
   * (an error status carries the surface's error body instead, e.g. Surface A's `ErrorBody`).
   */
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<Reply<T>>;
  /** A new business with owner keys in both environments. */
  business(opts?: { verified?: boolean; approvalsRequired?: number }): Promise<{ id: string; sandbox: string; live: string }>;
  /** The live rate sources this harness's refresher reads (tools/rate-sources/server.ts; docs/rates.md). */
  rates: RateSourceServer;
  /** Starts the worker (and relay) if the harness was made without one. */
  startWorker(): Promise<void>;
  /** Stops the worker (and relay), e.g. to simulate a crash. */
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

let runtimeInstalled = false;

/** Opens a fresh database for one test file: a new PostgreSQL database, or in-memory PGlite. */
async function freshDb(): Promise<{ db: Db; url?: string; drop: () => Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const db = await openDb({ memory: true });
    return { db, drop: async () => {} };
  }
  const name = `t_${randomBytes(6).toString('hex')}`;
  // A multi-host URL (a pg_auto_failover cluster, docs/operations.md "Following the primary"): the primary's.
  const hostsUrl = parseDatabaseUrl(url);
  const adminClient = async () => {
    if (hostsUrl.needsSelection) return connectClient(hostsUrl, {});
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    return c;
  };
  const admin = await adminClient();
  await admin.query(`create database ${name}`);
  await admin.end();
  let dbUrl: string;
  if (hostsUrl.needsSelection) dbUrl = withDatabase(url, name);
  else {
    const u = new URL(url);
    u.pathname = `/${name}`;
    dbUrl = u.toString();
  }
  const db = await openDb({ url: dbUrl }, { poolSize: 20 });
  return {
    db,
    url: dbUrl,
    drop: async () => {
      const a = await adminClient();
      // pg's Pool.end() resolves before its clients have disconnected; a forced drop would then
      // kill them mid-close (an unhandled 57P01). Give them a moment to leave first.
      for (let i = 0; i < 100; i++) {
        const { rows } = await a.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
        if (rows[0].n === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await a.query(`drop database if exists ${name} with (force)`).catch(() => {});
      await a.end();
    },
  };
}

/**
 * Builds a harness: fresh database (migrated), Temporal client on the global dev server, a unique
 * task queue, and (unless `worker: false`) a worker running the real workflows and activities.
 */
export async function createHarness(
  opts: {
    worker?: boolean;
    env?: Record<string, string>;
    config?: Partial<Config>;
    /** Act as this application role after migrating (docs/security.md "Database roles"), as the processes do. */
    role?: AppRole;
  } = {},
): Promise<Harness> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as any });
    runtimeInstalled = true;
  }
  const address = inject('temporalAddress');
  const bundlePath = inject('workflowBundlePath');
  if (!address) throw new Error('This test needs Temporal; run it without TEST_NO_INFRA=1');
  const fresh = await freshDb();
  const { url: databaseUrl, drop } = fresh;
  await migrate(fresh.db);
  const db = opts.role ? await actAsRole(fresh.db, databaseUrl ? { url: databaseUrl } : { memory: true }, opts.role, { poolSize: 20 }) : fresh.db;
  // Live rates come from rate test servers on loopback, refreshed every second (docs/rates.md).
  const rates = await startRateSources();
  const taskQueue = `test-${randomBytes(5).toString('hex')}`;
  const config = loadConfig(
    {
      TEMPORAL_ADDRESS: address,
      TASK_QUEUE: taskQueue,
      // Each harness runs its own rail pollers and windows on the shared test server.
      WORKFLOW_ID_PREFIX: `${taskQueue}:`,
      SANDBOX_ARRIVAL: 'PT0.05S',
      LOG_LEVEL: 'silent',
      PORT: '3999',
      // Tests fire bursts with one key; test/api/rate-limit*.test.ts checks the real limits.
      RATE_LIMIT_LIVE_PER_SECOND: '10000',
      RATE_LIMIT_SANDBOX_PER_SECOND: '10000',
      ...rates.env,
      RATE_REFRESH_INTERVAL: 'PT1S',
      // Live screens against the built-in sandbox list too: OFAC is not loaded in tests (docs/screening.md "Sandbox"); fail-closed tests override it.
      SCREENING_LISTS: 'sandbox',
      ...opts.env,
    },
    opts.config,
  );
  // A loaded 2-core CI machine can be slow to answer: retry instead of failing the file.
  const connection = await retry(() => Connection.connect({ address, connectTimeout: 10_000 }));
  const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  const core: Core = { db, temporal, config, log: pino({ level: 'silent' }), now: () => new Date(), sandbox: sandboxAdapters(), screening: createScreeningServices(db, config) };
  // Stores the built-in list and syncs both services once (no loop; no network: a URL list is not fetched).
  await core.screening.sandbox.refresh();
  await core.screening.live.sync();
  const app = createApp(core);
  // Every routed currency: tests price live against the test rate server without a live rail.
  const stopRates = await startRateRefresher(core, { awaitFirst: true, polling: 'routes' });

  let worker: PaymentsWorker | undefined;
  let workerRun: Promise<void> | undefined;
  let nativeConnection: NativeConnection | undefined;
  let stopRelay: (() => Promise<void>) | undefined;

  const harness: Harness = {
    core,
    db,
    app,
    config,
    databaseUrl,
    rates,
    async request<T>(method: string, path: string, o: RequestOptions = {}): Promise<Reply<T>> {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.key) headers.Authorization = `Bearer ${o.key}`;
      let body: string | FormData | undefined = o.form ?? o.rawBody;
      if (o.body !== undefined) {
        body = JSON.stringify(o.body);
        headers['Content-Type'] ??= 'application/json';
      }
      const res = await app.request(path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON
      }
      return { status: res.status, body: parsed as T, headers: res.headers, text };
    },
    async business(o = {}) {
      const b = await createBusiness(db, { name: 'Test business', verified: o.verified ?? true, approvalsRequired: o.approvalsRequired });
      return { id: b.businessId, sandbox: b.keys.sandbox, live: b.keys.live };
    },
    async startWorker() {
      if (worker) return;
      nativeConnection = await retry(() => NativeConnection.connect({ address }));
      const created = await createWorker(core, { connection: nativeConnection, workflowBundle: { codePath: bundlePath } });
      worker = created.worker;
      workerRun = worker.run();
      stopRelay = startRelay(core, relayTasks, 50);
    },
    async stopWorker() {
      await stopRelay?.();
      stopRelay = undefined;
      if (worker) {
        worker.shutdown();
        await workerRun?.catch(() => {});
        worker = undefined;
      }
      await nativeConnection?.close();
      nativeConnection = undefined;
    },
    async close() {
      await drainWorkflowStarts(core);
      await harness.stopWorker();
      await stopRates();
      await rates.stop();
      await connection.close();
      await db.destroy();
      await drop();
    },
  };
  if (opts.worker !== false) await harness.startWorker();
  return harness;
}

/** Calls `fn` until it resolves, for up to `ms` (connections to a busy dev server). */
async function retry<T>(fn: () => Promise<T>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
