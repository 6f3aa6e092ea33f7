import { ThreadedVMWorkflowCreator } from '@temporalio/worker/lib/workflow/threaded-vm';
import { ReusableVMWorkflowCreator } from '@temporalio/worker/lib/workflow/reusable-vm';
import { globalHandlers } from '@temporalio/worker/lib/workflow/vm-shared';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { drainWorkflowStarts } from '../../src/core/workflow-starts';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * `WORKER_WORKFLOW_THREADS=0` (the default) runs workflow code in the worker's main thread, without
 * a `vm` timeout per call by default (`WORKER_ACTIVATION_TIMEOUT_MS=0`: node would start a watchdog
 * thread for each; src/temporal/worker.ts; docs/operations.md "Idle cost"), and without the SDK's
 * per-promise stack capture (`WORKER_WORKFLOW_STACK_TRACES`, off by default). Threads:
 * test/workflows/shared-workflow-threads.test.ts.
 */
const inProcess = vi.spyOn(ReusableVMWorkflowCreator, 'create');
const threaded = vi.spyOn(ThreadedVMWorkflowCreator, 'create');
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ config: { WORKER_WORKFLOW_THREADS: 0 } });
});
afterAll(async () => h?.close());

describe('workflows in the main thread (WORKER_WORKFLOW_THREADS=0)', () => {
  it('starts no workflow thread, sets no per-call timeout, and runs a payout to succeeded', async () => {
    expect(threaded).not.toHaveBeenCalled();
    expect(inProcess).toHaveBeenCalledTimes(1);
    expect(inProcess.mock.calls[0]![1]).toBeUndefined();
    const b = await h.business();
    expect((await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '100' } })).status).toBe(200);
    const r = await h.request('POST', '/sandbox/v1/payouts', {
      key: b.sandbox,
      body: { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: '1' },
    });
    expect(r.status).toBe(201);
    await drainWorkflowStarts(h.core);
    expect(await h.core.temporal.workflow.getHandle(r.body.id).result()).toEqual({ payoutId: r.body.id, status: 'succeeded' });
    expect((await h.request('GET', `/sandbox/v1/payouts/${r.body.id}`, { key: b.sandbox })).body.status).toBe('succeeded');
  });

  it('captures no stack per workflow promise, and the stack trace query says so', async () => {
    expect(globalHandlers.installed).toBe(true);
    expect(globalHandlers.promiseHookInstalled).toBe(false);
    const b = await h.business();
    expect((await h.request('POST', '/sandbox/v1/sandbox/fund', { key: b.sandbox, body: { amount: '100' } })).status).toBe(200);
    const r = await h.request('POST', '/sandbox/v1/payouts', {
      key: b.sandbox,
      body: { channel: 'service_user_usdc', recipient: { type: 'service_user', handle: '@maria' }, source_amount: '1' },
    });
    await drainWorkflowStarts(h.core);
    const handle = h.core.temporal.workflow.getHandle(r.body.id);
    await handle.result();
    await expect(handle.query('__stack_trace')).rejects.toThrow(/stack traces are not enabled/);
  });
});
