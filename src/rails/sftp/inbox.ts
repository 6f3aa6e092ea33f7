/**
 * The inbox poll of a file rail over SFTP (docs/rails.md "Inbound files"): each new file is taken
 * exactly once (by name and sha256), also when two workers poll at once.
 */
import type { InboxPollResult, RailFileRecord, RailHost } from '../adapter';
import { MAX_STREAMED_ISO20022_BYTES } from '../iso20022/camt054-stream';
import { type SftpConnectionConfig, SftpTransport } from './transport';

/** Each file costs a download and a transaction: a backlog is read in polls that end well inside the activity timeout. */
export const MAX_FILES_PER_POLL = 50;

/** One poll; `listedAt` (given to `afterListing`) is taken just before the listing. Throws SftpError (the poller retries). */
export async function pollSftpInbox(
  host: RailHost,
  connection: { sftp: SftpConnectionConfig; downloadDir: string },
  read: (file: RailFileRecord, bankTime: Date | null) => Promise<{ events: number; quarantined: boolean }>,
  afterListing?: (listedAt: Date) => Promise<number>,
): Promise<InboxPollResult> {
  const sftp = new SftpTransport(connection.sftp);
  const result: InboxPollResult = { files: 0, events: 0, quarantined: 0, more: false };
  const listedAt = host.now();
  try {
    const listed = await sftp.list(connection.downloadDir);
    const finished = await host.store.finishedInboundNames(host.rail, listed.map((f) => f.name));
    for (const f of listed) {
      if (finished.has(f.name)) continue;
      if (result.files >= MAX_FILES_PER_POLL) {
        result.more = true;
        break;
      }
      const content = await sftp.download(connection.downloadDir, f.name, MAX_STREAMED_ISO20022_BYTES);
      const file = await host.store.recordInboundFile(host.rail, f.name, content);
      if (file.status !== 'received') {
        if (file.status === 'quarantined' && file.name !== f.name) result.quarantined++;
        continue;
      }
      const processed = (await host.readStatement(file)) ?? (await read(file, f.modifiedAt));
      result.files++;
      result.events += processed.events;
      if (processed.quarantined) result.quarantined++;
    }
  } finally {
    await sftp.close().catch(() => undefined);
  }
  // Only once every file listed is read (an answer waiting in the outbox must be seen first).
  if (afterListing && !result.more) result.events += await afterListing(listedAt);
  return result;
}

export async function quarantineInboundFile(host: RailHost, file: RailFileRecord, error: string, what: string): Promise<{ events: 0; quarantined: true }> {
  await host.store.markInboundQuarantined(file.id, error, host.now());
  host.metrics.railFiles.inc({ rail: file.rail, direction: 'inbound', outcome: 'quarantined' });
  host.log.error({ rail: file.rail, fileId: file.id, name: file.name, error }, `bank file quarantined: ${what}`);
  return { events: 0, quarantined: true };
}
