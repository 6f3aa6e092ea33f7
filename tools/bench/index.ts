/**
 * `npm run bench [-- --quick] [--json] [--cluster] [--rails]` (docs/benchmarks.md: one benchmark, every
 * figure with its baseline, in the same run). Starts its own stack (tools/stack: a throwaway
 * PostgreSQL with pg_stat_statements, a Temporal dev server on SQLite or, with `--cluster`, a
 * two-node Temporal cluster on the same PostgreSQL, one `npm run api` and one `npm run worker`
 * process) and measures each figure right after its bare baseline:
 *
 * 1. N-item disbursement, payouts/s from launch to the last final item, against no-op child
 *    workflows/s in the same window and shape (tools/floor/workflows.ts, a worker in this process);
 * 2. POST /payouts at 20 concurrent clients (requests/s, p50, p99) against two baselines at the same
 *    concurrency: a bare Temporal client starting a one-local-activity workflow, and the minimal
 *    durable payout (tools/bench/minimal-payout.ts: a handler that inserts one row and starts a
 *    workflow that records the hold, waits a timer of the sandbox arrival, records the settlement);
 * 3. GET /payouts?limit=50 at 20 concurrent clients against a bare Hono + pg process running the
 *    same query and JSON (tools/bench/bare-list.ts);
 * 4. a 10,000-entry Surface B batch accepted (POST /sandbox/claim/v1/disbursements/batch), or
 *    "not built" when the route is absent, and the time until every entry's workflow has started,
 *    against a bare client starting as many no-op workflows as fast as it can (the best of 64 and
 *    128 starts in flight over one connection);
 * 5. (first, section `idle`) the footprint of the API and the worker at idle: RSS after the stack
 *    has been quiet a while, and CPU ms per second over a quiet window.
 *
 * Also CPU milliseconds per payout of each process (API, worker, Temporal server, PostgreSQL with
 * its backends; /proc/<pid>/stat before and after) and SQL statements per payout
 * (pg_stat_statements `calls`, BEGIN/COMMIT/ROLLBACK counted apart; transactions from
 * pg_stat_database). `--quick`: small sizes (CI checks only that it completes). Each POST and GET
 * target is warmed up before its measured window (docs/benchmarks.md "Warm-up"); `--only`,
 * `--statements` and `--latencies` are described there.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { type RawBuilder, sql } from 'kysely';
import { parseDuration } from '../../src/domain/durations';
import { freePort } from '../../src/temporal/dev-server';
import { cpuMs, treeCpuMs, treeRssBytes } from '../stack/proc-stats';
import { ROOT, startStack, type Stack } from '../stack/index';
import { runRailsBench } from './rails';
import { LONG_RUN_ITEMS } from '../../workflows/disbursement.contract';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    items: { type: 'string' },
    posts: { type: 'string' },
    'get-seconds': { type: 'string' },
    entries: { type: 'string' },
    cluster: { type: 'boolean', default: false },
    // --only get,post: just those sections (idle, disbursement, post, get, batch), for profiling one path
    only: { type: 'string' },
    // --statements: also print each section's SQL statements by calls per unit (pg_stat_statements)
    statements: { type: 'boolean', default: false },
    // --latencies FILE: every measured request's latency, for a look at the tail (tab-separated)
    latencies: { type: 'string' },
    // --rails: only the bank files at scale (tools/bench/rails.ts; --entries sets payments per file)
    rails: { type: 'boolean', default: false },
  },
});
const SECTIONS = new Set((args.only ?? 'idle,disbursement,post,get,batch').split(','));
const SIZES = args.quick
  ? { items: 100, posts: 100, getSeconds: 3, surfaceB: 1000, concurrency: 20, idleSettleSeconds: 2, idleSeconds: 3 }
  : { items: 5000, posts: 2000, getSeconds: 20, surfaceB: 10000, concurrency: 20, idleSettleSeconds: 15, idleSeconds: 30 };
// Sizes by hand (a slow machine): --items (at most 5,000), --posts, --get-seconds, --entries.
if (args.items) SIZES.items = Math.min(5000, Number(args.items));
if (args.posts) SIZES.posts = Number(args.posts);
if (args['get-seconds']) SIZES.getSeconds = Number(args['get-seconds']);
if (args.entries) SIZES.surfaceB = Number(args.entries);
// Requests each POST target serves, run to their end, before its measured window (docs/benchmarks.md "Warm-up").
const WARMUP = args.quick ? 20 : 200;
for (const [k, v] of Object.entries(SIZES)) if (!Number.isInteger(v) || v < 1) throw new Error(`bad size ${k}: ${v}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const t0 = performance.now();
const say = (line: string) => console.log(`${((performance.now() - t0) / 1000).toFixed(1).padStart(6)} s  ${line}`);
const BASELINE_QUEUE = 'bench-baseline';

// ---------------------------------------------------------------------------------------------
// Meters

type Proc = 'api' | 'worker' | 'temporal' | 'postgres' | 'bench';
const PROCS: Proc[] = ['api', 'worker', 'temporal', 'postgres', 'bench'];
interface Snapshot {
  at: number;
  cpu: Record<Proc, number>;
  statements: number;
  txStatements: number;
  transactions: number;
  /** Calls by statement text (with --statements). */
  queries?: Map<string, number>;
}

