import './node-version';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfig } from '../config';
import { relayTasks } from '../core/relay-tasks';
import { startRelay } from '../core/relay';
import { startRailHealthChecks, startRailPollers } from '../core/rails/lifecycle';
import { startSolanaWatchers } from '../core/funding/crypto-lifecycle';
import { startRetention } from '../core/retention';
import { startScreening } from '../core/screening/running';
import { startRateRefresher } from '../core/rates/refresher';
import { DISBURSEMENT_WORKFLOW_TYPE } from '../../workflows/disbursement.contract';
import { prepareWorkflowBundle } from '../temporal/bundle';
import { connectTemporal } from '../temporal/client';
import { freePort } from '../temporal/dev-server';
import { workerStartRefusal } from '../temporal/patch-guard';
import { taskQueueFor } from '../temporal/task-queues';
import { temporalConnectionOptions } from '../temporal/connection-options';
import { createWorker, ensureSearchAttributes, sdkPrometheusTelemetry } from '../temporal/worker';
import { startMetricsServer } from './metrics-server';
import { buildCore, closeCore } from './runtime';

/**
 * `npm run worker`: the Temporal worker process (any number may run) and the outbox relay. Serves
 * `GET /metrics` on METRICS_PORT (default 9464): its own metrics and the Temporal SDK's.
 */
const config = loadConfig();
// The SDK's exporter on a free loopback port, merged into /metrics; if that port is taken, the worker runs without it.
const sdkLogger = new DefaultLogger(config.LOG_LEVEL === 'debug' ? 'DEBUG' : 'WARN');
let sdkMetricsPort: number | undefined = await freePort();
try {
  Runtime.install({ logger: sdkLogger, telemetryOptions: sdkPrometheusTelemetry(sdkMetricsPort) });
} catch (err) {
  console.error(`Temporal SDK metrics exporter not started (${(err as Error).message}); running without temporal_* metrics`);
  sdkMetricsPort = undefined;
  Runtime.install({ logger: sdkLogger });
}
if (!config.DATABASE_URL) {
  console.error('npm run worker needs DATABASE_URL (PGlite is single-process; use `npm run dev` for the all-in-one mode)');
  process.exit(2);
}
const temporalOptions = temporalConnectionOptions(config);
const address = temporalOptions.address;
await ensureSearchAttributes(temporalOptions, config.TEMPORAL_NAMESPACE);
// Retired workflow patches: refuse to start while an open run may lack a marker (docs/operations.md "Retiring a workflow patch").
if (config.WORKER_SKIP_PATCH_CHECK) {
  console.error('WARNING: WORKER_SKIP_PATCH_CHECK=true: retired-patch check skipped; an open run without a retired patch\'s marker fails on replay (docs/operations.md "Retiring a workflow patch")');
} else {
  const client = await connectTemporal(temporalOptions, config.TEMPORAL_NAMESPACE);
  const refusal = await workerStartRefusal(client);
  await client.connection.close();
  if (refusal) {
    console.error(refusal);
    process.exit(1);
  }
}
const core = await buildCore(config, { role: 'payouts_worker' });
const workflowBundle = await prepareWorkflowBundle({
  prebuilt: config.WORKFLOW_BUNDLE,
  outFile: join(tmpdir(), `payouts-workflows-${process.pid}.js`),
});
const { worker, connection } = await createWorker(core, { workflowBundle });
const stopRelay = startRelay(core, relayTasks, undefined, { databaseUrl: config.DATABASE_URL });
const stopRailChecks = await startRailHealthChecks(core);
const pollers = await startRailPollers(core);
if (pollers.length > 0) core.log.info({ rails: pollers }, 'live rail inbox pollers running');
const stopRates = await startRateRefresher(core);
const solanaWatchers = await startSolanaWatchers(core);
if (solanaWatchers.length > 0) core.log.info({ environments: solanaWatchers }, 'solana deposit watchers running');
await startRetention(core);
// The worker fetches the sanctions lists and reacts to changes (docs/screening.md "Versions and refresh").
const stopScreening = startScreening(core, { fetch: true });
// A metrics port already taken must not stop payouts: log it and run on (Prometheus shows up == 0).
const metrics = await startMetricsServer({
  port: config.METRICS_PORT,
  db: core.db,
  token: config.METRICS_TOKEN,
  appendFrom: sdkMetricsPort ? `http://127.0.0.1:${sdkMetricsPort}/metrics` : undefined,
}).catch((err: Error) => {
  core.log.error({ err, port: config.METRICS_PORT }, 'worker metrics server could not listen; running without GET /metrics');
  return undefined;
});
if (metrics) core.log.info({ port: metrics.port }, 'worker metrics listening (GET /metrics)');
core.log.info({ taskQueues: [config.TASK_QUEUE, taskQueueFor(config, DISBURSEMENT_WORKFLOW_TYPE)], address }, 'worker running');
await worker.run();
await metrics?.close();
stopScreening();
stopRailChecks();
await stopRates();
await stopRelay();
await connection.close();
await closeCore(core);
if (!config.WORKFLOW_BUNDLE) rmSync(workflowBundle.codePath, { force: true });
