/**
 * The payment instructions handed to a file rail (docs/rails.md "Files"): this module owns the
 * writes of rail_instructions. One row per payout attempt, queued until the rail's window
 * workflow collects it into a file; then moved by the bank's answers.
 */
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
  return { endToEndId: row.end_to_end_id, uetr: row.uetr };
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

/** Moves the given instructions into file `fileId` (queued -> in_file). */
export async function markInstructionsInFile(tx: DbOrTx, keys: Array<{ payoutId: string; attempt: number }>, fileId: string, paymentInformationId: string, now: Date): Promise<void> {
  for (const k of keys) {
    await tx
      .updateTable('rail_instructions')
      .set({ status: 'in_file', rail_file_id: fileId, payment_information_id: paymentInformationId, updated_at: now })
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
