/**
 * Outbound bank files (docs/rails.md "Files"): a window's queued payments become one file composed
 * by the rail's module (src/rails/<rail>/module.ts: a pain.001 validated against the official XSD,
 * a NACHA file read back by its parser) before it is recorded (src/core/rails/files.ts), then
 * uploaded over SFTP (`<name>.part`, then rename; a name already on the server is not sent again).
 * Names no rail.
 */
import { newId } from '../../domain/ids';
import type { RailFileParts } from '../../rails/adapter';
import { SftpTransport } from '../../rails/sftp/transport';
import type { Core } from '../context';
import { railFiles } from '../metrics/registry';
import { insertOutboundFile, markFileUploaded, sha256Hex } from './files';
import { lockQueuedInstructions, markInstructionsInFile } from './instructions';
import { liveRailConnection } from './rail-adapters';

/** The file parts of `rail`'s configured connection, or an Error naming what is missing. */
function fileParts(core: Core, rail: string): RailFileParts {
  const c = liveRailConnection(core, rail);
  if (!c) throw new Error(`The ${rail} rail is not configured`);
  if (!c.configured.files) throw new Error(`The ${rail} rail has no files`);
  return c.configured.files;
}

/**
 * Collects up to the rail's most transactions per file (`RailFileParts.maxTransactions`, the bank's
 * limit) of the queued instructions of `rail` into a new outbound file for window `windowKey`, in
 * one transaction (the window's workflow collects again while more are queued, so a window over the
 * limit becomes several files, each instruction in exactly one): the rail's module composes (and checks) the
 * file, this records it `written` and moves the instructions `in_file`. Idempotent per
 * `windowKey`: a retry finds the file already recorded. Returns null fileId when nothing is
 * queued. Throws the module's error when the file is not valid (nothing is recorded; SEPA:
 * InvalidRailFileError).
 */
export async function collectOutboundFile(core: Core, rail: string, windowKey: string): Promise<{ fileId: string | null; transactions: number }> {
  const done = await core.db.selectFrom('rail_files').select(['id', 'transactions']).where('window_key', '=', windowKey).where('direction', '=', 'outbound').executeTakeFirst();
  if (done) return { fileId: done.id, transactions: done.transactions };
  const parts = fileParts(core, rail);
  return core.db.transaction().execute(async (tx) => {
    const rows = await lockQueuedInstructions(tx, rail, parts.maxTransactions);
    if (rows.length === 0) return { fileId: null, transactions: 0 };
    const now = core.now();
    const fileId = newId('rf', now.getTime());
    const file = await parts.compose(rows, now, fileId, core.log);
    const total = rows.reduce((sum, r) => sum + BigInt(r.amount_minor), 0n);
    await insertOutboundFile(tx, {
      id: fileId,
      rail,
      name: file.name,
      message_id: file.messageId,
      kind: file.kind,
      sha256: sha256Hex(file.content),
      bytes: Buffer.byteLength(file.content),
      content: file.content,
      transactions: rows.length,
      control_sum_minor: total,
      execution_date: file.executionDate,
      window_key: windowKey,
      settlement_window: file.settlementWindow,
      created_at: now,
    });
    await markInstructionsInFile(tx, rows.map((r) => ({ payoutId: r.payout_id, attempt: r.attempt, group: file.groupOf(r.payout_id) })), fileId, now);
    return { fileId, transactions: rows.length };
  });
}

/**
 * Uploads outbound file `fileId` to the bank's upload directory and records it `uploaded` (with
 * when its entries settle unless answered, when the rail's module says: ACH).
 * `already_sent` when it was recorded sent before; `exists` when the server already had the name
 * (a retry after a crash between upload and record). Throws SftpError (retryable or not).
 */
export async function uploadOutboundFile(core: Core, fileId: string): Promise<{ result: 'uploaded' | 'exists' | 'already_sent' }> {
  const file = await core.db.selectFrom('rail_files').selectAll().where('id', '=', fileId).executeTakeFirstOrThrow();
  if (file.status === 'uploaded') return { result: 'already_sent' };
  const parts = fileParts(core, file.rail);
  const sftp = new SftpTransport(parts.upload.sftp);
  let result: 'uploaded' | 'exists';
  try {
    result = await sftp.upload(parts.upload.dir, file.name, Buffer.from(file.content ?? '', 'utf8'));
  } finally {
    await sftp.close().catch(() => undefined);
  }
  const now = core.now();
  // ACH: its entries settle by silence at the settlement of its effective entry date.
  const settlesAt = parts.settlesAt(file.execution_date, now);
  if (await markFileUploaded(core.db, fileId, settlesAt, now)) {
    railFiles.inc({ rail: file.rail, direction: 'outbound', outcome: 'sent' });
    core.log.info({ rail: file.rail, fileId, name: file.name, transactions: file.transactions, result }, 'bank file sent');
  }
  return { result };
}