async function snapshot(stack: Stack): Promise<Snapshot> {
  const usage = process.cpuUsage();
  const cpu: Record<Proc, number> = {
    api: cpuMs(stack.apis[0]!.pid!),
    worker: treeCpuMs(stack.workers[0]!.pid!),
    temporal: stack.temporalPids().reduce((sum, pid) => sum + cpuMs(pid), 0),
    postgres: treeCpuMs(stack.pg!.pid),
    bench: (usage.user + usage.system) / 1000,
  };
  const s = await sql<{ calls: string; tx: string }>`
    select coalesce(sum(calls), 0)::text as calls,
      coalesce(sum(calls) filter (where query ~* '^\\s*(begin|commit|rollback|start transaction)'), 0)::text as tx
    from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())`.execute(stack.db);
  // The service's database only: on a cluster stack, Temporal's own databases share the server.
  const d = await sql<{ x: string }>`select (xact_commit + xact_rollback)::text as x from pg_stat_database where datname = current_database()`.execute(stack.db);
  let queries: Map<string, number> | undefined;
  if (args.statements) {
    const q = await sql<{ query: string; calls: string }>`
      select query, sum(calls)::text as calls from pg_stat_statements
      where dbid = (select oid from pg_database where datname = current_database()) group by query`.execute(stack.db);
    queries = new Map(q.rows.map((r) => [r.query, Number(r.calls)]));
  }
  return { at: performance.now(), cpu, statements: Number(s.rows[0]!.calls), txStatements: Number(s.rows[0]!.tx), transactions: Number(d.rows[0]!.x), queries };
}

/** With --statements: the statements run between two snapshots, by calls per unit, most first. */
function printStatements(label: string, a: Snapshot, b: Snapshot, units: number): void {
  if (!a.queries || !b.queries) return;
  const rows = [...b.queries]
    .map(([query, calls]) => [query, (calls - (a.queries!.get(query) ?? 0)) / units] as const)
    .filter(([, per]) => per >= 0.01)
    .sort((x, y) => y[1] - x[1]);
  console.log(`\nSQL per ${label}:`);
  for (const [query, per] of rows.slice(0, 25)) console.log(`${per.toFixed(2).padStart(7)}  ${query.replace(/\s+/g, ' ').slice(0, 160)}`);
}

/** Per-unit costs between two snapshots. */
interface Cost {
  seconds: number;
  cpuMsPer: Record<Proc, number>;
  statementsPer: number;
  txStatementsPer: number;
  transactionsPer: number;
}

function cost(a: Snapshot, b: Snapshot, units: number): Cost {
  const per = (v: number) => Number((v / units).toFixed(1));
  const cpuMsPer = Object.fromEntries(PROCS.map((p) => [p, per(b.cpu[p] - a.cpu[p])])) as Record<Proc, number>;
  return {
    seconds: (b.at - a.at) / 1000,
    cpuMsPer,
    statementsPer: per(b.statements - a.statements - (b.txStatements - a.txStatements)),
    txStatementsPer: per(b.txStatements - a.txStatements),
    transactionsPer: per(b.transactions - a.transactions),
  };
}

/**
 * Waits until the stack is quiet (API, worker, Temporal and PostgreSQL together under 100 ms of CPU
 * per second, three seconds running) or `maxSeconds` pass, so a measurement does not pay for the
 * work an earlier section left behind (autovacuum, the relay's backlog); returns the seconds waited.
 */
async function awaitQuiet(stack: Stack, maxSeconds = args.quick ? 10 : 90): Promise<number> {
  const total = () =>
    cpuMs(stack.apis[0]!.pid!) + treeCpuMs(stack.workers[0]!.pid!) + stack.temporalPids().reduce((sum, pid) => sum + cpuMs(pid), 0) + treeCpuMs(stack.pg!.pid);
  const t0 = performance.now();
  let quiet = 0;
  let last = total();
  while (quiet < 3 && performance.now() - t0 < maxSeconds * 1000) {
    await sleep(1000);
    const now = total();
    quiet = now - last < 100 ? quiet + 1 : 0;
    last = now;
  }
  return (performance.now() - t0) / 1000;
}

/**
 * Runs `fn` from `concurrency` clients until `total` calls or `durationMs` have passed; requests/s,
 * p50 and p99 in ms. With --latencies FILE and a `latencies` label, appends one line per call:
 * label, index, start (ms after the first call), latency (ms).
 */
