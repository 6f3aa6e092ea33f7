/** Payment instructions of live rails (docs/rails.md "Files", "The seam"): owns the writes of rail_instructions. Names no rail. */
import { type Selectable, sql } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import type { RailInstructionsTable } from '../../db/tables/rails';
import { statusesBefore } from '../../domain/rail-instructions';

export type InstructionStatus = RailInstructionsTable['status'];

/** A rail_instructions row (the seam's `RailInstructionRecord`). Amounts in minor units. */
export type InstructionRow = Selectable<RailInstructionsTable>;

/** A row to queue (the seam's `NewRailInstruction`): not yet in a file; `status` `queued` unless the rail accepted it at submission. */
export type NewInstructionRow = Omit<InstructionRow, 'status' | 'rail_file_id' | 'payment_information_id' | 'created_at' | 'updated_at'> & {
  status?: 'queued' | 'accepted';
};

/** Once per payout and attempt: a retried submission gets the stored row back. */
export async function queueInstruction(db: DbOrTx, instruction: NewInstructionRow, now: Date): Promise<InstructionRow> {
  await db
    .insertInto('rail_instructions')
    .values({
      ...instruction,
      details: instruction.details ? JSON.stringify(instruction.details) : null,
      status: instruction.status ?? 'queued',
      rail_file_id: null,
      payment_information_id: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['payout_id', 'attempt']).doNothing())
    .execute();
  return db.selectFrom('rail_instructions').selectAll().where('payout_id', '=', instruction.payout_id).where('attempt', '=', instruction.attempt).executeTakeFirstOrThrow();
}

export async function instructionOf(db: DbOrTx, payoutId: string, attempt: number) {
  return db.selectFrom('rail_instructions').selectAll().where('payout_id', '=', payoutId).where('attempt', '=', attempt).executeTakeFirst();
}

/** As a decimal string. */
export async function nextSequenceValue(db: DbOrTx, name: string): Promise<string> {
  const seq = await sql<{ n: string }>`select nextval(${name})::text as n`.execute(db);
  return seq.rows[0]!.n;
}

