import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { Core } from '../core/context';
import { SEARCH_ATTRIBUTE_NAMES } from './search-attributes';

/** Path of the workflows entry point that the worker bundles (workflows/index.ts). */
export const WORKFLOWS_PATH = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

/**
 * Registers any of our search attributes the namespace lacks (all Keyword). Idempotent; safe with
 * several workers starting at once.
 */
export async function ensureSearchAttributes(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
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

/**
 * Creates the payments worker on `core.config.TASK_QUEUE`: every workflow and activity of the
 * service. A nondeterminism error fails the workflow visibly instead of retrying its task forever
 * (DESIGN.md "Temporal conventions").
 */
export async function createWorker(
  core: Core,
  opts: { connection?: NativeConnection; workflowBundle?: WorkflowBundleOption; maxConcurrentActivities?: number } = {},
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection =
    opts.connection ?? (await NativeConnection.connect({ address: core.config.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' }));
  const worker = await Worker.create({
    connection,
    namespace: core.config.TEMPORAL_NAMESPACE,
    taskQueue: core.config.TASK_QUEUE,
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities: createActivities(core),
    workflowFailureErrorTypes: { '*': ['NondeterminismError'] },
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivities ?? 200,
    maxConcurrentWorkflowTaskExecutions: 100,
    maxCachedWorkflows: 2000,
  });
  return { worker, connection };
}
