import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { mainThreadActivationTimeoutMs, paymentsWorkerTuning } from '../../src/temporal/worker';

/** The payments worker's tuning from the WORKER_* settings (src/temporal/worker.ts; docs/benchmarks.md "Worker tuning"). */
describe('paymentsWorkerTuning', () => {
  it('defaults: 100 workflow tasks, 200 activities, 100 local activities, 2,000 cached workflows, 10 pollers, workflows in the main thread', () => {
    expect(paymentsWorkerTuning(loadConfig({}))).toEqual({
      maxConcurrentWorkflowTaskExecutions: 100,
      maxConcurrentActivityTaskExecutions: 200,
      maxConcurrentLocalActivityExecutions: 100,
      maxCachedWorkflows: 2000,
      workflowThreadPoolSize: 0,
      workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 10 },
    });
  });

  it('takes every WORKER_* variable; pollers never exceed the task slots, the cache never holds fewer than them', () => {
    const t = paymentsWorkerTuning(
      loadConfig({
        WORKER_WORKFLOW_TASKS: '8',
        WORKER_ACTIVITY_TASKS: '50',
        WORKER_LOCAL_ACTIVITIES: '30',
        WORKER_CACHED_WORKFLOWS: '4',
        WORKER_WORKFLOW_POLLERS: '20',
        WORKER_WORKFLOW_THREADS: '2',
      }),
    );
    expect(t).toEqual({
      maxConcurrentWorkflowTaskExecutions: 8,
      maxConcurrentActivityTaskExecutions: 50,
      maxConcurrentLocalActivityExecutions: 30,
      maxCachedWorkflows: 8,
      workflowThreadPoolSize: 2,
      workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 8 },
    });
    expect(paymentsWorkerTuning(loadConfig({ WORKER_WORKFLOW_POLLERS: 'auto' })).workflowTaskPollerBehavior).toEqual({
      type: 'autoscaling',
      minimum: 1,
      initial: 5,
      maximum: 100,
    });
    // A test's own activity limit wins over the setting.
    expect(paymentsWorkerTuning(loadConfig({ WORKER_ACTIVITY_TASKS: '50' }), 7).maxConcurrentActivityTaskExecutions).toBe(7);
  });

  it('refuses values the SDK cannot take', () => {
    expect(() => loadConfig({ WORKER_WORKFLOW_TASKS: '1' })).toThrow();
    expect(() => loadConfig({ WORKER_WORKFLOW_POLLERS: '0' })).toThrow();
    expect(() => loadConfig({ WORKER_WORKFLOW_POLLERS: 'many' })).toThrow();
    expect(() => loadConfig({ WORKER_WORKFLOW_THREADS: '-1' })).toThrow();
    expect(loadConfig({ WORKER_WORKFLOW_THREADS: '0' }).WORKER_WORKFLOW_THREADS).toBe(0);
  });
});

/** The main-thread runner's deadlock timeout (src/temporal/worker.ts; docs/operations.md "Idle cost"). */
describe('mainThreadActivationTimeoutMs', () => {
  it('sets no timeout by default (no watchdog thread per call into the workflow context), the configured ms otherwise', () => {
    expect(mainThreadActivationTimeoutMs(loadConfig({}))).toBeUndefined();
    expect(mainThreadActivationTimeoutMs(loadConfig({ WORKER_ACTIVATION_TIMEOUT_MS: '0' }))).toBeUndefined();
    expect(mainThreadActivationTimeoutMs(loadConfig({ WORKER_ACTIVATION_TIMEOUT_MS: '5000' }))).toBe(5000);
    expect(() => loadConfig({ WORKER_ACTIVATION_TIMEOUT_MS: '-1' })).toThrow(/WORKER_ACTIVATION_TIMEOUT_MS/);
  });
});
