import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parseWorkflowCode } from '@temporalio/worker/lib/worker';
import { ThreadedVMWorkflowCreator } from '@temporalio/worker/lib/workflow/threaded-vm';
import { describe, expect, inject, it, vi } from 'vitest';
import { readPrebuiltBundle } from '../../src/temporal/worker';
import { createHarness } from '../helpers/harness';

/**
 * The worker process's two Temporal Workers (payments and batch queues) share one bundle and one
 * pool of workflow threads (src/temporal/worker.ts; docs/operations.md "Idle cost"). That both
 * queues' workflows run on it: test/workflows/disbursement.test.ts (a batch parent, payout children).
 */
describe('shared workflow threads', () => {
  it('reads a prebuilt bundle into what the SDK reads, by absolute and by relative path', async () => {
    const path = inject('workflowBundlePath');
    const ours = await readPrebuiltBundle(path);
    expect(ours).toEqual(parseWorkflowCode(readFileSync(path, 'utf8'), path));
    expect(ours.filename).toBe(path);
    const rel = relative(process.cwd(), path);
    const patched = await readPrebuiltBundle(rel);
    expect(patched).toEqual(parseWorkflowCode(readFileSync(rel, 'utf8'), rel));
    expect(patched.sourceMap.file).toBe(path);
  });

  it("writes the bundle's source map without sourcesContent: stacks still map to each source's file", async () => {
    const { sourceMap } = await readPrebuiltBundle(inject('workflowBundlePath'));
    expect(sourceMap.sourcesContent).toBeUndefined();
    expect(sourceMap.sources.some((s: string) => s.endsWith('workflows/payout.ts'))).toBe(true);
    expect(sourceMap.mappings.length).toBeGreaterThan(10_000);
  });

  it('starts one pool of WORKER_WORKFLOW_THREADS threads for both task queues, ended with the last worker', async () => {
    const create = vi.spyOn(ThreadedVMWorkflowCreator, 'create');
    const destroy = vi.spyOn(ThreadedVMWorkflowCreator.prototype, 'destroy');
    const h = await createHarness({ config: { WORKER_WORKFLOW_THREADS: 2 } });
    try {
      expect(create).toHaveBeenCalledTimes(1);
      expect(create.mock.calls[0]![0].threadPoolSize).toBe(2);
    } finally {
      await h.close();
    }
    expect(destroy).toHaveBeenCalledTimes(1);
  });
});
