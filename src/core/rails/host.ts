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
  findInstructions,
  findInstructionByDetail,
  findInstructionByTrace,
  instructionOf,
  instructionsOfFile,
  instructionsWaiting,
  lockUnansweredInstructionsOfFile,
  nextSequenceValue,
  queueInstruction,
  updateInstructionDetails,
} from './instructions';
import { ensureRailWindow } from './windows';

function storeOver(core: Core, db: DbOrTx): RailStore {
  return {
    async lockInboundFile(fileId) {
      const row = await db.selectFrom('rail_files').select('status').where('id', '=', fileId).forUpdate().skipLocked().executeTakeFirst();
      return row?.status ?? null;
    },
    recordEvents: (events, now) => recordRailEvents(db, events, now),
    advanceInstruction: (key, status, now) => advanceInstruction(db, key, status, now),
    instructionByReference: (refs) => findInstruction(db, refs),
    instructionsByReferences: (refs) => findInstructions(db, refs),
    advanceInstructions: (keys, status, now) => advanceInstructions(db, keys, status, now),
    instructionByTrace: (rail, trace, lock) => findInstructionByTrace(db, rail, trace, lock),
    instructionByDetail: (rail, key, value, lock) => findInstructionByDetail(db, rail, key, value, lock),
    instruction: (payoutId, attempt) => instructionOf(db, payoutId, attempt),
    queueInstruction: (instruction, now) => queueInstruction(db, instruction, now),
    updateInstructionDetails: (key, details, now) => updateInstructionDetails(db, key, details, now),
    instructionsWaiting: (rail, statuses, before, limit) => instructionsWaiting(db, rail, statuses, before, limit),
    instructionsOfFile: (fileId) => instructionsOfFile(db, fileId),
    lockUnansweredInstructionsOfFile: (fileId) => lockUnansweredInstructionsOfFile(db, fileId),
    file: (fileId) => db.selectFrom('rail_files').selectAll().where('id', '=', fileId).executeTakeFirst(),
    outboundFileByMessageId: (messageId) => db.selectFrom('rail_files').selectAll().where('message_id', '=', messageId).where('direction', '=', 'outbound').executeTakeFirst(),
    recordInboundFile: (rail, name, content) => recordInboundFile(core, rail, name, content),
    finishedInboundNames: (rail, names) => finishedInboundNames(db, rail, names),
    markInboundProcessed: (fileId, info, now) => markInboundProcessed(db, fileId, info, now),
    markInboundQuarantined: (fileId, error, now) => markInboundQuarantined(db, fileId, error, now),
    dueSettlementFiles: (rail, now) => dueSettlementFiles(db, rail, now),
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
