/**
 * Outbound bank files (docs/rails.md "Files"): this module owns the writes of rail_files. A
 * window's queued payments become one pain.001.001.09 (SEPA), validated against the official XSD
 * before it is recorded, or one NACHA file (ACH), then uploaded over SFTP (`<name>.part`, then rename; a name already on the
 * server is not sent again).
 */
import { createHash } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import type { RailFilesTable, RailInstructionsTable } from '../../db/tables/rails';
import { newId } from '../../domain/ids';
import { writePain001 } from '../../rails/iso20022/pain001';
import { validateIso20022 } from '../../rails/iso20022/validate';
import { sepaMessageId } from '../../rails/sepa/adapter';
import { sepaRailConfig } from '../../rails/sepa/config';
import { ACH_RAIL, achRailConfig } from '../../rails/ach/config';
import { SftpTransport } from '../../rails/sftp/transport';
import { executionDate } from '../../rails/target2';
import type { Core } from '../context';
import { railFiles } from '../metrics/registry';
import { achSettlesAt, type ComposedRailFile, composeAchFile } from './ach';
import { lockQueuedInstructions, markInstructionsInFile } from './instructions';

/** A rail_files row. */
export type RailFileRow = Selectable<RailFilesTable>;

/** Most transactions in one outbound file (a larger window is split into several files). */
export const MAX_FILE_TRANSACTIONS = 5000;

/** Lowercase hex sha256 of `content`. */
export function sha256Hex(content: Buffer | string): string {
  return createHash('sha256').update(content).digest('hex');
}

/** An outbound file whose XML does not validate: never recorded, never sent (an operator alert). */
export class InvalidRailFileError extends Error {
  constructor(readonly errors: string[]) {
    super(`The pain.001 file does not validate against the official XSD: ${errors.slice(0, 3).join('; ')}`);
    this.name = 'InvalidRailFileError';
  }
}

/** The SEPA rail's configuration, or an Error naming what is missing. */
function sepaConfig(core: Core) {
  const r = sepaRailConfig(core.config);
  if (!r.config) throw new Error(`The SEPA rail is not configured: ${r.missing.join(', ')} unset`);
  return r.config;
}

/** The ACH rail's configuration, or an Error naming what is missing. */
function achConfig(core: Core) {
  const r = achRailConfig(core.config);
  if (!r.config) throw new Error(`The ACH rail is not configured: ${r.missing.join(', ')} unset`);
  return r.config;
}

/** Composes the pain.001 of `rows` as file `fileId` and validates it against the official XSD. Throws {@link InvalidRailFileError}. */
async function composeSepaFile(core: Core, rail: string, windowKey: string, rows: Array<Selectable<RailInstructionsTable>>, now: Date, fileId: string): Promise<ComposedRailFile> {
  const sepa = sepaConfig(core);
  const messageId = sepaMessageId(fileId);
  const paymentInformationId = `${messageId}-1`;
  const requestedExecutionDate = executionDate(now, sepa.cutOff, sepa.timeZone);
  const xml = writePain001({
    messageId,
    createdAt: now,
    paymentInformationId,
    requestedExecutionDate,
    // One booking per transaction, so each payout is confirmed by its own camt.054 entry.
    batchBooking: false,
    debtor: sepa.debtor,
    transfers: rows.map((r) => ({
      endToEndId: r.end_to_end_id,
      uetr: r.uetr!,
      amountMinor: r.amount_minor.toString(),
      currency: 'EUR' as const,
      creditor: { name: r.creditor_name, iban: r.creditor_iban!, bic: r.creditor_bic },
      remittanceInformation: r.remittance,
    })),
  });
  const validation = await validateIso20022(xml, 'pain.001.001.09');
  if (!validation.valid) {
    core.log.error({ rail, windowKey, errors: validation.errors.slice(0, 5) }, 'outbound bank file failed XSD validation; nothing sent');
    throw new InvalidRailFileError(validation.errors);
  }
  return { name: `${messageId}.xml`, messageId, kind: 'pain.001', content: xml, executionDate: requestedExecutionDate, settlementWindow: null, groupOf: () => paymentInformationId };
}

