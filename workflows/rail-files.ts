/**
 * The bank file workflows of a file rail (docs/rails.md "Files"; contract:
 * workflows/rail-files.contract.ts). Pure orchestration.
 *
 * railWindowWorkflow: one per rail and collection window (started by the first payout queued in
 * the window). Sleeps until the window closes, then collects the queued payments into a pain.001
 * (written and validated in one activity), sets the search attribute RailFileId, and uploads it
 * over SFTP, retried until the bank's server takes it (an upload never sends a name twice). A
 * window with more than one file's worth collects again.
 *
 * railInboxWorkflow: one per rail, started by the worker when the rail is configured. Every
 * `pollIntervalMs` it lists the bank's outbox and takes each new file exactly once (a bounded
 * number per poll; with more waiting it polls again at once); it continues as new every
 * RAIL_INBOX_POLLS_PER_RUN polls.
 */
import { continueAsNew, proxyActivities, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import { RAIL_INBOX_POLLS_PER_RUN, type RailFileActivities, type RailInboxInput, type RailWindowInput } from './rail-files.contract';
import { SA } from './search-attributes.contract';

/** Collecting and polling: short database work and one SFTP listing; retried with backoff. */
const acts = proxyActivities<RailFileActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * The inbox poll: the same, with a heartbeat timeout (the activity heartbeats every 5 s), so a
 * poll lost with its worker is retried after 20 s rather than after its 2-minute timeout.
 */
const poll = proxyActivities<RailFileActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** The upload: retried until the bank's server takes the file (an outage delays it, never loses it). */
const upload = proxyActivities<RailFileActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});

/** One collection window of a file rail (see the file header). */
export async function railWindowWorkflow(input: RailWindowInput): Promise<{ files: string[] }> {
  const wait = input.closesAtMs - Date.now();
  if (wait > 0) await sleep(wait);
  const files: string[] = [];
  for (;;) {
    const { fileId } = await acts.railFileCollect({ rail: input.rail, windowKey: `${input.rail}:${input.windowStartMs}:${files.length}` });
    if (!fileId) break;
    files.push(fileId);
    upsertSearchAttributes([{ key: SA.RailFileId, value: fileId }]);
    await upload.railFileUpload({ fileId });
  }
  return { files };
}

/** The inbox poller of a file rail (see the file header). */
export async function railInboxWorkflow(input: RailInboxInput): Promise<never> {
  for (let i = 0; i < RAIL_INBOX_POLLS_PER_RUN; i++) {
    const r = await poll.railInboxPoll({ rail: input.rail });
    // A backlog is read in bounded polls, one after the other; otherwise wait for the interval.
    if (!r.more) await sleep(input.pollIntervalMs);
  }
  return continueAsNew<typeof railInboxWorkflow>(input);
}
