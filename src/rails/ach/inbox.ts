/**
 * The ACH rail's answers (docs/rails.md "ACH"): returns, NOCs and credits from the ODFI, and
 * settlement by silence. Each file and settlement is recorded once; before/after settlement is
 * decided by the listing's time, not by when a poll read it.
 */
import { advancedStatus, type RailInstructionStatus } from '../../domain/rail-instructions';
import type { NewRailEvent, RailEventRecord, RailFileRecord, RailHost, RailInstructionRecord } from '../adapter';
import { nextFedBusinessDay } from '../fed-calendar';
import { advanceInRuns, type InstructionMove } from '../instruction-moves';
import { type ParsedNachaFile, parseNachaFile } from '../nacha';
import { achNocCorrection } from '../reason-codes';
import { quarantineInboundFile } from '../sftp/inbox';
import type { AchRailConfig } from './config';
import { achUsualReturnDeadline } from './file';

const CREDIT_CODES = new Set(['22', '32']);

/** One transaction holding the file's row; a file that does not parse is quarantined. */
export async function processAchInboundFile(host: RailHost, ach: AchRailConfig, file: RailFileRecord, bankTime: Date | null = null): Promise<{ events: number; quarantined: boolean }> {
  const now = host.now();
  // The file's time on the ODFI's server (never later than now), else now.
  const answeredAt = bankTime && bankTime.getTime() <= now.getTime() ? bankTime : now;
  let parsed: ParsedNachaFile;
  try {
    parsed = parseNachaFile(file.content ?? '');
  } catch (err) {
    return quarantineInboundFile(host, file, err instanceof Error ? err.message : String(err), 'it does not parse as NACHA');
  }
  const returns: Array<{ code: string; late: boolean }> = [];
  const recorded = await host.transaction(async (tx) => {
    const locked = await tx.lockInboundFile(file.id);
    if (locked !== 'received') return null;
    // One query per 1,000 answers; the entries then see each other's moves as they would one by one.
    const originals = parsed.batches.flatMap((b) => b.entries.map((e) => e.return?.originalTraceNumber ?? e.notificationOfChange?.originalTraceNumber)).filter((t): t is string => !!t);
    const byTrace = new Map((await tx.instructionsByTraces(file.rail, [...new Set(originals)], true)).map((i) => [i.traceNumber, i]));
    const status = new Map<RailInstructionRecord, RailInstructionStatus>();
    const moves: InstructionMove[] = [];
    const advance = (i: RailInstructionRecord, to: RailInstructionStatus) => {
      status.set(i, advancedStatus(status.get(i) ?? i.status, to));
      moves.push({ key: { payoutId: i.payoutId, attempt: i.attempt }, to });
    };
    const sentFiles = new Map<string, Promise<RailFileRecord | undefined>>();
    const sentFile = (id: string) => sentFiles.get(id) ?? sentFiles.set(id, tx.file(id)).get(id)!;
    const settledFirst: NewRailEvent[] = [];
    const events: NewRailEvent[] = [];
    for (const batch of parsed.batches) {
      for (const entry of batch.entries) {
        const id = `${file.id}:${events.length}`;
        const base = { id, rail: file.rail, railFileId: file.id, depositId: null, uetr: null, occurredAt: now };
        const original = entry.return?.originalTraceNumber ?? entry.notificationOfChange?.originalTraceNumber;
        if (original) {
          const instruction = byTrace.get(original);
          const match = { payoutId: instruction?.payoutId ?? null, attempt: instruction?.attempt ?? null, endToEndId: instruction?.endToEndId ?? null };
          if (entry.return) {
            const sent = instruction?.railFileId ? await sentFile(instruction.railFileId) : undefined;
            const current = instruction ? (status.get(instruction) ?? instruction.status) : undefined;
            let settled = current === 'settled' || current === 'returned';
            if (!settled && instruction && (current === 'in_file' || current === 'accepted') && sent?.settlesAt && sent.settlesAt.getTime() <= answeredAt.getTime()) {
              // A late poll: the settlement came first, so record it now, ordered before the return.
              settledFirst.push(settledEvent(file.rail, sent.id, sent.settlesAt, instruction));
              advance(instruction, 'settled');
              settled = true;
            }
            const late = settled && !!sent?.settlesAt && answeredAt.getTime() > achUsualReturnDeadline(ach, sent.settlesAt, nextFedBusinessDay).getTime();
            const type = settled ? 'returned' : 'rejected';
            events.push({ ...base, ...match, type, reasonCode: entry.return.reasonCode, details: { source: 'nacha', traceNumber: entry.traceNumber, originalTraceNumber: original, amountMinor: entry.amountMinor, late, addendaInformation: entry.return.addendaInformation } });
            if (instruction) advance(instruction, type);
            returns.push({ code: entry.return.reasonCode, late });
          } else {
            const noc = entry.notificationOfChange!;
            events.push({ ...base, ...match, type: 'notification_of_change', reasonCode: noc.changeCode, details: { source: 'nacha', traceNumber: entry.traceNumber, originalTraceNumber: original, correctedData: noc.correctedData } });
          }
          continue;
        }
        if (CREDIT_CODES.has(entry.transactionCode) && entry.amountMinor !== '0') {
          events.push({
            ...base,
            payoutId: null,
            attempt: null,
            endToEndId: null,
            type: 'credit',
            reasonCode: null,
            details: {
              source: 'nacha',
              currency: 'USD',
              amountMinor: entry.amountMinor,
              accountNumber: entry.accountNumber,
              routingNumber: entry.routingNumber,
              traceNumber: entry.traceNumber,
              originatorName: batch.companyName,
              originatorId: batch.companyIdentification,
              secCode: batch.secCode,
              remittanceInformation: entry.addenda05?.paymentRelatedInformation ?? batch.companyEntryDescription,
              receiverName: entry.name,
            },
          });
        }
      }
    }
    if (settledFirst.length > 0) await tx.recordEvents(settledFirst, new Date(now.getTime() - 1));
    await advanceInRuns(tx, moves, now);
    const ids = await tx.recordEvents(events, now);
    await tx.markInboundProcessed(file.id, { kind: 'nacha', messageId: `${parsed.immediateOrigin}-${parsed.createdAt}-${parsed.fileIdModifier}`, transactions: events.length }, now);
    return { ids, events };
  });
  if (!recorded) return { events: 0, quarantined: false };
  for (const r of returns) host.metrics.railReturns.inc({ rail: file.rail, code: r.code, late: String(r.late) });
  const lateOnes = recorded.events.filter((e) => e.details.late === true);
  if (lateOnes.length > 0) {
    host.log.warn({ rail: file.rail, fileId: file.id, payouts: lateOnes.map((e) => e.payoutId), codes: lateOnes.map((e) => e.reasonCode) }, 'late ACH returns: received after the usual return time; the payouts are refunded');
  }
  const unmatched = recorded.events.filter((e) => recorded.ids.includes(e.id) && !e.payoutId && e.type !== 'credit').length;
  if (unmatched > 0) {
    host.metrics.railUnmatchedItems.inc({ rail: file.rail }, unmatched);
    host.log.warn({ rail: file.rail, fileId: file.id, unmatched }, 'ACH returns or NOCs matched no payout; kept as unmatched items');
  }
  host.metrics.railFiles.inc({ rail: file.rail, direction: 'inbound', outcome: 'received' });
  return { events: recorded.ids.length, quarantined: false };
}

