/** What the ACH rail writes (docs/rails.md "ACH"). Pure. */
import { createHash } from 'node:crypto';
import type { ComposedRailFile, RailInstructionRecord } from '../adapter';
import { achEffectiveDate, achSettlementTime } from '../fed-calendar';
import { type NachaBatchInput, parseNachaFile, toNachaText, writeNachaFile } from '../nacha';
import { NACHA_ADDENDA_WIDTH } from './adapter';
import type { AchRailConfig } from './config';

export type { ComposedRailFile } from '../adapter';

/** Derived from the file id, so a rewritten file keeps it. */
function fileIdModifier(fileId: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return alphabet[createHash('sha256').update(fileId).digest()[0]! % alphabet.length]!;
}

/** One batch per SEC code, read back with the parser before it is returned. Throws NachaInputError or NachaParseError. */
export function composeAchFile(config: AchRailConfig, rows: RailInstructionRecord[], now: Date, fileId: string): ComposedRailFile {
  const messageId = fileId.replace('_', '-');
  const { effectiveDate, window } = achEffectiveDate(now, { sameDayCutOff: config.sameDayCutOff, timeZone: config.timeZone });
  const batches: NachaBatchInput[] = [];
  const batchOf = new Map<string, number>();
  for (const sec of ['PPD', 'CCD'] as const) {
    // NACHA rules: ascending trace numbers within a batch (two workers can queue out of draw order).
    const entries = rows.filter((r) => (r.details?.sec_code ?? 'PPD') === sec).sort((x, y) => (x.traceNumber! < y.traceNumber! ? -1 : x.traceNumber! > y.traceNumber! ? 1 : 0));
    if (entries.length === 0) continue;
    const batchNumber = batches.length + 1;
    for (const r of entries) batchOf.set(r.payoutId, batchNumber);
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
        amountMinor: r.amountMinor.toString(),
        // 15 characters: the payout id's tail and the attempt (returns match by trace number).
        identificationNumber: r.endToEndId.replace(/[^0-9A-Za-z]/g, '').slice(-15).toUpperCase(),
        receiverName: r.creditorName,
        traceNumber: r.traceNumber!,
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
  const parsed = parseNachaFile(content);
  const expected = rows.reduce((sum, r) => sum + r.amountMinor, 0n);
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

/** The Federal Reserve settlement of `effectiveDate` (17:00 New York), or `uploadedAt` + RAIL_ACH_SETTLE_AFTER. */
export function achSettlesAt(config: AchRailConfig, effectiveDate: string | null, uploadedAt: Date): Date {
  if (config.settleAfterMs !== null) return new Date(uploadedAt.getTime() + config.settleAfterMs);
  const planned = effectiveDate ? achSettlementTime(effectiveDate) : null;
  if (planned && planned.getTime() > uploadedAt.getTime()) return planned;
  return achSettlementTime(achEffectiveDate(uploadedAt, { sameDayCutOff: config.sameDayCutOff, timeZone: config.timeZone }).effectiveDate);
}

/** Two Federal Reserve banking days after `settledAt`; a later return is `late`. */
export function achUsualReturnDeadline(config: AchRailConfig, settledAt: Date, nextBusinessDay: (day: string) => string): Date {
  if (config.settleAfterMs !== null) return settledAt;
  const day = settledAt.toISOString().slice(0, 10);
  return achSettlementTime(nextBusinessDay(nextBusinessDay(day)));
}