/** Locked for update when `lock`. */
export async function findInstructionByDetail(db: DbOrTx, rail: string, key: string, value: string, lock = false) {
  let q = db.selectFrom('rail_instructions').selectAll().where('rail', '=', rail).where(sql<string>`details->>${key}`, '=', value);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function updateInstructionDetails(db: DbOrTx, key: { payoutId: string; attempt: number }, details: Record<string, string>, now: Date): Promise<void> {
  await db
    .updateTable('rail_instructions')
    .set({ details: sql`coalesce(details, '{}'::jsonb) || ${JSON.stringify(details)}::jsonb`, updated_at: now })
    .where('payout_id', '=', key.payoutId)
    .where('attempt', '=', key.attempt)
    .execute();
}

/** Last updated before `before` (and created at or after `createdSince` when given); oldest first, at most `limit`. */
export async function instructionsWaiting(db: DbOrTx, rail: string, statuses: InstructionStatus[], before: Date, limit: number, createdSince?: Date) {
  let q = db.selectFrom('rail_instructions').selectAll().where('rail', '=', rail).where('status', 'in', statuses).where('updated_at', '<', before);
  if (createdSince) q = q.where('created_at', '>=', createdSince);
  return q.orderBy('updated_at').limit(limit).execute();
}

/** The instructions of `rail` with these trace numbers, one query per 1,000, locked (in the settlement sweep's order) when `lock`. */
export async function findInstructionsByTraces(db: DbOrTx, rail: string, traceNumbers: string[], lock = false) {
  const rows = [];
  for (let i = 0; i < traceNumbers.length; i += 1000) {
    let q = db.selectFrom('rail_instructions').selectAll().where('rail', '=', rail).where('trace_number', 'in', traceNumbers.slice(i, i + 1000)).orderBy('created_at').orderBy('payout_id').orderBy('attempt');
    if (lock) q = q.forUpdate();
    rows.push(...(await q.execute()));
  }
  return rows;
}

/** Locks the `in_file` or `accepted` instructions of `fileId` (ACH settlement by silence); held rows wait. */
export async function lockUnansweredInstructionsOfFile(tx: DbOrTx, fileId: string) {
  return tx.selectFrom('rail_instructions').selectAll().where('rail_file_id', '=', fileId).where('status', 'in', ['in_file', 'accepted']).orderBy('created_at').orderBy('payout_id').forUpdate().execute();
}

/** Skips rows another worker holds. */
export async function lockQueuedInstructions(tx: DbOrTx, rail: string, limit: number) {
  return tx
    .selectFrom('rail_instructions')
    .selectAll()
    .where('rail', '=', rail)
    .where('status', '=', 'queued')
    .orderBy('created_at')
    .orderBy('payout_id')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** queued -> in_file, each with its group in the file (pain.001 PmtInfId, ACH batch). */
export async function markInstructionsInFile(tx: DbOrTx, keys: Array<{ payoutId: string; attempt: number; group: string }>, fileId: string, now: Date): Promise<void> {
  for (const k of keys) {
    await tx
      .updateTable('rail_instructions')
      .set({ status: 'in_file', rail_file_id: fileId, payment_information_id: k.group, updated_at: now })
      .where('payout_id', '=', k.payoutId)
      .where('attempt', '=', k.attempt)
      .where('status', '=', 'queued')
      .execute();
  }
}

/** In file order. */
export async function instructionsOfFile(db: DbOrTx, fileId: string) {
  return db.selectFrom('rail_instructions').selectAll().where('rail_file_id', '=', fileId).orderBy('created_at').orderBy('payout_id').execute();
}

/** By EndToEndId, else UETR (lowercase). */
export async function findInstruction(db: DbOrTx, refs: { endToEndId: string | null; uetr: string | null }) {
  let q = db.selectFrom('rail_instructions').selectAll();
  if (refs.endToEndId) q = q.where('end_to_end_id', '=', refs.endToEndId);
  else if (refs.uetr) q = q.where('uetr', '=', refs.uetr);
  else return undefined;
  return q.executeTakeFirst();
}

/** Key and references only (`payout_id`, `attempt`, `end_to_end_id`, `uetr`) of the instructions a bank file's batch names. */
export async function findInstructionReferences(db: DbOrTx, refs: { endToEndIds: string[]; uetrs: string[] }) {
  if (refs.endToEndIds.length === 0 && refs.uetrs.length === 0) return [];
  // Two array parameters rather than two lists of up to 1,000 each (a bank file's batch).
  return db
    .selectFrom('rail_instructions')
    .select(['payout_id', 'attempt', 'end_to_end_id', 'uetr'])
    .where(sql<boolean>`end_to_end_id = any(${refs.endToEndIds}::text[]) or uetr = any(${refs.uetrs}::text[])`)
    .execute();
}

/** One statement; never back; idempotent. */
export async function advanceInstructions(tx: DbOrTx, keys: Array<{ payoutId: string; attempt: number }>, status: InstructionStatus, now: Date): Promise<void> {
  const earlier = statusesBefore(status);
  for (let i = 0; i < keys.length; i += 1000) {
    const chunk = keys.slice(i, i + 1000);
    // Joined on the primary key with unnested keys (a list of row comparisons is planned as a scan).
    await sql`
      update rail_instructions r set status = ${status}, updated_at = ${now}
      from unnest(${chunk.map((k) => k.payoutId)}::text[], ${chunk.map((k) => k.attempt)}::int[]) as k(payout_id, attempt)
      where r.payout_id = k.payout_id and r.attempt = k.attempt and r.status = any(${earlier}::text[])`.execute(tx);
  }
}

/** One conditional UPDATE from an earlier status: atomic in or out of a transaction (docs/rails.md "The seam"). */
export async function advanceInstruction(tx: DbOrTx, key: { payoutId: string; attempt: number }, status: InstructionStatus, now: Date): Promise<void> {
  const earlier = statusesBefore(status);
  if (earlier.length === 0) return;
  await tx.updateTable('rail_instructions').set({ status, updated_at: now }).where('payout_id', '=', key.payoutId).where('attempt', '=', key.attempt).where('status', 'in', earlier).execute();
}
