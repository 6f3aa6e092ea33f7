/**
 * Activities of the bank file workflows (contract: workflows/rail-files.contract.ts): thin
 * adapters over src/core/rails. Each is idempotent: a collection is keyed by its window, an
 * upload never sends a name twice, an inbound file is taken once by name and sha256. SFTP
 * failures are retried by the workflows' retry policies, also those an operator must fix (a
 * changed host key, a refused key): the files wait, and go as soon as the connection works.
 */
import type { Core } from '../src/core/context';
import { collectOutboundFile, uploadOutboundFile } from '../src/core/rails/files';
import { pollRailInbox } from '../src/core/rails/inbox';
import type { RailFileActivities } from '../workflows/rail-files.contract';

/** The rail file activities over one core. */
export function createRailActivities(core: Core) {
  return {
    /** collectOutboundFile: the window's queued payments into one validated pain.001. */
    async railFileCollect(input: { rail: string; windowKey: string }) {
      return collectOutboundFile(core, input.rail, input.windowKey);
    },
    /** uploadOutboundFile: the file to the bank over SFTP, once. */
    async railFileUpload(input: { fileId: string }) {
      return uploadOutboundFile(core, input.fileId);
    },
    /** pollRailInbox: every new bank file, once. */
    async railInboxPoll(input: { rail: string }) {
      return pollRailInbox(core, input.rail);
    },
  } satisfies RailFileActivities;
}
