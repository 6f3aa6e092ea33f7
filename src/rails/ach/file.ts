/**
 * What the ACH rail writes (docs/rails.md "ACH"): a window's queued credit entries as one NACHA
 * file, and when its entries settle. Pure over the rail's configuration and the instruction rows
 * (no I/O): src/core/rails/files.ts records and sends what this composes.
 */
import { createHash } from 'node:crypto';
import type { ComposedRailFile, RailInstructionRecord } from '../adapter';
import { achEffectiveDate, achSettlementTime } from '../fed-calendar';
import { type NachaBatchInput, parseNachaFile, toNachaText, writeNachaFile } from '../nacha';
import { NACHA_ADDENDA_WIDTH } from './adapter';
import type { AchRailConfig } from './config';

export type { ComposedRailFile } from '../adapter';

/** The file-id modifier (A-Z, 0-9) of file `fileId`: derived from its id, so a rewritten file keeps it. */
function fileIdModifier(fileId: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return alphabet[createHash('sha256').update(fileId).digest()[0]! % alphabet.length]!;
}

/**
 * Composes the NACHA file of `rows` (queued ACH instructions) as file `fileId` written at `now`:
 * one batch per SEC code (PPD to individuals, CCD to businesses; batch numbers 1, 2), credit
 * entries with their stored trace numbers, the payout reference as addenda 05, the effective entry
 * date from the same-day and next-day windows and the Federal Reserve calendar. The text is read
 * back with the NACHA parser (controls, totals, counts) before it is returned. Throws
 * NachaInputError or NachaParseError when the file cannot be written correctly (nothing is recorded).
 */
export function composeAchFile(config: AchRailConfig, rows: RailInstructionRecord[], now: Date, fileId: string): ComposedRailFile {
  const messageId = fileId.replace('_', '-');
  const { effectiveDate, window } = achEffectiveDate(now, { sameDayCutOff: config.sameDayCutOff, timeZone: config.timeZone });
  const batches: NachaBatchInput[] = [];
  const batchOf = new Map<string, number>();
  for (const sec of ['PPD', 'CCD'] as const) {
    // NACHA rules: ascending trace number order within a batch (trace numbers are drawn when an
    // entry is queued; two workers can queue in the other order than they drew).
    const entries = rows.filter((r) => (r.details?.sec_code ?? 'PPD') === sec).sort((x, y) => (x.trace_number! < y.trace_number! ? -1 : x.trace_number! > y.trace_number! ? 1 : 0));
    if (entries.length === 0) continue;
    const batchNumber = batches.length + 1;
    for (const r of entries) batchOf.set(r.payout_id, batchNumber);
    batches.push({
      secCode: sec,
      companyName: config.companyName,
      companyIdentification: config.companyId,
      companyEntryDescription: config.entryDescription,
      effectiveEntryDate: effectiveDate,
      odfiIdentification: config.odfiRouting.slice(0, 8),
      batchNumber,
      entries: entries.map((r) => ({
        accountType: r.details?.account_type === 'savings' ? 'savings' : 'checking',
        routingNumber: r.details!.routing_number!,
        accountNumber: r.details!.account_number!,
        amountMinor: r.amount_minor.toString(),
        // The payout id's random tail and the attempt (the field is 15 characters; returns match by trace number).
        identificationNumber: r.end_to_end_id.replace(/[^0-9A-Za-z]/g, '').slice(-15).toUpperCase(),
        receiverName: r.creditor_name,
        traceNumber: r.trace_number!,
        paymentRelatedInformation: r.remittance && toNachaText(r.remittance, NACHA_ADDENDA_WIDTH) ? r.remittance : null,
      })),
    });
  }
  const content = writeNachaFile({
    immediateDestination: config.odfiRouting,
    immediateDestinationName: config.odfiName,
    immediateOrigin: config.companyId,
    immediateOriginName: config.companyName,
    createdAt: now,
    fileIdModifier: fileIdModifier(fileId),
    referenceCode: messageId.slice(-8).toUpperCase(),
    batches,
  });
  // Read back what was written: every control record must agree with what it controls.
  const parsed = parseNachaFile(content);
  const expected = rows.reduce((sum, r) => sum + r.amount_minor, 0n);
  if (BigInt(parsed.totalCreditMinor) !== expected) throw new Error(`NACHA file ${messageId}: total credit ${parsed.totalCreditMinor} is not the instructions' ${expected}`);
  return {
    name: `${messageId}.ach`,
    messageId,
    kind: 'nacha',
    content,
    executionDate: effectiveDate,
    settlementWindow: window,
    groupOf: (payoutId) => `${messageId}-B${batchOf.get(payoutId) ?? 1}`,
  };
}

/**
 * When the entries of an ACH file with effective entry date `effectiveDate`, uploaded at
 * `uploadedAt`, count as settled unless returned first: the Federal Reserve's settlement of that
 * date (17:00 New York); a file uploaded too late for its date settles with the next window's
 * date. With RAIL_ACH_SETTLE_AFTER (tests, demos): `uploadedAt` plus that duration.
 */
export function achSettlesAt(config: AchRailConfig, effectiveDate: string | null, uploadedAt: Date): Date {
  if (config.settleAfterMs !== null) return new Date(uploadedAt.getTime() + config.settleAfterMs);
  const planned = effectiveDate ? achSettlementTime(effectiveDate) : null;
  if (planned && planned.getTime() > uploadedAt.getTime()) return planned;
  return achSettlementTime(achEffectiveDate(uploadedAt, { sameDayCutOff: config.sameDayCutOff, timeZone: config.timeZone }).effectiveDate);
}

/**
 * The end of the usual return time of an entry that settled at `settledAt`: two Federal Reserve
 * banking days later (NACHA's return time frame for most codes); a return after it is `late` and
 * flagged for operators. With RAIL_ACH_SETTLE_AFTER (tests), the settlement itself.
 */
export function achUsualReturnDeadline(config: AchRailConfig, settledAt: Date, nextBusinessDay: (day: string) => string): Date {
  if (config.settleAfterMs !== null) return settledAt;
  const day = settledAt.toISOString().slice(0, 10);
  return achSettlementTime(nextBusinessDay(nextBusinessDay(day)));
}
