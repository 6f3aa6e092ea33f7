import { readFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { describe, expect, inject, it } from 'vitest';

/**
 * The disbursement workflow's claim cadence changed under a `patched` gate, since retired
 * (`disbursement-claim-cadence`, workflows/disbursement.ts; docs/operations.md "Retiring a workflow
 * patch"). Both histories were recorded on 2026-11-26 from a 10-item batch launched with window 4,
 * claimBatch 3 (so the window fills and the run waits for refills):
 * - `window-refill`: the workflow and claim activity as of commit 264e73b (before the patch): a
 *   refill after a tenth of the window or a 1 s recheck, and an empty claim after every claim that
 *   filled the window (149 events: 11 claims, 25 workflow tasks). Kept in
 *   test/fixtures/histories-retired/: today's code refuses it (nondeterminism), as a worker refuses
 *   a run started before a retired patch;
 * - `claim-cadence`: the patched code (the patch marker; 116 events: 6 claims, 19 workflow tasks).
 */
const history = (folder: string, name: string) =>
  temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(new URL(`../fixtures/${folder}/disbursement-2026-11-26-${name}.json`, import.meta.url), 'utf8')));

const count = (h: temporal.api.history.v1.History, type: string) => (h.events ?? []).filter((e) => temporal.api.enums.v1.EventType[e.eventType!] === type).length;

describe('disbursement workflow replay', () => {
  it("a run recorded as 'claim-cadence' replays on today's code (6 claims, 19 workflow tasks)", async () => {
    const h = history('histories', 'claim-cadence');
    expect(count(h, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED')).toBe(6);
    expect(count(h, 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED')).toBe(19);
    expect(count(h, 'EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED')).toBe(10);
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, h, 'dsb_replay_claim-cadence')).resolves.toBeUndefined();
  });

  it("a run recorded before the retired 'disbursement-claim-cadence' patch is refused as nondeterministic (11 claims, 25 workflow tasks)", async () => {
    const h = history('histories-retired', 'window-refill');
    expect(count(h, 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED')).toBe(11);
    expect(count(h, 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED')).toBe(25);
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, h, 'dsb_replay_window-refill')).rejects.toThrow(DeterminismViolationError);
  });
});
