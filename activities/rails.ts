/**
 * Activities of the bank file workflows (contract: workflows/rail-files.contract.ts): thin
 * adapters over src/core/rails. Each is idempotent: a collection is keyed by its window, an
 * upload never sends a name twice, an inbound file is taken once by name and sha256. SFTP
 * failures are retried by the workflows' retry policies, also those an operator must fix (a
 * changed host key, a refused key): the files wait, and go as soon as the connection works.
 */
import { Context } from '@temporalio/activity';
import type { Core } from '../src/core/context';
import { collectOutboundFile, uploadOutboundFile } from '../src/core/rails/outbound';
import { pollRailInbox } from '../src/core/rails/inbox';
import type { RailFileActivities } from '../workflows/rail-files.contract';

/** Interval of the inbox poll's heartbeats, in ms (the workflow's heartbeat timeout is a few of them). */
export const RAIL_POLL_HEARTBEAT_MS = 5_000;

/** The running activity's context, or null when called outside an activity (tests call the factory directly). */
function inActivity(): Context | null {
  try {
    return Context.current();
  } catch {
    return null;
  }
}

/** The rail file activities over one core. */
export function createRailActivities(core: Core) {
  return {
    /** collectOutboundFile: the window's queued payments into one file of the rail (validated by its module). */
    async railFileCollect(input: { rail: string; windowKey: string }) {
      return collectOutboundFile(core, input.rail, input.windowKey);
    },
    /** uploadOutboundFile: the file to the bank over SFTP, once. */
    async railFileUpload(input: { fileId: string }) {
      return uploadOutboundFile(core, input.fileId);
    },
    /**
     * pollRailInbox: every new bank file, once. Heartbeats every RAIL_POLL_HEARTBEAT_MS while it
     * runs, so a poll lost with its worker is retried after the workflow's heartbeat timeout, not
     * its 2-minute start-to-close timeout (found by `npm run chaos`: a killed worker held the ACH
     * answers and settlements for two minutes).
     */
    async railInboxPoll(input: { rail: string }) {
      const ctx = inActivity();
      const beat = ctx ? setInterval(() => ctx.heartbeat(), RAIL_POLL_HEARTBEAT_MS) : null;
      try {
        return await pollRailInbox(core, input.rail);
      } finally {
        if (beat) clearInterval(beat);
      }
    },
  } satisfies RailFileActivities;
}
