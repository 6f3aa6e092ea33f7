/**
 * Bank file workflows of a file rail (docs/rails.md "Files"). railWindowWorkflow: one per rail and
 * window; at close collects a pain.001 and uploads it until the bank takes it. railInboxWorkflow:
 * one per rail; takes each new file of the bank's outbox exactly once.
 */
import { continueAsNew, proxyActivities, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import { RAIL_INBOX_POLLS_PER_RUN, type RailFileActivities, type RailInboxInput, type RailWindowInput } from './rail-files.contract';
import { SA } from './search-attributes.contract';

const acts = proxyActivities<RailFileActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Heartbeats every 5 s, so a poll lost with its worker is retried after 20 s. */
const poll = proxyActivities<RailFileActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Retried until the bank's server takes the file (an outage delays it, never loses it). */
const upload = proxyActivities<RailFileActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});

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

export async function railInboxWorkflow(input: RailInboxInput): Promise<never> {
  for (let i = 0; i < RAIL_INBOX_POLLS_PER_RUN; i++) {
    const r = await poll.railInboxPoll({ rail: input.rail });
    if (!r.more) await sleep(input.pollIntervalMs);
  }
  return continueAsNew<typeof railInboxWorkflow>(input);
}