async function load(concurrency: number, fn: (i: number) => Promise<boolean>, opts: { total?: number; durationMs?: number; latencies?: string }) {
  const lat: number[] = [];
  const lines: string[] = [];
  let next = 0;
  let errors = 0;
  const start = performance.now();
  const end = opts.durationMs ? start + opts.durationMs : Infinity;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if ((opts.total !== undefined && i >= opts.total) || performance.now() >= end) return;
        const s = performance.now();
        const ok = await fn(i).catch(() => false);
        lat.push(performance.now() - s);
        if (opts.latencies && args.latencies) lines.push(`${opts.latencies}\t${i}\t${(s - start).toFixed(0)}\t${lat[lat.length - 1]!.toFixed(1)}\n`);
        if (!ok) errors++;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  // Written once the load is over, so the file costs the measured requests nothing.
  if (lines.length > 0) appendFileSync(args.latencies!, lines.join(''));
  lat.sort((x, y) => x - y);
  const pct = (p: number) => Math.round(lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))] ?? 0);
  return { count: lat.length, errors, seconds, rps: lat.length / seconds, p50: pct(50), p99: pct(99) };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  if (args.rails) return void (await runRailsBench({ entries: args.entries ? Number(args.entries) : args.quick ? 1000 : 10_000, json: args.json }));
  Runtime.install({ logger: new DefaultLogger('WARN') });
  // package.json "engines": the service runs on Node ^22.12 or 24; CI and the Dockerfile use 24.
  if (Number(process.versions.node.split('.')[0]) < 22) {
    say(`WARNING: Node ${process.versions.node} is not a supported runtime (package.json "engines"); run the bench on Node 24 (see .ci/run) for figures comparable with docs/benchmarks.md`);
  }
  say(`bench${args.quick ? ' --quick' : ''} on Node ${process.versions.node} (every process of the stack runs this node): ${JSON.stringify(SIZES)}`);
  const stack = await startStack({
    apis: 1,
    workers: 1,
    statements: true,
    supervise: false,
    // --cluster: the same figures on a two-node Temporal cluster on PostgreSQL (tools/temporal-cluster)
    clusterNodes: args.cluster ? 2 : 0,
    // a benchmark measures capacity, not the per-key rate limit (docs/security.md)
    env: { RATE_LIMIT_LIVE_PER_SECOND: '0', RATE_LIMIT_SANDBOX_PER_SECOND: '0' },
    log: (l) => say(`[stack] ${l}`) });
  let bare: ChildProcess | undefined;
  let minimal: ChildProcess | undefined;
  try {
    await sql`create extension if not exists pg_stat_statements`.execute(stack.db);
    const api = `http://127.0.0.1:${stack.apis[0]!.port}`;
    const business = await stack.createBusiness('Bench');
    const key = business.keys.sandbox;
    const call = async (method: string, path: string, body?: unknown, k = key, idem?: string) => {
      const res = await fetch(`${api}/sandbox/v1${path}`, {
        method,
        headers: { Authorization: `Bearer ${k}`, 'Content-Type': 'application/json', ...(idem ? { 'Idempotency-Key': idem } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
      return text ? JSON.parse(text) : undefined;
    };
    await call('POST', '/sandbox/fund', { amount: '9000000' });

    // The baseline worker (this process) on the stack's Temporal server.
    const nativeConnection = await NativeConnection.connect({ address: stack.temporalAddress });
    const worker = await Worker.create({
      connection: nativeConnection,
      taskQueue: BASELINE_QUEUE,
      workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
      activities: {
        noop: async () => {},
        // The minimal payout's two local activities: one UPDATE each (tools/bench/workflows.ts).
        hold: async (id: string) => {
          await sql`update bench_minimal_payouts set status = 'held' where id = ${id}`.execute(stack.db);
        },
        settle: async (id: string) => {
          await sql`update bench_minimal_payouts set status = 'settled' where id = ${id}`.execute(stack.db);
        },
      },
      maxConcurrentWorkflowTaskExecutions: 100,
      maxCachedWorkflows: 2000,
    });
    const workerRun = worker.run();
    const client = new Client({ connection: await Connection.connect({ address: stack.temporalAddress }) });
    const results: Record<string, unknown> = {};

    // Polls a `select count(*) as n` every 200 ms until it counts nothing.
    const untilNone = async (count: RawBuilder<{ n: string }>) => {
      while ((await count.execute(stack.db)).rows[0]!.n !== '0') await sleep(200);
    };
    const run = Date.now().toString(36);
    const arrivalMs = parseDuration(process.env.SANDBOX_ARRIVAL ?? 'PT0.2S');
    let a: Snapshot;
    let b: Snapshot;

    // 0. Idle footprint ----------------------------------------------------------------------------
    // RSS and CPU of the API and the worker (with their children) with no traffic: after the stack
    // has been quiet for idleSettleSeconds, CPU over idleSeconds, RSS at the end of that window.
    if (SECTIONS.has('idle')) {
      say(`idle: API and worker quiet for ${SIZES.idleSettleSeconds} s, then CPU over ${SIZES.idleSeconds} s`);
      const pids = { api: stack.apis[0]!.pid!, worker: stack.workers[0]!.pid! };
      await sleep(SIZES.idleSettleSeconds * 1000);
      const cpu0 = { api: treeCpuMs(pids.api), worker: treeCpuMs(pids.worker) };
      const w0 = performance.now();
      await sleep(SIZES.idleSeconds * 1000);
      const window = (performance.now() - w0) / 1000;
      const mb = (bytes: number) => bytes / 1024 / 1024;
      const idle = {
        api: { rss_mb: mb(treeRssBytes(pids.api)), cpu_ms_per_second: (treeCpuMs(pids.api) - cpu0.api) / window },
        worker: { rss_mb: mb(treeRssBytes(pids.worker)), cpu_ms_per_second: (treeCpuMs(pids.worker) - cpu0.worker) / window },
      };
      const total = idle.api.rss_mb + idle.worker.rss_mb;
      say(`  API ${idle.api.rss_mb.toFixed(0)} MB RSS, ${idle.api.cpu_ms_per_second.toFixed(1)} ms CPU/s; worker ${idle.worker.rss_mb.toFixed(0)} MB RSS, ${idle.worker.cpu_ms_per_second.toFixed(1)} ms CPU/s; together ${total.toFixed(0)} MB`);
      results.idle = { ...idle, total_rss_mb: total, window_seconds: window };
    }

    // 1. Disbursement vs no-op children -------------------------------------------------------
    if (SECTIONS.has('disbursement')) {
      say(`floor: ${SIZES.items} no-op child workflows, window 300, ${LONG_RUN_ITEMS} per run (the disbursement's runs before its claims started the items)`);
      a = await snapshot(stack);
      await client.workflow.execute('floorParent', {
        taskQueue: BASELINE_QUEUE,
        workflowId: `bench-floor-${Date.now()}`,
        args: [{ count: SIZES.items, window: 300, perRun: LONG_RUN_ITEMS, upserts: 0 }],
      });
      b = await snapshot(stack);
      const floor = cost(a, b, SIZES.items);
      const floorRate = SIZES.items / floor.seconds;
      say(`  ${floorRate.toFixed(1)} children/s`);

      // The same parent over the least a durable payout does (hold, a timer of the sandbox arrival,
      // settle: tools/bench/workflows.ts minimalPayout), one bench_minimal_payouts row each: what
      // any payout child costs, beside the issue's no-op children (docs/benchmarks.md).
      await sql`create table if not exists bench_minimal_payouts (id text primary key, amount text not null, status text not null, created_at timestamptz not null default now())`.execute(stack.db);
      const durableParentId = `bench-durable-floor-${Date.now()}`;
      await sql`insert into bench_minimal_payouts (id, amount, status) select ${durableParentId} || '-' || g, '1', 'submitted' from generate_series(0, ${SIZES.items - 1}) g`.execute(stack.db);
      say(`durable floor: ${SIZES.items} minimal durable payout children (hold, timer ${arrivalMs} ms, settle), window 300, ${LONG_RUN_ITEMS} per run (issue #39's yardstick)`);
      a = await snapshot(stack);
      await client.workflow.execute('floorParent', {
        taskQueue: BASELINE_QUEUE,
        workflowId: durableParentId,
        args: [{ count: SIZES.items, window: 300, perRun: LONG_RUN_ITEMS, upserts: 0, child: 'minimalPayout', childArrivalMs: arrivalMs }],
      });
      b = await snapshot(stack);
      const durableFloor = cost(a, b, SIZES.items);
      const durableFloorRate = SIZES.items / durableFloor.seconds;
      say(`  ${durableFloorRate.toFixed(1)} durable children/s`);

      say(`disbursement: ${SIZES.items} items`);
      const items = Array.from({ length: SIZES.items }, (_, i) => ({
        channel: 'service_user_usdc',
        source_amount: `${1 + (i % 50)}.${String(i % 100).padStart(2, '0')}`,
        recipient: { type: 'service_user', handle: `@b${run}_${i}` },
        reference: `bench-${run}-${i}`,
      }));
      const tc = performance.now();
      const created = await call('POST', '/disbursements', { name: `Bench ${run}`, items });
      const createSeconds = (performance.now() - tc) / 1000;
      const approver = await call('POST', '/api-keys', { name: 'bench approver' });
      const submitted = await call('POST', `/disbursements/${created.id}/submit-for-approval`);
      await call('POST', `/disbursements/${created.id}/approvals/${submitted.revision_id}/approve`, undefined, approver.key);
      a = await snapshot(stack);
      await call('POST', `/disbursements/${created.id}/launch`);
      let final: any;
      for (let last = 0; ; ) {
        final = await call('GET', `/disbursements/${created.id}`);
        if (final.status === 'completed' || final.status === 'completed_with_failures') break;
        if (performance.now() - last > 10_000) {
          last = performance.now();
          say(`  ${JSON.stringify(final.progress)}`);
        }
        await sleep(500);
      }
      b = await snapshot(stack);
      const span = await sql<{ seconds: string }>`
        select extract(epoch from (max(p.updated_at) - d.launched_at))::text as seconds
        from disbursements d join payouts p on p.disbursement_id = d.id where d.id = ${created.id} group by d.launched_at`.execute(stack.db);
      const dsbSeconds = Number(span.rows[0]!.seconds);
      const dsb = cost(a, b, SIZES.items);
      printStatements('disbursement item', a, b, SIZES.items);
      const dsbRate = final.progress.succeeded / dsbSeconds;
      say(`  ${dsbRate.toFixed(1)} payouts/s (${final.progress.succeeded} succeeded, ${final.progress.failed} failed, ${dsbSeconds.toFixed(1)} s)`);
      results.disbursement = {
        items: SIZES.items, seconds: dsbSeconds, payouts_per_second: dsbRate, create_seconds: createSeconds,
        floor_children_per_second: floorRate, floor_seconds: floor.seconds, ratio: dsbRate / floorRate, cost: dsb, floor_cost: floor,
        durable_floor_children_per_second: durableFloorRate, durable_floor_seconds: durableFloor.seconds, durable_ratio: dsbRate / durableFloorRate, durable_floor_cost: durableFloor,
      };
    }

    // 2. POST /payouts vs a bare one-local-activity workflow start -----------------------------
    // Each of the three targets first serves WARMUP requests at the same concurrency, not counted
    // and run to their end before the measured window opens: the figures are steady state, not
    // a process's first second (JIT, pool connections; docs/benchmarks.md "Warm-up").
    if (SECTIONS.has('post')) {
      say(`bare client: ${SIZES.posts} one-local-activity workflow starts at ${SIZES.concurrency} concurrent (after ${WARMUP} not counted)`);
      const startOne = (ids: string[], prefix: string) => async (i: number) => {
        const id = `${prefix}-${run}-${i}`;
        await client.workflow.start('oneLocalActivity', { taskQueue: BASELINE_QUEUE, workflowId: id });
        ids.push(id);
        return true;
      };
      const warmIds: string[] = [];
      await load(SIZES.concurrency, startOne(warmIds, 'bench-one-warm'), { total: WARMUP });
      await Promise.all(warmIds.map((id) => client.workflow.getHandle(id).result()));
      a = await snapshot(stack);
      const startIds: string[] = [];
      const bareStart = await load(SIZES.concurrency, startOne(startIds, 'bench-one'), { total: SIZES.posts, latencies: 'bare start' });
      await Promise.all(startIds.map((id) => client.workflow.getHandle(id).result()));
      b = await snapshot(stack);
      const bareStartCost = cost(a, b, SIZES.posts);
      say(`  ${bareStart.rps.toFixed(1)} starts/s, p50 ${bareStart.p50} ms, p99 ${bareStart.p99} ms`);

      // The minimal durable payout: the floor POST /payouts is measured against.
      const minimalPort = await freePort();
      minimal = spawn(process.execPath, ['--import', 'tsx', 'tools/bench/minimal-payout.ts'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: stack.pg!.url, TEMPORAL_ADDRESS: stack.temporalAddress, TASK_QUEUE: BASELINE_QUEUE, ARRIVAL_MS: String(arrivalMs), PORT: String(minimalPort) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve, reject) => {
        minimal!.stdout!.on('data', (d) => String(d).includes('minimal listening') && resolve());
        minimal!.once('exit', (c) => reject(new Error(`minimal payout server exited ${c}`)));
      });
      const postMinimal = async () => {
        const res = await fetch(`http://127.0.0.1:${minimalPort}/payouts`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ source_amount: '10' }),
        });
        await res.arrayBuffer();
        return res.status === 201;
      };
      const minimalSettled = () => untilNone(sql<{ n: string }>`select count(*)::text as n from bench_minimal_payouts where status <> 'settled'`);
      say(`minimal payout: ${SIZES.posts} POST at ${SIZES.concurrency} concurrent (insert one row, start hold -> timer ${arrivalMs} ms -> settle; after ${WARMUP} not counted)`);
      await load(SIZES.concurrency, postMinimal, { total: WARMUP });
      await minimalSettled();
      a = await snapshot(stack);
      const minimalCpu0 = cpuMs(minimal.pid!);
      const minimalT0 = performance.now();
      const minimalPost = await load(SIZES.concurrency, postMinimal, { total: SIZES.posts, latencies: 'minimal payout' });
      await minimalSettled();
      // Accepted and run to the end: the first request to the last settlement.
      const minimalFinalSeconds = (performance.now() - minimalT0) / 1000;
      b = await snapshot(stack);
      const minimalCost = cost(a, b, minimalPost.count - minimalPost.errors);
      // Its handler process stands where the API stands in the other rows.
      minimalCost.cpuMsPer.api = Number(((cpuMs(minimal.pid!) - minimalCpu0) / (minimalPost.count - minimalPost.errors)).toFixed(1));
      say(`  ${minimalPost.rps.toFixed(1)} requests/s, p50 ${minimalPost.p50} ms, p99 ${minimalPost.p99} ms, ${minimalPost.errors} errors`);
      minimal.kill('SIGTERM');

      say(`POST /payouts: ${SIZES.posts} requests at ${SIZES.concurrency} concurrent (after ${WARMUP} not counted)`);
      const recipient = await call('POST', '/recipients', {
        type: 'bank_account', country: 'MX', currency: 'MXN', name: 'Ana López', kind: 'individual',
        bank_account: { holder_name: 'Ana López', clabe: '002010077777777771', recipient_kind: 'individual' },
      });
      const postPayout = (prefix: string) => async (i: number) => {
        const res = await fetch(`${api}/sandbox/v1/payouts`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': `${prefix}-${run}-${i}` },
          body: JSON.stringify({ channel: 'spei_mxn', recipient_id: recipient.id, source_amount: '10', reference: `${prefix} ${i}` }),
        });
        await res.arrayBuffer();
        return res.status === 201;
      };
      // Every payout accepted since `since` run to its end.
      const payoutsFinal = (since: Date) =>
        untilNone(sql<{ n: string }>`select count(*)::text as n from payouts where created_at >= ${since} and disbursement_id is null and status not in ('succeeded', 'failed')`);
      const warmSince = new Date();
      await load(SIZES.concurrency, postPayout('bench-warm'), { total: WARMUP });
      await payoutsFinal(warmSince);
      a = await snapshot(stack);
      const since = new Date();
      const postsT0 = performance.now();
      const posts = await load(SIZES.concurrency, postPayout('bench'), { total: SIZES.posts, latencies: 'POST /payouts' });
      // Every accepted payout run to its end: the CPU and SQL per payout cover its whole life.
      await payoutsFinal(since);
      const postsFinalSeconds = (performance.now() - postsT0) / 1000;
      b = await snapshot(stack);
      const postCost = cost(a, b, posts.count - posts.errors);
      printStatements('POST /payouts payout, run to the end', a, b, posts.count - posts.errors);
      say(`  ${posts.rps.toFixed(1)} requests/s, p50 ${posts.p50} ms, p99 ${posts.p99} ms, ${posts.errors} errors`);
      results.post_payouts = {
        ...posts,
        bare_start: bareStart,
        ratio: posts.rps / bareStart.rps,
        cost: postCost,
        bare_cost: bareStartCost,
        // Requests/s counts the answers; payouts run to their end per second counts the whole life
        // (the answer no longer waits for the workflow start: docs/benchmarks.md), for both.
        final_per_second: (posts.count - posts.errors) / postsFinalSeconds,
        minimal: { ...minimalPost, final_per_second: (minimalPost.count - minimalPost.errors) / minimalFinalSeconds },
        minimal_ratio: posts.rps / minimalPost.rps,
        minimal_final_ratio: (posts.count - posts.errors) / postsFinalSeconds / ((minimalPost.count - minimalPost.errors) / minimalFinalSeconds),
        minimal_cost: minimalCost,
      };
    }

    // 3. GET /payouts?limit=50 vs bare Hono + pg ------------------------------------------------
    if (SECTIONS.has('get')) {
      // Alone (--only get), the list would be empty: 60 payouts so a page is full, as in a full run.
      if (!SECTIONS.has('post') && !SECTIONS.has('disbursement')) {
        const recipient = await call('POST', '/recipients', {
          type: 'bank_account', country: 'MX', currency: 'MXN', name: 'Ana López', kind: 'individual',
          bank_account: { holder_name: 'Ana López', clabe: '002010077777777771', recipient_kind: 'individual' },
        });
        for (let i = 0; i < 60; i++) await call('POST', '/payouts', { channel: 'spei_mxn', recipient_id: recipient.id, source_amount: '10', reference: `bench ${i}` }, key, `bench-get-${run}-${i}`);
      }
      const barePort = await freePort();
      // STACK_CPU_PROF_DIR profiles the bare server too (written when it exits on SIGTERM below).
      const profile = process.env.STACK_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.STACK_CPU_PROF_DIR}`] : [];
      bare = spawn(process.execPath, [...profile, '--import', 'tsx', 'tools/bench/bare-list.ts'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: stack.pg!.url, BUSINESS_ID: business.business_id, PORT: String(barePort) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve, reject) => {
        bare!.stdout!.on('data', (d) => String(d).includes('bare listening') && resolve());
        bare!.once('exit', (c) => reject(new Error(`bare server exited ${c}`)));
      });
      const getFrom = (url: string, headers: Record<string, string>) => async () => {
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        return res.status === 200;
      };
      // Each target first serves GETs for a tenth of the time (at least 1 s), not counted.
      const warmUp = (get: () => Promise<boolean>) => load(SIZES.concurrency, get, { durationMs: Math.max(1000, SIZES.getSeconds * 100) });
      const getLoad = (get: () => Promise<boolean>, label: string) => load(SIZES.concurrency, get, { durationMs: SIZES.getSeconds * 1000, latencies: label });
      say(`bare Hono + pg: GET /payouts?limit=50 for ${SIZES.getSeconds} s at ${SIZES.concurrency} concurrent (after a warm-up not counted)`);
      const bareList = getFrom(`http://127.0.0.1:${barePort}/payouts?limit=50`, {});
      await warmUp(bareList);
      const bareCpu0 = cpuMs(bare.pid!);
      const bareGet = await getLoad(bareList, 'bare GET');
      const bareCpuPer = (cpuMs(bare.pid!) - bareCpu0) / bareGet.count;
      say(`  ${bareGet.rps.toFixed(1)} requests/s, p99 ${bareGet.p99} ms`);
      bare.kill('SIGTERM');
      say(`API: GET /payouts?limit=50 for ${SIZES.getSeconds} s at ${SIZES.concurrency} concurrent (after a warm-up not counted)`);
      const apiList = getFrom(`${api}/sandbox/v1/payouts?limit=50`, { Authorization: `Bearer ${key}` });
      await warmUp(apiList);
      a = await snapshot(stack);
      const apiGet = await getLoad(apiList, 'GET /payouts');
      b = await snapshot(stack);
      say(`  ${apiGet.rps.toFixed(1)} requests/s, p99 ${apiGet.p99} ms`);
      results.get_payouts = { ...apiGet, bare: bareGet, ratio: apiGet.rps / bareGet.rps, api_cpu_ms_per_request: cost(a, b, apiGet.count).cpuMsPer.api, bare_cpu_ms_per_request: bareCpuPer };
    }

    // 4. Surface B batch ---------------------------------------------------------------------------
    if (SECTIONS.has('batch')) {
      // The floor: a bare client (this process, one connection) starting as many no-op workflows
      // (tools/bench/workflows.ts minimalStart, run by the baseline worker) as fast as it can.
      const startFloor = async (inFlight: number) => {
        say(`bare client: ${SIZES.surfaceB} no-op workflow starts, ${inFlight} in flight (after ${(await awaitQuiet(stack)).toFixed(0)} s waiting for a quiet stack)`);
        const c0 = await snapshot(stack);
        const r = await load(inFlight, async (i) => {
          await client.workflow.start('minimalStart', { taskQueue: BASELINE_QUEUE, workflowId: `bench-start-${run}-${inFlight}-${i}` });
          return true;
        }, { total: SIZES.surfaceB });
        const cpuMsPerStart = cost(c0, await snapshot(stack), SIZES.surfaceB).cpuMsPer;
        say(`  ${r.seconds.toFixed(2)} s (${r.rps.toFixed(0)} starts/s, ${r.errors} errors); CPU ms per start ${JSON.stringify(cpuMsPerStart)}`);
        // Let the baseline worker finish them before the next measurement.
        for (let i = 0; i < 120; i++) {
          const open = await client.workflow.count(`WorkflowType = 'minimalStart' AND ExecutionStatus = 'Running'`).catch(() => undefined);
          if (!open || open.count === 0) break;
          await sleep(500);
        }
        return { in_flight: inFlight, seconds: r.seconds, starts_per_second: r.rps, errors: r.errors, cpu_ms_per_start: cpuMsPerStart };
      };
      const floors = [await startFloor(64), await startFloor(128)];
      const startFloorBest = floors.reduce((x, y) => (y.errors === 0 && y.seconds < x.seconds ? y : x));
      const batchUrl = `${api}/sandbox/claim/v1/disbursements/batch`;
      const entries = Array.from({ length: SIZES.surfaceB }, (_, i) => ({ recipientPhone: `+5255${String(10000000 + i).slice(-8)}`, amountUsd: '1.00', reference: `bench-b-${run}-${i}` }));
      say(`Surface B batch of ${SIZES.surfaceB} (after ${(await awaitQuiet(stack)).toFixed(0)} s waiting for a quiet stack)`);
      const cb = await snapshot(stack);
      const tb = performance.now();
      const bres = await fetch(batchUrl, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': `bench-b-${run}` },
        body: JSON.stringify({ disbursements: entries, batchReference: `bench-${run}`, note: 'bench' }),
      });
      const btext = await bres.text();
      const bSeconds = (performance.now() - tb) / 1000;
      // How long until every entry's workflow has started: the workflow-start outbox rows of the
      // batch's payouts all carry started_at (the API starts them after the commit; the relay starts
      // whatever it left behind). The payout ids are read once; each poll reads only unstarted rows
      // (their partial index): the same count as a join on payouts, which took PostgreSQL 3 s a poll
      // once earlier sections had filled the tables (docs/benchmarks.md, ninth session).
      let allStartedSeconds: number | undefined;
      if (bres.ok) {
        const batchId = (JSON.parse(btext) as { id: string }).id;
        const ids = (await stack.db.selectFrom('payouts').select('id').where('claim_batch_id', '=', batchId).execute()).map((r) => r.id);
        const deadline = performance.now() + 600_000;
        for (;;) {
          const { n } = await stack.db
            .selectFrom('workflow_starts')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('started_at', 'is', null)
            .where(sql<boolean>`workflow_id = any(${ids}::text[])`)
            .executeTakeFirstOrThrow();
          if (Number(n) === 0) {
            allStartedSeconds = (performance.now() - tb) / 1000;
            break;
          }
          if (performance.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
      const batchCpuMsPerStart = cost(cb, await snapshot(stack), SIZES.surfaceB).cpuMsPer;
      const surfaceB =
        bres.status === 404
          ? { built: false, status: 404 }
          : {
              built: true, status: bres.status, seconds: bSeconds, all_started_seconds: allStartedSeconds, body: bres.ok ? undefined : btext.slice(0, 200),
              start_floor: startFloorBest, start_floors: floors, cpu_ms_per_start: batchCpuMsPerStart,
              start_ratio: allStartedSeconds !== undefined ? allStartedSeconds / startFloorBest.seconds : undefined,
            };
      say(`Surface B batch of ${SIZES.surfaceB}: ${surfaceB.built ? `HTTP ${bres.status} in ${bSeconds.toFixed(2)} s${bres.ok ? `; every entry's workflow started after ${allStartedSeconds?.toFixed(2) ?? '(not within 600 s)'} s (floor ${startFloorBest.seconds.toFixed(2)} s at ${startFloorBest.in_flight} in flight); CPU ms per entry ${JSON.stringify(batchCpuMsPerStart)}` : `: ${btext.slice(0, 300)}`}` : 'not built (404)'}`);
      results.surface_b_batch = { entries: SIZES.surfaceB, ...surfaceB };
    }

    worker.shutdown();
    await workerRun;
    await nativeConnection.close();
    await client.connection.close();

    // A partial run (--only) prints its sections' results as they are, not the report's table.
    if (args.only) console.log(JSON.stringify(results, (_k, v) => (typeof v === 'number' ? Number(v.toFixed(2)) : v), 1));
    else printReport(results as any);
    if (args.json) console.log(JSON.stringify(results));
  } finally {
    bare?.kill('SIGKILL');
    minimal?.kill('SIGKILL');
    await stack.stop();
  }
}

