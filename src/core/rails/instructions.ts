/**
 * The payment instructions handed to a file rail (docs/rails.md "Files"): this module owns the
 * writes of rail_instructions. One row per payout attempt, queued until the rail's window
 * workflow collects it into a file; then moved by the bank's answers (and, on ACH, settled by
 * silence on the effective date).
 */
import { sql } from 'kysely';
import type { QueuedAchEntry } from '../../rails/ach/adapter';
import { type QueuedTransfer, sepaMessageId } from '../../rails/sepa/adapter';
import type { DbOrTx } from '../../db/schema';
import type { RailInstructionsTable } from '../../db/tables/rails';
import type { Core } from '../context';

/** A stored instruction's status (see RailInstructionsTable). */
export type InstructionStatus = RailInstructionsTable['status'];

/**
 * Queues `transfer` on `rail` (idempotent per payout and attempt: a retried submission finds the
 * row already there and gets its references back). Returns the stored EndToEndId and UETR.
 */
export async function queueInstruction(core: Core, rail: string, transfer: QueuedTransfer): Promise<{ endToEndId: string; uetr: string }> {
  const now = core.now();
  await core.db
    .insertInto('rail_instructions')
    .values({
      payout_id: transfer.payoutId,
      attempt: transfer.attempt,
      rail,
      business_id: transfer.businessId,
      end_to_end_id: transfer.endToEndId,
      uetr: transfer.uetr,
      trace_number: null,
      details: null,
      amount_minor: BigInt(transfer.amountMinor),
      currency: transfer.currency,
      creditor_name: transfer.creditorName,
      creditor_iban: transfer.creditorIban,
      creditor_bic: transfer.creditorBic,
      remittance: transfer.remittance,
      status: 'queued',
      rail_file_id: null,
      payment_information_id: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['payout_id', 'attempt']).doNothing())
    .execute();
  const row = await core.db
    .selectFrom('rail_instructions')
    .select(['end_to_end_id', 'uetr'])
    .where('payout_id', '=', transfer.payoutId)
    .where('attempt', '=', transfer.attempt)
    .executeTakeFirstOrThrow();
  return { endToEndId: row.end_to_end_id, uetr: row.uetr! };
}

/**
 * Queues ACH credit `entry` on `rail` with a new trace number: the ODFI routing number's first 8
 * digits and the next value of the sequence ach_trace_seq (7 digits; never reused, also across
 * workers and restarts). Idempotent per payout and attempt: a retried submission gets the stored
 * trace number back (a value drawn by the retry is burned, leaving a gap, never a repeat). Throws
 * when the sequence is exhausted (9,999,999 entries per ODFI routing prefix; docs/rails.md "ACH").
 */
export async function queueAchInstruction(core: Core, rail: string, entry: QueuedAchEntry, odfiRouting: string): Promise<{ traceNumber: string; endToEndId: string }> {
  const stored = await core.db.selectFrom('rail_instructions').select(['trace_number', 'end_to_end_id']).where('payout_id', '=', entry.payoutId).where('attempt', '=', entry.attempt).executeTakeFirst();
  if (stored?.trace_number) return { traceNumber: stored.trace_number, endToEndId: stored.end_to_end_id };
  const seq = await sql<{ n: string }>`select nextval('ach_trace_seq')::text as n`.execute(core.db);
  const traceNumber = `${odfiRouting.slice(0, 8)}${seq.rows[0]!.n.padStart(7, '0')}`;
  const now = core.now();
  await core.db
    .insertInto('rail_instructions')
    .values({
      payout_id: entry.payoutId,
      attempt: entry.attempt,
      rail,
      business_id: entry.businessId,
      end_to_end_id: entry.endToEndId,
      uetr: null,
      trace_number: traceNumber,
      details: JSON.stringify({ routing_number: entry.routingNumber, account_number: entry.accountNumber, account_type: entry.accountType, sec_code: entry.secCode }),
      amount_minor: BigInt(entry.amountMinor),
      currency: entry.currency,
      creditor_name: entry.creditorName,
      creditor_iban: null,
      creditor_bic: null,
      remittance: entry.remittance,
      status: 'queued',
      rail_file_id: null,
      payment_information_id: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['payout_id', 'attempt']).doNothing())
    .execute();
  const row = await core.db.selectFrom('rail_instructions').select(['trace_number', 'end_to_end_id']).where('payout_id', '=', entry.payoutId).where('attempt', '=', entry.attempt).executeTakeFirstOrThrow();
  return { traceNumber: row.trace_number!, endToEndId: row.end_to_end_id };
}

