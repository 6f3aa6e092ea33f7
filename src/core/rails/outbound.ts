/** Outbound bank files (docs/rails.md "Files"): composed by the rail's module, recorded, then uploaded by the rail's module (over SFTP for the file rails, src/rails/file-rail/). Names no rail and no transport. */
import { newId } from '../../domain/ids';
import type { RailFileParts } from '../../rails/adapter';
import type { Core } from '../context';
import { railFiles } from '../metrics/registry';
import { insertOutboundFile, markFileUploaded, sha256Hex } from './files';
import { lockQueuedInstructions, markInstructionsInFile } from './instructions';
import { liveRailConnection } from './rail-adapters';
import { instructionRecord } from './records';

function fileParts(core: Core, rail: string): RailFileParts {
  const c = liveRailConnection(core, rail);
  if (!c) throw new Error(`The ${rail} rail is not configured`);
  if (!c.configured.files) throw new Error(`The ${rail} rail has no files`);
  return c.configured.files;
}

/**
 * Collects up to the rail's per-file limit of queued instructions into one file, in one transaction;
 * idempotent per `windowKey`; null fileId when nothing is queued. Throws the module's error when the file is invalid.
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
    const file = await parts.compose(rows.map(instructionRecord), now, fileId, core.log);
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

/** Uploads through the rail module (`RailFileParts.upload`); `exists`: the bank already had the name (crash between upload and record). Throws what the module throws (SftpError for file rails). */
export async function uploadOutboundFile(core: Core, fileId: string): Promise<{ result: 'uploaded' | 'exists' | 'already_sent' }> {
  const file = await core.db.selectFrom('rail_files').selectAll().where('id', '=', fileId).executeTakeFirstOrThrow();
  if (file.status === 'uploaded') return { result: 'already_sent' };
  const parts = fileParts(core, file.rail);
  const result = await parts.upload(file.name, file.content ?? '');
  const now = core.now();
  const settlesAt = parts.settlesAt(file.execution_date, now);
  if (await markFileUploaded(core.db, fileId, settlesAt, now)) {
    railFiles.inc({ rail: file.rail, direction: 'outbound', outcome: 'sent' });
    core.log.info({ rail: file.rail, fileId, name: file.name, transactions: file.transactions, result }, 'bank file sent');
  }
  return { result };
}

