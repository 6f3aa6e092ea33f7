/**
 * The shared file-rail module (docs/rails.md "Files"): what every SFTP bank-file rail has in common,
 * reached by the core only through src/rails/adapter.ts: {@link fileRailAdapter} (submit and health),
 * {@link sftpUpload} and {@link pollFileRailInbox}.
 */
import type { PaymentInstruction, RailAdapter, RailCapabilities, RailHealth, RailReferences, RailSubmitResult } from '../adapter';
import { type SftpConnectionConfig, SftpTransport, sftpHealth } from '../sftp/transport';

export { MAX_FILES_PER_POLL, pollSftpInbox as pollFileRailInbox, quarantineInboundFile } from '../sftp/inbox';

/** What one file rail adds to the shared adapter; `E` is the entry it queues. */
export interface FileRailSpec<E> {
  /** Adapter name (`iso20022_sftp`, `ach_nacha`). */
  name: string;
  capabilities: RailCapabilities;
  sftp: SftpConnectionConfig;
  /** The one currency the rail pays (ISO 4217). */
  currency: string;
  /** How the rejection messages name the rail and its file: `SEPA` / `The bank file`, `ACH` / `The ACH file`. */
  railLabel: string;
  fileLabel: string;
  /** What the file cannot carry of this payout (recipient field or reference), or null. */
  carriageProblem(instruction: PaymentInstruction): { message: string } | null;
  /** The entry to queue for an instruction that can be carried. */
  entry(instruction: PaymentInstruction): E;
  /** Queues the entry once per (payoutId, attempt) and returns the references stored. */
  enqueue(entry: E): Promise<RailReferences>;
}

/** The adapter of a file rail: `submit` queues the attempt's entry for the next file (docs/rails.md "How a payout waits for its rail"). */
export function fileRailAdapter<E>(spec: FileRailSpec<E>): RailAdapter {
  return {
    name: spec.name,
    capabilities: spec.capabilities,
    async submit(instruction: PaymentInstruction): Promise<RailSubmitResult> {
      const problem =
        instruction.currency !== spec.currency ? { message: `the ${spec.railLabel} rail pays ${spec.currency} only, not ${instruction.currency}` } : spec.carriageProblem(instruction);
      if (problem) {
        return { outcome: 'rejected', failureCode: 'invalid_destination', message: `${spec.fileLabel} cannot carry this payout: ${problem.message}`, retryable: false, retryAfterMs: 0, references: {} };
      }
      return { outcome: 'accepted', references: await spec.enqueue(spec.entry(instruction)) };
    },
    async status() {
      return null;
    },
    async health(): Promise<RailHealth> {
      return sftpHealth(spec.sftp);
    },
  };
}

/** Uploads one composed file to `dir` of `connection`: `exists` when the server already had the name (a crash between upload and record). Throws SftpError. */
export function sftpUpload(connection: SftpConnectionConfig, dir: string): (name: string, content: string) => Promise<'uploaded' | 'exists'> {
  return async (name, content) => {
    const sftp = new SftpTransport(connection);
    try {
      return await sftp.upload(dir, name, Buffer.from(content, 'utf8'));
    } finally {
      await sftp.close().catch(() => undefined);
    }
  };
}
