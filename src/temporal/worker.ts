import { readFile } from 'node:fs/promises';
import { url as inspectorUrl } from 'node:inspector';
import { resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { type CompiledWorkerOptions, type Logger, NativeConnection, type TelemetryOptions, Worker, type WorkerOptions, type WorkflowBundleOption } from '@temporalio/worker';
import type { WorkflowCreator } from '@temporalio/worker/lib/workflow/interface';
import { invokePatchActivationCallback, type WorkflowPatchActivationCallback } from '@temporalio/worker/lib/workflow/patch-activation-callback.js';
import { ReusableVMWorkflowCreator } from '@temporalio/worker/lib/workflow/reusable-vm.js';
import { globalHandlers } from '@temporalio/worker/lib/workflow/vm-shared.js';
import type { WorkflowBundleWithSourceMapAndFilename } from '@temporalio/worker/lib/workflow/workflow-worker-thread/input';
import type { Config } from '../config';
import { createActivities } from '../../activities';
import { DISBURSEMENT_WORKFLOW_TYPE } from '../../workflows/disbursement.contract';
import type { Core } from '../core/context';
import { type TemporalConnectionOptions, temporalConnectionOptions } from './connection-options';
import { SEARCH_ATTRIBUTE_NAMES } from './search-attributes';
import { taskQueueFor } from './task-queues';

/** Registers any of our (Keyword) search attributes the namespace lacks. Idempotent. */
export async function ensureSearchAttributes(options: TemporalConnectionOptions, namespace: string): Promise<void> {
  const connection = await Connection.connect(options);
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const have = new Set(Object.keys(existing.customAttributes ?? {}));
    const missing = SEARCH_ATTRIBUTE_NAMES.filter((n) => !have.has(n));
    if (missing.length === 0) return;
    const KEYWORD = 2; // IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
    try {
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(missing.map((n) => [n, KEYWORD])),
      });
    } catch (err) {
      if (!String(err).includes('already')) throw err;
    }
  } finally {
    await connection.close();
  }
}

/** SDK Runtime telemetry: the SDK's worker metrics in Prometheus format on `127.0.0.1:<port>/metrics`. */
export function sdkPrometheusTelemetry(port: number): TelemetryOptions {
  return {
    metrics: {
      prometheus: { bindAddress: `127.0.0.1:${port}`, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true },
    },
  };
}

export interface PaymentsWorkerTuning {
  maxConcurrentWorkflowTaskExecutions: number;
  maxConcurrentActivityTaskExecutions: number;
  maxConcurrentLocalActivityExecutions: number;
  maxCachedWorkflows: number;
  workflowThreadPoolSize: number;
  workflowTaskPollerBehavior: NonNullable<WorkerOptions['workflowTaskPollerBehavior']>;
}

/** Worker concurrency, cache and pollers from WORKER_* (docs/benchmarks.md "Worker tuning"); cache >= concurrent workflows. */
export function paymentsWorkerTuning(
  config: Pick<
    Config,
    'WORKER_WORKFLOW_TASKS' | 'WORKER_ACTIVITY_TASKS' | 'WORKER_LOCAL_ACTIVITIES' | 'WORKER_CACHED_WORKFLOWS' | 'WORKER_WORKFLOW_POLLERS' | 'WORKER_WORKFLOW_THREADS'
  >,
  maxConcurrentActivities?: number,
): PaymentsWorkerTuning {
  const tasks = config.WORKER_WORKFLOW_TASKS;
  const pollers = config.WORKER_WORKFLOW_POLLERS;
  return {
    maxConcurrentWorkflowTaskExecutions: tasks,
    maxConcurrentActivityTaskExecutions: maxConcurrentActivities ?? config.WORKER_ACTIVITY_TASKS,
    maxConcurrentLocalActivityExecutions: config.WORKER_LOCAL_ACTIVITIES,
    maxCachedWorkflows: Math.max(tasks, config.WORKER_CACHED_WORKFLOWS),
    workflowThreadPoolSize: config.WORKER_WORKFLOW_THREADS,
    workflowTaskPollerBehavior:
      pollers === 'auto'
        ? { type: 'autoscaling', minimum: 1, initial: 5, maximum: Math.min(100, tasks) }
        : { type: 'simple-maximum', maximum: Math.max(2, Math.min(tasks, Number(pollers))) },
  };
}