const pct = (v: number) => `${(v * 100).toFixed(0)} %`;
const f1 = (v: number) => v.toFixed(1);

function printReport(r: any) {
  const d = r.disbursement;
  const p = r.post_payouts;
  const g = r.get_payouts;
  const b = r.surface_b_batch;
  const n = (v: number) => v.toLocaleString('en-US');
  const rows = [
    [`${n(d.items)}-item disbursement, payouts/s launch to last final item`, `${f1(d.payouts_per_second)}/s (${f1(d.seconds)} s)`, `${f1(d.floor_children_per_second)} no-op children/s (${f1(d.floor_seconds)} s)`, pct(d.ratio), '>= 60 %'],
    [`POST /payouts at ${SIZES.concurrency} concurrent, requests/s (p50, p99)`, `${f1(p.rps)}/s (${p.p50} ms, ${p.p99} ms)`, `${f1(p.minimal.rps)} minimal durable payouts/s (${p.minimal.p50} ms, ${p.minimal.p99} ms)`, pct(p.minimal_ratio), '>= 80 %, p99 < 250 ms'],
    [`  the same, against durable payout children`, `${f1(d.payouts_per_second)}/s`, `${f1(d.durable_floor_children_per_second)} minimal durable payout children/s (${f1(d.durable_floor_seconds)} s)`, pct(d.durable_ratio), '(the payout in each item)'],
    [`  the same, payouts accepted and run to their end per second`, `${f1(p.final_per_second)}/s`, `${f1(p.minimal.final_per_second)} minimal durable payouts/s`, pct(p.minimal_final_ratio), '(whole life)'],
    [`  the same, against the bare start`, `${f1(p.rps)}/s`, `${f1(p.bare_start.rps)} one-local-activity starts/s (${p.bare_start.p50} ms, ${p.bare_start.p99} ms)`, pct(p.ratio), '(kept for comparison)'],
    [`GET /payouts?limit=50 at ${SIZES.concurrency} concurrent, requests/s (p99)`, `${f1(g.rps)}/s (${g.p99} ms)`, `${f1(g.bare.rps)}/s bare Hono + pg (${g.bare.p99} ms)`, pct(g.ratio), '>= 70 %'],
    [`${n(b.entries)}-entry Surface B batch accepted`, b.built ? (b.status < 300 ? `${b.seconds.toFixed(2)} s` : `HTTP ${b.status} after ${b.seconds.toFixed(2)} s`) : 'not built', '(none)', '-', '< 5 s'],
    [
      `  ... until every entry's workflow has started`,
      b.built && b.status < 300 ? (b.all_started_seconds !== undefined ? `${b.all_started_seconds.toFixed(2)} s` : 'not within 600 s') : '-',
      b.start_floor ? `bare client: ${n(b.entries)} no-op workflow starts in ${b.start_floor.seconds.toFixed(2)} s (${b.start_floor.in_flight} in flight)` : '(none)',
      b.start_ratio !== undefined ? `${b.start_ratio.toFixed(2)}x` : '-',
      '<= 1.5x',
    ],
  ];
  const idle = r.idle;
  if (idle) {
    const i = (x: { rss_mb: number; cpu_ms_per_second: number }) => `${x.rss_mb.toFixed(0)} MB RSS, ${x.cpu_ms_per_second.toFixed(1)} ms CPU/s`;
    rows.push([`API + worker at idle (RSS; CPU ms per second over ${idle.window_seconds.toFixed(0)} s)`, `${idle.total_rss_mb.toFixed(0)} MB (API ${i(idle.api)}; worker ${i(idle.worker)})`, '(none)', '-', '< 250 MB together']);
  }
  console.log(
    `\nBenchmark (${new Date().toISOString().slice(0, 16)}Z, Node ${process.versions.node}, Temporal ${args.cluster ? 'cluster of 2 nodes on PostgreSQL' : 'dev server on SQLite'}): one run, each figure right after its baseline\n`,
  );
  console.log(table(['figure', 'measured', 'bare baseline in the same run', 'ratio', 'target'], rows));
  const c = (x: any) => [x.cpuMsPer.api, x.cpuMsPer.worker, x.cpuMsPer.temporal, x.cpuMsPer.postgres, x.cpuMsPer.bench].map(String);
  console.log('\nCPU ms per unit, by process (/proc/<pid>/stat), and SQL per unit (pg_stat_statements calls; BEGIN/COMMIT apart):\n');
  console.log(
    table(
      ['unit', 'API', 'worker', 'Temporal server', 'PostgreSQL', 'bench process (baseline worker)', 'SQL statements', '+ BEGIN/COMMIT', 'transactions'],
      [
        ['disbursement item (payout)', ...c(d.cost), String(d.cost.statementsPer), String(d.cost.txStatementsPer), String(d.cost.transactionsPer)],
        ['no-op child workflow (floor)', ...c(d.floor_cost), String(d.floor_cost.statementsPer), String(d.floor_cost.txStatementsPer), String(d.floor_cost.transactionsPer)],
        ['minimal durable payout child (durable floor)', ...c(d.durable_floor_cost), String(d.durable_floor_cost.statementsPer), String(d.durable_floor_cost.txStatementsPer), String(d.durable_floor_cost.transactionsPer)],
        ['POST /payouts payout, accepted and run to the end', ...c(p.cost), String(p.cost.statementsPer), String(p.cost.txStatementsPer), String(p.cost.transactionsPer)],
        ['minimal durable payout (handler in the API column)', ...c(p.minimal_cost), String(p.minimal_cost.statementsPer), String(p.minimal_cost.txStatementsPer), String(p.minimal_cost.transactionsPer)],
        ['one-local-activity workflow (bare start)', ...c(p.bare_cost), String(p.bare_cost.statementsPer), String(p.bare_cost.txStatementsPer), String(p.bare_cost.transactionsPer)],
        ['GET /payouts?limit=50 request', String(g.api_cpu_ms_per_request), '-', '-', '-', `bare server: ${g.bare_cpu_ms_per_request.toFixed(1)}`, '-', '-', '-'],
      ],
    ),
  );
  console.log('\nThe machine is shared and its speed varies; compare the ratios, not the absolute figures.');
}

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(String(err?.stack ?? err));
    process.exit(1);
  },
);
