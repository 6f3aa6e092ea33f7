import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfig } from '../config';
import { relayTasks } from '../core/relay-tasks';
import { startRelay } from '../core/relay';
import { DISBURSEMENT_WORKFLOW_TYPE } from '../../workflows/disbursement.contract';
import { prepareWorkflowBundle } from '../temporal/bundle';
import { taskQueueFor } from '../temporal/task-queues';
import { createWorker, ensureSearchAttributes } from '../temporal/worker';
import { buildCore, closeCore } from './runtime';

/** `npm run worker`: the Temporal worker process (any number may run) and the outbox relay. */
const config = loadConfig();
Runtime.install({ logger: new DefaultLogger(config.LOG_LEVEL === 'debug' ? 'DEBUG' : 'WARN') });
if (!config.DATABASE_URL) {
  console.error('npm run worker needs DATABASE_URL (PGlite is single-process; use `npm run dev` for the all-in-one mode)');
  process.exit(2);
}
const address = config.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
await ensureSearchAttributes(address, config.TEMPORAL_NAMESPACE);
const core = await buildCore(config);
const workflowBundle = await prepareWorkflowBundle({
  prebuilt: config.WORKFLOW_BUNDLE,
  outFile: join(tmpdir(), `payouts-workflows-${process.pid}.js`),
});
const { worker, connection } = await createWorker(core, { workflowBundle });
const stopRelay = startRelay(core, relayTasks);
// The SDK's runtime drains the worker on SIGINT/SIGTERM; worker.run() then resolves.
core.log.info({ taskQueues: [config.TASK_QUEUE, taskQueueFor(config, DISBURSEMENT_WORKFLOW_TYPE)], address }, 'worker running');
await worker.run();
await stopRelay();
await connection.close();
await closeCore(core);
// The bundle this process built for itself (a prebuilt WORKFLOW_BUNDLE is left alone).
if (!config.WORKFLOW_BUNDLE) rmSync(workflowBundle.codePath, { force: true });
