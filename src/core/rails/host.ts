/** The core's side of the rail seam (docs/rails.md "The seam"); writes go through the owners of the rail tables. */
import { processStatementFile } from '../treasury/statements';
import type { RailHost, RailStore } from '../../rails/adapter';
import type { DbOrTx } from '../../db/schema';
import type { Core } from '../context';
import { railFiles, railReturns, railUnmatchedItems } from '../metrics/registry';
import { correctRecipientFromBank } from '../recipients';
import { recordRailEvents } from './rail-events';
import { dueSettlementFiles, finishedInboundNames, markFileSettled, markInboundProcessed, markInboundQuarantined, recordInboundFile } from './files';
import {
  advanceInstruction,
  advanceInstructions,
  findInstruction,
  findInstructionReferences,
  findInstructionByDetail,
  findInstructionsByTraces,
  instructionOf,
  instructionsOfFile,
  instructionsWaiting,
  lockUnansweredInstructionsOfFile,
  nextSequenceValue,
  queueInstruction,
  updateInstructionDetails,
} from './instructions';
import { ensureRailWindow } from './windows';
import { fileRecord, instructionRecord, newInstructionRow, newRailEventRow } from './records';

function optional<R, T>(row: R | undefined, map: (r: R) => T): T | undefined {
  return row ? map(row) : undefined;
}

function storeOver(core: Core, db: DbOrTx): RailStore {
  return {
    async lockInboundFile(fileId) {
      const row = await db.selectFrom('rail_files').select('status').where('id', '=', fileId).forUpdate().skipLocked().executeTakeFirst();
      return row?.status ?? null;
    },
    recordEvents: (events, now) => recordRailEvents(db, events.map(newRailEventRow), now),
    advanceInstruction: (key, status, now) => advanceInstruction(db, key, status, now),
    instructionByReference: async (refs) => optional(await findInstruction(db, refs), instructionRecord),
    instructionsByReferences: async (refs) => (await findInstructionReferences(db, refs)).map((r) => ({ payoutId: r.payout_id, attempt: r.attempt, endToEndId: r.end_to_end_id, uetr: r.uetr })),
    advanceInstructions: (keys, status, now) => advanceInstructions(db, keys, status, now),
    instructionsByTraces: async (rail, traces, lock) => (await findInstructionsByTraces(db, rail, traces, lock)).map(instructionRecord),
    instructionByDetail: async (rail, key, value, lock) => optional(await findInstructionByDetail(db, rail, key, value, lock), instructionRecord),
    instruction: async (payoutId, attempt) => optional(await instructionOf(db, payoutId, attempt), instructionRecord),
    queueInstruction: async (instruction, now) => instructionRecord(await queueInstruction(db, newInstructionRow(instruction), now)),
    updateInstructionDetails: (key, details, now) => updateInstructionDetails(db, key, details, now),
    instructionsWaiting: async (rail, statuses, before, limit, createdSince) => (await instructionsWaiting(db, rail, statuses, before, limit, createdSince)).map(instructionRecord),
    instructionsOfFile: async (fileId) => (await instructionsOfFile(db, fileId)).map(instructionRecord),
    lockUnansweredInstructionsOfFile: async (fileId) => (await lockUnansweredInstructionsOfFile(db, fileId)).map(instructionRecord),
    file: async (fileId) => optional(await db.selectFrom('rail_files').selectAll().where('id', '=', fileId).executeTakeFirst(), fileRecord),
    outboundFileByMessageId: async (messageId) =>
      optional(await db.selectFrom('rail_files').selectAll().where('message_id', '=', messageId).where('direction', '=', 'outbound').executeTakeFirst(), fileRecord),
    recordInboundFile: async (rail, name, content) => fileRecord(await recordInboundFile(core, rail, name, content)),
    finishedInboundNames: (rail, names) => finishedInboundNames(db, rail, names),
    markInboundProcessed: (fileId, info, now) => markInboundProcessed(db, fileId, info, now),
    markInboundQuarantined: (fileId, error, now) => markInboundQuarantined(db, fileId, error, now),
    dueSettlementFiles: async (rail, now) => (await dueSettlementFiles(db, rail, now)).map((f) => ({ id: f.id, settlesAt: f.settles_at })),
    markFileSettled: (fileId, now) => markFileSettled(db, fileId, now),
    nextSequenceValue: (name) => nextSequenceValue(db, name),
  };
}

export function railHost(core: Core, rail: string): RailHost {
  return {
    rail,
    now: () => core.now(),
    log: core.log,
    store: storeOver(core, core.db),
    transaction: (fn) => core.db.transaction().execute((tx) => fn(storeOver(core, tx))),
    metrics: { railFiles, railReturns, railUnmatchedItems },
    ensureWindow: (windowMs) => ensureRailWindow(core, rail, windowMs),
    readStatement: (file) => processStatementFile(core, file),
    async correctRecipient(payoutId, correction, meta) {
      const payout = await core.db.selectFrom('payouts').select(['recipient_id']).where('id', '=', payoutId).executeTakeFirst();
      if (!payout?.recipient_id) return null;
      const r = await correctRecipientFromBank(core, payout.recipient_id, correction, { ...meta, payoutId });
      return { recipientId: payout.recipient_id, status: r?.status ?? null };
    },
  };
}
