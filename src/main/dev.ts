import './node-version';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { serve } from '@hono/node-server';
import { createApp } from '../api/app';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfig } from '../config';
import { createBusiness } from '../core/businesses';
import { startRelay } from '../core/relay';
import { startRailHealthChecks, startRailPollers } from '../core/rails/lifecycle';
import { startSolanaWatchers } from '../core/funding/crypto-lifecycle';
import { startRetention } from '../core/retention';
import { startScreening } from '../core/screening/running';
import { startRateRefresher } from '../core/rates/refresher';
import { relayTasks } from '../core/relay-tasks';
import { type DevServer, freePort, startDevServer } from '../temporal/dev-server';
import { prepareWorkflowBundle } from '../temporal/bundle';
import { temporalConnectionOptions } from '../temporal/connection-options';
import { createWorker, ensureSearchAttributes } from '../temporal/worker';
import { acquirePgliteLock, PgliteLockedError } from '../db/pglite-lock';
import { buildCore, closeCore } from './runtime';

/**
 * `npm run dev`: the whole service in one command: a Temporal dev server unless TEMPORAL_ADDRESS,
 * PGlite in DATA_DIR unless DATABASE_URL, the worker, relay and API on PORT; creates a sandbox business on first run.
 */
const env = { ...process.env };
Runtime.install({ logger: new DefaultLogger(env.LOG_LEVEL === 'debug' ? 'DEBUG' : 'WARN') });
const dataDir = resolve(env.DATA_DIR ?? './.data');
mkdirSync(dataDir, { recursive: true });
// One process per PGlite directory: take the lock before anything touches DATA_DIR.
if (!env.DATABASE_URL) {
  try {
    acquirePgliteLock(dataDir);
  } catch (err) {
    if (!(err instanceof PgliteLockedError)) throw err;
    console.error(`npm run dev: ${err.message}`);
    process.exit(3);
  }
}

let devServer: DevServer | undefined;
if (!env.TEMPORAL_ADDRESS) {
  const port = (await portFree(7233)) ? 7233 : await freePort();
  console.log(`Starting the Temporal dev server on 127.0.0.1:${port} (state in ${join(dataDir, 'temporal.sqlite')}) ...`);
  const uiPort = (await portFree(8233)) ? 8233 : await freePort();
  devServer = await startDevServer({ port, uiPort, dbFile: join(dataDir, 'temporal.sqlite') });
  env.TEMPORAL_ADDRESS = devServer.address;
}
const config = loadConfig(env);
await ensureSearchAttributes(temporalConnectionOptions(config), config.TEMPORAL_NAMESPACE);
const core = await buildCore(config, { role: 'payouts_worker' });
const credentialsFile = join(dataDir, 'dev-credentials.json');
let credentials: { business_id: string; keys: { sandbox: string; live: string } };
if (existsSync(credentialsFile)) {
  credentials = JSON.parse(readFileSync(credentialsFile, 'utf8'));
} else {
  const created = await createBusiness(core.db, { name: 'Dev sandbox business', verified: true });
  credentials = { business_id: created.businessId, keys: created.keys };
  writeFileSync(credentialsFile, JSON.stringify(credentials, null, 2), { mode: 0o600 });
}
console.log('Bundling workflows and starting the worker ...');
const workflowBundle = await prepareWorkflowBundle({ prebuilt: config.WORKFLOW_BUNDLE, outFile: join(dataDir, 'workflow-bundle.js') });
const { worker, connection } = await createWorker(core, { workflowBundle });
const workerRun = worker.run();
const stopRelay = startRelay(core, relayTasks);
const stopRailChecks = await startRailHealthChecks(core);
await startRailPollers(core);
const stopRates = await startRateRefresher(core); // live rates (docs/rates.md "Refresher")
await startSolanaWatchers(core);
await startRetention(core);
const stopScreening = startScreening(core, { fetch: true });
const server = serve({ fetch: createApp(core).fetch, port: config.PORT, hostname: '0.0.0.0' });

const base = `http://localhost:${config.PORT}`;
console.log(`
Payouts backend is running.
  Business:          ${credentials.business_id}
  Sandbox owner key: ${credentials.keys.sandbox}
  Surface A sandbox: ${base}/sandbox/v1      live: ${base}/v1
  API docs:          ${base}/docs   (OpenAPI: ${base}/sandbox/v1/openapi.json)
  Health:            ${base}/health
  Temporal UI:       ${devServer?.uiUrl ?? '(external Temporal at ' + env.TEMPORAL_ADDRESS + ')'}
  Try:  curl -s ${base}/sandbox/v1/channels -H "Authorization: Bearer ${credentials.keys.sandbox}"
Press Ctrl-C to stop.`);

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping ...');
  await new Promise<void>((r) => server.close(() => r()));
  stopRailChecks();
  stopScreening();
  await stopRates();
  await stopRelay();
  // The SDK's runtime already drains the worker on SIGINT/SIGTERM; shutting down twice throws.
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await workerRun.catch(() => {});
  await connection.close();
  await closeCore(core);
  await devServer?.stop();
  process.exit(0);
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);

async function portFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((r) => {
    const s = createServer();
    s.once('error', () => r(false));
    s.listen(port, '127.0.0.1', () => s.close(() => r(true)));
  });
}