/**
 * Collects up to {@link MAX_FILE_TRANSACTIONS} queued instructions of `rail` into a new outbound
 * file for window `windowKey`, in one transaction: writes the rail's file (SEPA: a pain.001 with
 * amounts from integer minor units and names in the SEPA character set, validated against the
 * official XSD; ACH: a NACHA file, read back by the NACHA parser, src/core/rails/ach.ts), records
 * the file `written` and moves the instructions `in_file`. Idempotent per `windowKey`: a retry finds
 * the file already recorded. Returns null fileId when nothing is queued. Throws
 * {@link InvalidRailFileError} (or the NACHA writer's error) when the file is not valid (nothing is recorded).
 */
export async function collectOutboundFile(core: Core, rail: string, windowKey: string): Promise<{ fileId: string | null; transactions: number }> {
  const done = await core.db.selectFrom('rail_files').select(['id', 'transactions']).where('window_key', '=', windowKey).where('direction', '=', 'outbound').executeTakeFirst();
  if (done) return { fileId: done.id, transactions: done.transactions };
  const ach = rail === ACH_RAIL ? achConfig(core) : null;
  if (!ach) sepaConfig(core);
  return core.db.transaction().execute(async (tx) => {
    const rows = await lockQueuedInstructions(tx, rail, MAX_FILE_TRANSACTIONS);
    if (rows.length === 0) return { fileId: null, transactions: 0 };
    const now = core.now();
    const fileId = newId('rf', now.getTime());
    const file = ach ? composeAchFile(ach, rows, now, fileId) : await composeSepaFile(core, rail, windowKey, rows, now, fileId);
    const total = rows.reduce((sum, r) => sum + BigInt(r.amount_minor), 0n);
    await tx
      .insertInto('rail_files')
      .values({
        id: fileId,
        rail,
        direction: 'outbound',
        name: file.name,
        message_id: file.messageId,
        kind: file.kind,
        status: 'written',
        sha256: sha256Hex(file.content),
        bytes: Buffer.byteLength(file.content),
        content: file.content,
        transactions: rows.length,
        control_sum_minor: total,
        execution_date: file.executionDate,
        window_key: windowKey,
        settlement_window: file.settlementWindow,
        settles_at: null,
        settled_at: null,
        error: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await markInstructionsInFile(tx, rows.map((r) => ({ payoutId: r.payout_id, attempt: r.attempt, group: file.groupOf(r.payout_id) })), fileId, now);
    return { fileId, transactions: rows.length };
  });
}

/**
 * Uploads outbound file `fileId` to the bank's upload directory and records it `uploaded` (an ACH
 * file also with when its entries settle unless returned, src/core/rails/ach.ts achSettlesAt).
 * `already_sent` when it was recorded sent before; `exists` when the server already had the name
 * (a retry after a crash between upload and record). Throws SftpError (retryable or not).
 */
export async function uploadOutboundFile(core: Core, fileId: string): Promise<{ result: 'uploaded' | 'exists' | 'already_sent' }> {
  const file = await core.db.selectFrom('rail_files').selectAll().where('id', '=', fileId).executeTakeFirstOrThrow();
  if (file.status === 'uploaded') return { result: 'already_sent' };
  const ach = file.rail === ACH_RAIL ? achConfig(core) : null;
  const connection = ach ?? sepaConfig(core);
  const sftp = new SftpTransport(connection.sftp);
  let result: 'uploaded' | 'exists';
  try {
    result = await sftp.upload(connection.uploadDir, file.name, Buffer.from(file.content ?? '', 'utf8'));
  } finally {
    await sftp.close().catch(() => undefined);
  }
  const now = core.now();
  const updated = await core.db
    .updateTable('rail_files')
    // ACH: its entries settle by silence at the settlement of its effective entry date.
    .set({ status: 'uploaded', updated_at: now, ...(ach ? { settles_at: achSettlesAt(ach, file.execution_date, now) } : {}) })
    .where('id', '=', fileId)
    .where('status', '=', 'written')
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) > 0) {
    railFiles.inc({ rail: file.rail, direction: 'outbound', outcome: 'sent' });
    core.log.info({ rail: file.rail, fileId, name: file.name, transactions: file.transactions, result }, 'bank file sent');
  }
  return { result };
}

