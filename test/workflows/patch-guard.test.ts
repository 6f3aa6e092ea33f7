/**
 * The retired-patch guard against the test dev server (docs/operations.md "Retiring a workflow
 * patch"): a run started before a retired patch cannot be made here, so a synthetic entry whose
 * `startedBefore` is in the future makes an open run of this test's own workflow type count. Checks
 * the worker's refusal and `npm run admin -- workflows patches` (its exit code and --json).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { runWorkflowsCommand } from '../../src/main/admin-workflows';
import { checkRetiredPatches, patchRefusal, temporalVisibility, workerStartRefusal } from '../../src/temporal/patch-guard';
import type { RetiredPatch } from '../../workflows/retired-patches.contract';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const suffix = randomBytes(4).toString('hex');
const workflowType = `patchGuardTestWorkflow_${suffix}`;
const workflowId = `patch-guard-${suffix}`;
const synthetic: RetiredPatch = {
  workflowType,
  patchId: 'synthetic-retired-patch',
  deprecatedOn: '2026-11-29',
  safeAfter: '2999-01-01',
  startedBefore: '2999-01-01T00:00:00Z',
};
let client: Client;

beforeAll(async () => {
  client = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
  // No worker polls this task queue: the run stays open.
  await client.workflow.start(workflowType, { workflowId, taskQueue: `patch-guard-${suffix}`, args: [] });
  // Visibility is eventually consistent: wait until it lists the run.
  await vi.waitFor(async () => expect((await client.workflow.count(`WorkflowType = '${workflowType}'`)).count).toBe(1), { timeout: 20_000, interval: 200 });
});

afterAll(async () => {
  await client?.workflow.getHandle(workflowId).terminate('patch-guard test over');
  await client?.connection.close();
});

describe('retired-patch guard on the dev server', () => {
  it('counts an open run started before startedBefore, and the worker refuses naming the patch, the run and the remedy', async () => {
    const checks = await checkRetiredPatches([synthetic], new Date(), temporalVisibility(client));
    expect(checks).toMatchObject([{ openRuns: 1, workflowIds: [workflowId], safe: false, reason: 'open_runs' }]);
    const refusal = await workerStartRefusal(client, new Date(), [synthetic]);
    expect(refusal).toBe(patchRefusal(checks));
    expect(refusal).toContain("worker refused to start: retired workflow patch 'synthetic-retired-patch'");
    expect(refusal).toContain(`1 open run(s) started before 2999-01-01T00:00:00Z may lack its marker and fail on replay: ${workflowId}`);
    expect(refusal).toContain("run the previous release's workers until these runs finish");
    expect(refusal).toContain('docs/operations.md "Retiring a workflow patch"');

    // The same run started after startedBefore, or a patch past its safeAfter: safe.
    const before = { ...synthetic, startedBefore: '2020-01-01T00:00:00Z' };
    expect(await workerStartRefusal(client, new Date(), [before])).toBeNull();
    expect(await workerStartRefusal(client, new Date('2999-01-02T00:00:00Z'), [synthetic])).toBeNull();
  });

  it('the worker refuses, fail closed, when visibility does not answer', async () => {
    const down = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: `no-such-namespace-${suffix}` });
    try {
      const refusal = await workerStartRefusal(down, new Date(), [synthetic]);
      expect(refusal).toMatch(/^worker refused to start: Temporal visibility did not answer 3 times .*fails closed/);
      expect(refusal).toContain('WORKER_SKIP_PATCH_CHECK=true');
    } finally {
      await down.connection.close();
    }
  }, 30_000);

  it('workflows patches --json: one JSON document, exit 1 while a run is open', async () => {
    const out = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const code = await runWorkflowsCommand(['patches'], true, { patches: [synthetic], visibility: temporalVisibility(client) });
      expect(code).toBe(1);
      expect(out).toHaveBeenCalledTimes(1);
      expect(JSON.parse(out.mock.calls[0]![0] as string)).toEqual({
        safe: false,
        patches: [
          {
            workflow_type: workflowType,
            patch_id: 'synthetic-retired-patch',
            deprecated_on: '2026-11-29',
            safe_after: '2999-01-01',
            started_before: '2999-01-01T00:00:00Z',
            open_runs: 1,
            workflow_ids: [workflowId],
            safe: false,
            reason: 'open_runs',
          },
        ],
      });
      out.mockClear();
      expect(await runWorkflowsCommand(['patches'], false, { patches: [synthetic], visibility: temporalVisibility(client) })).toBe(1);
      expect(out.mock.calls.map((c) => c[0]).join('\n')).toContain(`synthetic-retired-patch (deprecated 2026-11-29, runs started before 2999-01-01T00:00:00Z): NOT SAFE: 1 open run(s): ${workflowId}`);
    } finally {
      out.mockRestore();
    }
  });

  it('npm run admin -- workflows patches --json on the declared list: every retirement safe on a fresh server, exit 0', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress'), LOG_LEVEL: 'info' };
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/main/admin.ts', 'workflows', 'patches', '--json'], { cwd: ROOT, env });
    const doc = JSON.parse(stdout) as { safe: boolean; patches: { patch_id: string; open_runs: number | null; safe: boolean }[] };
    expect(doc.safe).toBe(true);
    expect(doc.patches.map((p) => p.patch_id)).toEqual(['test-clock-deadline-from-real-time', 'disbursement-claim-cadence', '39-child-status-upserts', '39-longer-runs']);
    expect(doc.patches.every((p) => p.safe && (p.open_runs === 0 || p.open_runs === null))).toBe(true);
    await expect(run(process.execPath, ['--import', 'tsx', 'src/main/admin.ts', 'workflows', 'nothing'], { cwd: ROOT, env })).rejects.toMatchObject({ code: 2 });
  }, 120_000);
});
