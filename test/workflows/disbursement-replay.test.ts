import { readFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';

/**
 * The disbursement workflow's claim cadence changed under a `patched` gate (CLAIM_CADENCE,
 * workflows/disbursement.ts; docs/benchmarks.md, issue #23). Both histories were recorded on
 * 2026-11-26 from a 10-item batch launched with window 4, claimBatch 3 (so the window fills and
 * the run waits for refills):
 * - `window-refill`: the workflow and claim activity as of commit 264e73b (before the patch): a
 *   refill after a tenth of the window or a 1 s recheck, and an empty claim after every claim that
 *   filled the window (149 events: 11 claims, 25 workflow tasks);
 * - `claim-cadence`: today's code (the patch marker; 116 events: 6 claims, 19 workflow tasks).
 */
describe('disbursement workflow replay', () => {
  it.each([
    ['window-refill', 11, 25],
    ['claim-cadence', 6, 19],
  ])("a run recorded as '%s' replays on today's code (%i claims, %i workflow tasks)", async (name, claims, tasks) => {
    const json = JSON.parse(readFileSync(new URL(`../fixtures/histories/disbursement-2026-11-26-${name}.json`, import.meta.url), 'utf8'));
    const history = temporal.api.history.v1.History.fromObject(json);
    const count = (type: string) => (history.events ?? []).filter((e) => temporal.api.enums.v1.EventType[e.eventType!] === type).length;
    expect(count('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED')).toBe(claims);
    expect(count('EVENT_TYPE_WORKFLOW_TASK_COMPLETED')).toBe(tasks);
    expect(count('EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED')).toBe(10);
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, `dsb_replay_${name}`)).resolves.toBeUndefined();
  });
});
