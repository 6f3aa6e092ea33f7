import { readFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { webhookRetryDelayMs, surfaceARetrySchedule } from '../../src/domain/webhook-events';
import { surfaceBRetrySchedule } from '../../src/domain/surface-b';

/**
 * The webhook delivery workflow numbers its attempts and waits out the delays itself (docs/webhooks.md
 * "Retries"). Deliveries started when the schedule was the activity's RetryPolicy must replay on
 * today's code: histories recorded on 2026-11-25 from the workflow as of commit 55da28a.
 */
describe('webhook delivery workflow replay', () => {
  it.each(['a-retried-succeeded', 'b-succeeded', 'b-running-backoff'])(
    'a delivery recorded before the workflow waited out its own delays (%s) replays on today\'s code',
    async (name) => {
      // a-retried-succeeded: Surface A, two 503s retried by the activity's RetryPolicy, then 200.
      // b-succeeded: Surface B, first attempt 200. b-running-backoff: Surface B, its activity in the
      // server's 5-minute backoff (still running when recorded).
      const json = JSON.parse(readFileSync(new URL(`../fixtures/histories/webhook-2026-11-25-${name}.json`, import.meta.url), 'utf8'));
      const history = temporal.api.history.v1.History.fromObject(json);
      await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, `whd_${name}`)).resolves.toBeUndefined();
    },
  );

  it('the delays: Surface A doubles from the first delay up to one hour; Surface B is 5 min, 30 min, 2 h, 12 h, then none', () => {
    const a = surfaceARetrySchedule(5_000);
    expect([1, 2, 3, 10, 11, 40].map((n) => webhookRetryDelayMs(a, n))).toEqual([5_000, 10_000, 20_000, 2_560_000, 3_600_000, 3_600_000]);
    const b = surfaceBRetrySchedule();
    const min = 60_000;
    expect([1, 2, 3, 4, 5, 6].map((n) => webhookRetryDelayMs(b, n))).toEqual([5 * min, 30 * min, 120 * min, 720 * min, null, null]);
    expect(webhookRetryDelayMs(a, 0)).toBeNull();
  });
});
