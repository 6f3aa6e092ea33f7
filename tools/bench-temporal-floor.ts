/**
 * `npm run bench:floor`: what one child workflow costs on this machine, with no payout work at all
 * (docs/benchmarks.md). Starts its own Temporal dev server exactly as `npm run dev` does (SQLite
 * in WAL mode, src/temporal/dev-server.ts) in a temporary directory, runs a worker in this process,
 * and runs tools/floor/workflows.ts `floorParent`: `--count` no-op children, 300 in flight, 500 per
 * run, the disbursement workflow's shape. Twice: children that return at once, and children that
 * upsert a search attribute twice (as a payout publishes PayoutStatus). Prints per variant: the
 * seconds, children per second, and CPU milliseconds per child of the worker (this process) and of
 * the server, and what a 5,000-item batch would take at that rate before any payout work.
 *
 * Options: --count N (default 2000), --window N (300), --per-run N (500), --json.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startDevServer } from '../src/temporal/dev-server';

const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '2000' },
    window: { type: 'string', default: '300' },
    'per-run': { type: 'string', default: '500' },
    json: { type: 'boolean', default: false },
  },
});
const count = Number(args.count);
const window = Number(args.window);
const perRun = Number(args['per-run']);

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat (100 ticks/s). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14 and 15)
}

async function main() {
  for (const [name, v] of Object.entries({ count, window, perRun })) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a positive integer`);
  }
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const dir = mkdtempSync(join(tmpdir(), 'bench-floor-'));
  const server = await startDevServer({ dbFile: join(dir, 'temporal.sqlite'), headless: true });
  const serverPid = server.process.pid!;
  const results: Record<string, number | string>[] = [];
  try {
    console.log(`Temporal floor: ${count} no-op child workflows per variant, window ${window}, ${perRun} per run (server ${server.address})`);
    const { code } = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./floor/workflows.ts', import.meta.url)),
      logger: new DefaultLogger('WARN'),
    });
    const connection = await NativeConnection.connect({ address: server.address });
    const taskQueue = 'floor';
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: { code },
      maxConcurrentWorkflowTaskExecutions: 100,
      maxCachedWorkflows: 2000,
    });
    const running = worker.run();
    const client = new Client({ connection: await Connection.connect({ address: server.address }) });

    for (const upserts of [0, 2]) {
      const cpu0 = process.cpuUsage();
      const srv0 = cpuSeconds(serverPid);
      const t0 = performance.now();
      const n = await client.workflow.execute('floorParent', {
        taskQueue,
        workflowId: `floor-${upserts}-${Date.now()}`,
        args: [{ count, window, perRun, upserts }],
      });
      // The parent returns once every child of its last run has completed.
      const seconds = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      const workerMs = (cpu.user + cpu.system) / 1000 / Number(n);
      const serverMs = ((cpuSeconds(serverPid) - srv0) * 1000) / Number(n);
      const rate = Number(n) / seconds;
      const row = {
        variant: upserts === 0 ? 'no-op child' : 'child + 2 search-attribute upserts',
        children: Number(n),
        seconds: Number(seconds.toFixed(2)),
        children_per_second: Number(rate.toFixed(1)),
        worker_cpu_ms_per_child: Number(workerMs.toFixed(1)),
        server_cpu_ms_per_child: Number(serverMs.toFixed(1)),
        seconds_for_5000: Number((5000 / rate).toFixed(1)),
      };
      results.push(row);
      console.log(
        `  ${row.variant}: ${row.seconds} s, ${row.children_per_second} children/s; CPU per child: worker ${row.worker_cpu_ms_per_child} ms, ` +
          `server ${row.server_cpu_ms_per_child} ms; 5,000 children at this rate: ${row.seconds_for_5000} s`,
      );
    }
    worker.shutdown();
    await running;
    await connection.close();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (args.json) console.log(JSON.stringify(results));
}

main().catch((err) => {
  console.error(String(err?.stack ?? err));
  process.exit(1);
});
