/** Bank files (docs/rails.md "Files", "Inbound files"): owns the writes of rail_files. Names no rail. */
import { createHash } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import type { RailFilesTable } from '../../db/tables/rails';
import { newId } from '../../domain/ids';
import type { Core } from '../context';

export type RailFileRow = Selectable<RailFilesTable>;

export function sha256Hex(content: Buffer | string): string {
  return createHash('sha256').update(content).digest('hex');
}

export type NewOutboundFile = Omit<RailFileRow, 'direction' | 'status' | 'settles_at' | 'settled_at' | 'error' | 'updated_at'>;

export async function insertOutboundFile(tx: DbOrTx, file: NewOutboundFile): Promise<void> {
  await tx.insertInto('rail_files').values({ ...file, direction: 'outbound', status: 'written', settles_at: null, settled_at: null, error: null, updated_at: file.created_at }).execute();
}

/** `settlesAt`: when its entries settle unless answered, or null; false when already uploaded. */
export async function markFileUploaded(db: DbOrTx, fileId: string, settlesAt: Date | null, now: Date): Promise<boolean> {
  const updated = await db
    .updateTable('rail_files')
    .set({ status: 'uploaded', updated_at: now, ...(settlesAt ? { settles_at: settlesAt } : {}) })
    .where('id', '=', fileId)
    .where('status', '=', 'written')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Once per rail and name; other bytes under a known name are quarantined as `<name>#<sha256 prefix>`, never applied. */
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

export async function markInboundProcessed(tx: DbOrTx, fileId: string, info: { kind: string; messageId: string; transactions: number }, now: Date): Promise<void> {
  await tx
    .updateTable('rail_files')
    .set({ status: 'processed', kind: info.kind, message_id: info.messageId, transactions: info.transactions, updated_at: now })
    .where('id', '=', fileId)
    .execute();
}

export async function markInboundQuarantined(db: DbOrTx, fileId: string, error: string, now: Date): Promise<void> {
  await db.updateTable('rail_files').set({ status: 'quarantined', error: error.slice(0, 2000), updated_at: now }).where('id', '=', fileId).where('status', '=', 'received').execute();
}

/** ACH files past their settlement time not yet recorded settled (oldest first). */
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

export async function markFileSettled(tx: DbOrTx, fileId: string, now: Date): Promise<void> {
  await tx.updateTable('rail_files').set({ settled_at: now, updated_at: now }).where('id', '=', fileId).where('settled_at', 'is', null).execute();
}
