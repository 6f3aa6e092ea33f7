/** Activities of the bank file workflows over src/core/rails; idempotent, SFTP failures retried until the connection works. */
import { Context } from '@temporalio/activity';
import type { Core } from '../src/core/context';
import { collectOutboundFile, uploadOutboundFile } from '../src/core/rails/outbound';
import { pollRailInbox } from '../src/core/rails/inbox';
import type { RailFileActivities } from '../workflows/rail-files.contract';

export const RAIL_POLL_HEARTBEAT_MS = 5_000;

/** Null outside an activity (tests call the factory directly). */
function inActivity(): Context | null {
  try {
    return Context.current();
  } catch {
    return null;
  }
}

export function createRailActivities(core: Core) {
  return {
    async railFileCollect(input: { rail: string; windowKey: string }) {
      return collectOutboundFile(core, input.rail, input.windowKey);
    },
    async railFileUpload(input: { fileId: string }) {
      return uploadOutboundFile(core, input.fileId);
    },
    /** Heartbeats every RAIL_POLL_HEARTBEAT_MS so a poll lost with its worker is retried after the heartbeat timeout. */
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