/** The Temporal workers of one process, run and stopped together. */
export interface PaymentsWorker {
  run(): Promise<void>;
  shutdown(): void;
  /** 'RUNNING' while every worker runs, else the first other state. */
  getState(): string;
}

type Bundle = WorkflowBundleWithSourceMapAndFilename;

/**
 * Reads a prebuilt workflow bundle (`{ codePath }`, with its inline source map) into the shape the
 * SDK's own reader returns, without the SDK's extra compile and run of the whole bundle in the main
 * thread: that copy only helps a debugger place breakpoints, and it stays in memory (about 13 MB
 * RSS) until a major GC, which an idle process never runs. Throws when the file has no inline
 * source map.
 */
export async function readPrebuiltBundle(codePath: string): Promise<Bundle> {
  const text = await readFile(codePath, 'utf8');
  const at = text.lastIndexOf('//# sourceMappingURL=data:');
  const base64 = at > 0 ? text.indexOf('base64,', at) : -1;
  if (base64 < 0) throw new Error(`workflow bundle ${codePath} has no inline source map (build it with npm run bundle:workflows)`);
  const sourceMap = JSON.parse(Buffer.from(text.slice(base64 + 'base64,'.length).trimEnd(), 'base64').toString());
  const filename = resolve(codePath);
  if (filename === codePath) return { code: text, sourceMap, filename };
  sourceMap.file = filename;
  const mapUrl = `data:application/json;base64,${Buffer.from(JSON.stringify(sourceMap)).toString('base64')}`;
  return { code: `${text.slice(0, at)}\n//# sourceMappingURL=${mapUrl}`, sourceMap, filename };
}

/** The SDK's `patchActivationCallback` as its in-process runner takes it (as `Worker.createWorkflowCreator` wraps it). */
function patchCallback(options: CompiledWorkerOptions): WorkflowPatchActivationCallback | undefined {
  const callback = options.patchActivationCallback;
  return callback && ((info, patchId) => invokePatchActivationCallback(callback, info, patchId));
}

/** The main-thread runner's deadlock timeout in ms (WORKER_ACTIVATION_TIMEOUT_MS; 0: none, as node's `vm` starts a thread per timed call; docs/operations.md "Idle cost"). */
export function mainThreadActivationTimeoutMs(config: Pick<Config, 'WORKER_ACTIVATION_TIMEOUT_MS'>): number | undefined {
  return config.WORKER_ACTIVATION_TIMEOUT_MS > 0 ? config.WORKER_ACTIVATION_TIMEOUT_MS : undefined;
}

/** Stops the SDK's per-promise stack capture (the `__stack_trace` query; docs/operations.md "Idle cost"); failures keep their stacks. Throws if the SDK changed. */
export function stopWorkflowStackTraces(): void {
  const handlers = globalHandlers as unknown as { stopPromiseHook?: () => void; promiseHookInstalled: boolean };
  if (typeof handlers.stopPromiseHook !== 'function') throw new Error('@temporalio/worker no longer has GlobalHandlers.stopPromiseHook');
  handlers.stopPromiseHook();
  handlers.promiseHookInstalled = false;
}

/**
 * A Worker class whose instances share one workflow bundle (read once, by {@link readPrebuiltBundle}
 * when prebuilt) and one workflow runner: with `workflowThreadPoolSize` 0, one reusable V8 context in
 * the main thread (the SDK's own runner, with `activationTimeoutMs` as its deadlock timeout, and its
 * promise hook only with `stackTraces`); otherwise one pool of that many
 * threads, each a V8 isolate with the SDK's protobuf root and the bundle (about 25 MB RSS;
 * docs/operations.md "Idle cost"). The runner ends when the last instance has shut down. Only for
 * instances given the same bundle, activities and isolate options (those of the first are used).
 */