/** The ACH instruction with trace number `traceNumber` on `rail`, locked for update when `lock` (within a transaction). */
export async function findInstructionByTrace(db: DbOrTx, rail: string, traceNumber: string, lock = false) {
  let q = db.selectFrom('rail_instructions').selectAll().where('rail', '=', rail).where('trace_number', '=', traceNumber);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

/**
 * Locks the instructions of outbound file `fileId` that no answer has ended yet (`in_file` or
 * `accepted`), for the ACH settlement by silence; rows another worker holds wait.
 */
export async function lockUnansweredInstructionsOfFile(tx: DbOrTx, fileId: string) {
  return tx.selectFrom('rail_instructions').selectAll().where('rail_file_id', '=', fileId).where('status', 'in', ['in_file', 'accepted']).orderBy('created_at').orderBy('payout_id').forUpdate().execute();
}

/** Locks and returns the queued instructions of `rail` (oldest first, at most `limit`), skipping rows another worker holds. */
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

/** Moves the given instructions into file `fileId` (queued -> in_file), each with its group in the file (pain.001 PmtInfId, ACH batch). */
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

/** The instructions of file `fileId`, in file order. */
export async function instructionsOfFile(db: DbOrTx, fileId: string) {
  return db.selectFrom('rail_instructions').selectAll().where('rail_file_id', '=', fileId).orderBy('created_at').orderBy('payout_id').execute();
}

/**
 * The instruction a bank status refers to, found by its references: EndToEndId, else UETR. The
 * original message id, when the bank gave one, must be the instruction's file (a status of another
 * file with a reused EndToEndId matches nothing).
 */
export async function findInstruction(db: DbOrTx, refs: { endToEndId: string | null; uetr: string | null; originalMessageId: string | null }) {
  let q = db.selectFrom('rail_instructions').selectAll();
  if (refs.endToEndId) q = q.where('end_to_end_id', '=', refs.endToEndId);
  else if (refs.uetr) q = q.where('uetr', '=', refs.uetr.toLowerCase());
  else return undefined;
  const row = await q.executeTakeFirst();
  if (!row) return undefined;
  if (refs.uetr && row.uetr !== refs.uetr.toLowerCase()) return undefined;
  if (refs.originalMessageId && row.rail_file_id && sepaMessageId(row.rail_file_id) !== refs.originalMessageId) return undefined;
  return row;
}

/** Order of instruction statuses: a later answer never moves one back. */
const ORDER: Record<InstructionStatus, number> = { queued: 0, in_file: 1, accepted: 2, rejected: 3, settled: 3, returned: 4 };

/** Moves an instruction forward to `status` (never back; idempotent). */
export async function advanceInstruction(tx: DbOrTx, key: { payoutId: string; attempt: number }, status: InstructionStatus, now: Date): Promise<void> {
  const row = await tx.selectFrom('rail_instructions').select('status').where('payout_id', '=', key.payoutId).where('attempt', '=', key.attempt).forUpdate().executeTakeFirst();
  if (!row || ORDER[row.status] >= ORDER[status]) return;
  await tx.updateTable('rail_instructions').set({ status, updated_at: now }).where('payout_id', '=', key.payoutId).where('attempt', '=', key.attempt).execute();
}