/**
 * Records inbound file `name` (downloaded bytes `content`) as `received`, once per rail and name.
 * Returns the row: the new one, or the one recorded before (its status says whether it was
 * processed). A second file under a known name with other bytes is recorded as its own
 * quarantined file (`<name>#<sha256 prefix>`), never applied.
 */
export async function recordInboundFile(core: Core, rail: string, name: string, content: Buffer): Promise<RailFileRow> {
  const sha256 = sha256Hex(content);
  const now = core.now();
  const values = {
    rail,
    direction: 'inbound' as const,
    message_id: null,
    kind: 'unknown',
    sha256,
    bytes: content.length,
    content: content.toString('utf8'),
    transactions: 0,
    control_sum_minor: null,
    execution_date: null,
    window_key: null,
    settlement_window: null,
    settles_at: null,
    settled_at: null,
    created_at: now,
    updated_at: now,
  };
  await core.db
    .insertInto('rail_files')
    .values({ ...values, id: newId('rf', now.getTime()), name, status: 'received', error: null })
    .onConflict((oc) => oc.columns(['rail', 'direction', 'name']).doNothing())
    .execute();
  const row = await core.db.selectFrom('rail_files').selectAll().where('rail', '=', rail).where('direction', '=', 'inbound').where('name', '=', name).executeTakeFirstOrThrow();
  if (row.sha256 === sha256) return row;
  const other = `${name}#${sha256.slice(0, 12)}`;
  await core.db
    .insertInto('rail_files')
    .values({ ...values, id: newId('rf', now.getTime()), name: other, status: 'quarantined', error: `a file named ${name} was already received with other content (sha256 ${row.sha256})` })
    .onConflict((oc) => oc.columns(['rail', 'direction', 'name']).doNothing())
    .execute();
  return core.db.selectFrom('rail_files').selectAll().where('rail', '=', rail).where('direction', '=', 'inbound').where('name', '=', other).executeTakeFirstOrThrow();
}

/** Names of the inbound files of `rail` already processed or quarantined, among `names`. */
export async function finishedInboundNames(db: DbOrTx, rail: string, names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows = await db
    .selectFrom('rail_files')
    .select('name')
    .where('rail', '=', rail)
    .where('direction', '=', 'inbound')
    .where('name', 'in', names)
    .where('status', 'in', ['processed', 'quarantined'])
    .execute();
  return new Set(rows.map((r) => r.name));
}

/** Marks inbound file `fileId` processed (with its kind, message id and count) within `tx`. */
export async function markInboundProcessed(tx: DbOrTx, fileId: string, info: { kind: string; messageId: string; transactions: number }, now: Date): Promise<void> {
  await tx
    .updateTable('rail_files')
    .set({ status: 'processed', kind: info.kind, message_id: info.messageId, transactions: info.transactions, updated_at: now })
    .where('id', '=', fileId)
    .execute();
}

/** Marks inbound file `fileId` quarantined with `error` (it did not parse; an operator looks at it). */
export async function markInboundQuarantined(db: DbOrTx, fileId: string, error: string, now: Date): Promise<void> {
  await db.updateTable('rail_files').set({ status: 'quarantined', error: error.slice(0, 2000), updated_at: now }).where('id', '=', fileId).where('status', '=', 'received').execute();
}

/** Uploaded ACH files of `rail` whose settlement time has passed and whose entries are not yet recorded settled (oldest first, at most `limit`). */
export async function dueSettlementFiles(db: DbOrTx, rail: string, now: Date, limit = 20) {
  return db
    .selectFrom('rail_files')
    .select(['id', 'settles_at'])
    .where('rail', '=', rail)
    .where('direction', '=', 'outbound')
    .where('status', '=', 'uploaded')
    .where('settled_at', 'is', null)
    .where('settles_at', '<=', now)
    .orderBy('settles_at')
    .limit(limit)
    .execute();
}

/** Records outbound ACH file `fileId` settled (its unreturned entries were recorded settled) within `tx`. */
export async function markFileSettled(tx: DbOrTx, fileId: string, now: Date): Promise<void> {
  await tx.updateTable('rail_files').set({ settled_at: now, updated_at: now }).where('id', '=', fileId).where('settled_at', 'is', null).execute();
}