export function sharedWorkflowThreadsWorker(activationTimeoutMs?: number, stackTraces = true): typeof Worker & { releaseBundle(): void } {
  let bundle: Promise<Bundle | undefined> | undefined;
  let runner: Promise<WorkflowCreator> | undefined;
  let users = 0;
  return class SharedWorkflowThreadsWorker extends Worker {
    /** Drops the parsed bundle (its code and source map, a few MB) once every instance is created; the runner holds what it needs. */
    static releaseBundle(): void {
      bundle = undefined;
    }

    protected static override getOrCreateBundle(options: CompiledWorkerOptions, logger: Logger): Promise<Bundle | undefined> {
      const prebuilt = options.workflowBundle && 'codePath' in options.workflowBundle ? options.workflowBundle.codePath : undefined;
      // Under a debugger (an open inspector), the SDK's reader, which prepares breakpoints.
      bundle ??= prebuilt && !inspectorUrl() ? readPrebuiltBundle(prebuilt) : super.getOrCreateBundle(options, logger);
      return bundle;
    }

    protected static override async createWorkflowCreator(b: Bundle, options: CompiledWorkerOptions, logger: Logger): Promise<WorkflowCreator> {
      runner ??=
        options.workflowThreadPoolSize === 0
          ? ReusableVMWorkflowCreator.create(b, activationTimeoutMs as number, new Set(options.activities.keys()), patchCallback(options)).then((r) => {
              if (!stackTraces) stopWorkflowStackTraces();
              return r;
            })
          : super.createWorkflowCreator(b, options, logger);
      const pool = await runner;
      users++;
      let destroyed = false;
      return {
        createWorkflow: (o) => pool.createWorkflow(o),
        destroy: async () => {
          if (destroyed) return;
          destroyed = true;
          if (--users > 0) return;
          runner = undefined;
          bundle = undefined;
          await pool.destroy();
        },
      };
    }
  };
}

/**
 * Creates the workers of `TASK_QUEUE` and the batch queue, sharing one bundle and one workflow runner
 * (`WORKER_WORKFLOW_THREADS`: 0 the main thread, else that many threads; {@link sharedWorkflowThreadsWorker}); a
 * nondeterminism error fails the workflow, not retries its task.
 */
export async function createWorker(
  core: Core,
  opts: { connection?: NativeConnection; workflowBundle: WorkflowBundleOption; maxConcurrentActivities?: number },
): Promise<{ worker: PaymentsWorker; connection: NativeConnection }> {
  const connection =
    opts.connection ?? (await NativeConnection.connect(temporalConnectionOptions(core.config)));
  const activities = createActivities(core);
  const common = {
    connection,
    namespace: core.config.TEMPORAL_NAMESPACE,
    workflowBundle: opts.workflowBundle,
    activities,
    workflowFailureErrorTypes: { '*': ['NondeterminismError'] },
  };
  const SharedWorker = sharedWorkflowThreadsWorker(mainThreadActivationTimeoutMs(core.config), core.config.WORKER_WORKFLOW_STACK_TRACES);
  const payments = await SharedWorker.create({
    ...common,
    taskQueue: core.config.TASK_QUEUE,
    ...paymentsWorkerTuning(core.config, opts.maxConcurrentActivities),
  });
  const batches = await SharedWorker.create({
    ...common,
    taskQueue: taskQueueFor(core.config, DISBURSEMENT_WORKFLOW_TYPE),
    maxConcurrentActivityTaskExecutions: 20,
    maxConcurrentWorkflowTaskExecutions: 20,
    maxCachedWorkflows: 200,
  });
  SharedWorker.releaseBundle();
  const workers = [payments, batches];
  const worker: PaymentsWorker = {
    run: async () => {
      const runs = workers.map((w) => w.run());
      try {
        await Promise.all(runs);
      } catch (err) {
        for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
        await Promise.allSettled(runs);
        throw err;
      }
    },
    shutdown: () => {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
    },
    getState: () => workers.map((w) => w.getState()).find((s) => s !== 'RUNNING') ?? 'RUNNING',
  };
  return { worker, connection };
}