/** One id per file and attempt: recorded once, by the sweep or by a later return. */
function settledEvent(rail: string, fileId: string, settlesAt: Date, r: { payoutId: string; attempt: number; endToEndId: string; traceNumber: string | null }): NewRailEvent {
  return {
    id: `${fileId}:settled:${r.payoutId}:${r.attempt}`,
    rail,
    railFileId: fileId,
    type: 'settled',
    payoutId: r.payoutId,
    attempt: r.attempt,
    depositId: null,
    endToEndId: r.endToEndId,
    uetr: null,
    reasonCode: null,
    occurredAt: settlesAt,
    details: { source: 'ach_settlement', traceNumber: r.traceNumber },
  };
}

/** Settles unanswered entries of files settling by `listedAt` (when the poll listed the outbox); returns how many. */
export async function settleDueAchFiles(host: RailHost, rail: string, listedAt: Date = host.now()): Promise<number> {
  let settled = 0;
  for (const due of await host.store.dueSettlementFiles(rail, listedAt)) {
    settled += await host.transaction(async (tx) => {
      const now = host.now();
      const rows = await tx.lockUnansweredInstructionsOfFile(due.id);
      const events = rows.map((r) => settledEvent(rail, due.id, due.settlesAt!, r));
      await tx.recordEvents(events, now);
      await tx.advanceInstructions(rows.map((r) => ({ payoutId: r.payoutId, attempt: r.attempt })), 'settled', now);
      await tx.markFileSettled(due.id, now);
      return rows.length;
    });
  }
  return settled;
}

/** Corrects the payout's saved recipient, or asks for the field again when ambiguous. Idempotent per event. */
export async function applyNotificationOfChange(host: RailHost, e: RailEventRecord): Promise<void> {
  if (!e.payoutId || !e.reasonCode) return;
  const correctedData = String((e.details as Record<string, unknown>).correctedData ?? '');
  const correction = achNocCorrection(e.reasonCode, correctedData);
  const r = await host.correctRecipient(e.payoutId, 'fields' in correction ? { fields: correction.fields as Record<string, string> } : { needsField: correction.ambiguous }, { correctionId: e.id, changeCode: e.reasonCode });
  if (!r) {
    host.log.warn({ payoutId: e.payoutId, changeCode: e.reasonCode, railEventId: e.id }, 'ACH notification of change for a payout without a saved recipient: nothing to correct; the sender must update its details');
    return;
  }
  host.log.info({ recipientId: r.recipientId, payoutId: e.payoutId, changeCode: e.reasonCode, status: r.status }, 'saved recipient corrected by an ACH notification of change');
}
