/** The ach_usd rail module (docs/rails.md "ACH", "The seam"): ACH credits in NACHA files over SFTP. */
import { randomDigits } from '../../domain/ids';
import type { ConfiguredRail, RailModule } from '../adapter';
import { achEffectiveDate } from '../fed-calendar';
import { achReturnAfterSettlementFailure, mapAchReturn } from '../reason-codes';
import { pollFileRailInbox, sftpUpload } from '../file-rail';
import { achCarriageProblem, achRailAdapter } from './adapter';
import { ACH_RAIL, type AchRailConfig, achRailConfig } from './config';
import { achStatements } from './statements';
import { achSettlesAt, composeAchFile } from './file';
import { applyNotificationOfChange, processAchInboundFile, settleDueAchFiles } from './inbox';
import { ACH_SETTINGS } from './settings';

/** 7-digit part of ACH trace numbers (migration 0056). */
export const ACH_TRACE_SEQUENCE = 'ach_trace_seq';

function configured(ach: AchRailConfig): ConfiguredRail {
  const range = ach.virtualAccountRange;
  return {
    pollIntervalMs: ach.pollIntervalMs,
    adapter: (host) =>
      achRailAdapter(ach, {
        // Never reused across workers and restarts; a retry gets the stored one (a racing draw leaves a gap, never a repeat).
        enqueue: async (entry) => {
          const stored = await host.store.instruction(entry.payoutId, entry.attempt);
          if (stored?.traceNumber) return { traceNumber: stored.traceNumber, endToEndId: stored.endToEndId };
          const seq = await host.store.nextSequenceValue(ACH_TRACE_SEQUENCE);
          const row = await host.store.queueInstruction(
            {
              payoutId: entry.payoutId,
              attempt: entry.attempt,
              rail: ACH_RAIL,
              businessId: entry.businessId,
              endToEndId: entry.endToEndId,
              uetr: null,
              traceNumber: `${ach.odfiRouting.slice(0, 8)}${seq.padStart(7, '0')}`,
              details: { routing_number: entry.routingNumber, account_number: entry.accountNumber, account_type: entry.accountType, sec_code: entry.secCode },
              amountMinor: BigInt(entry.amountMinor),
              currency: entry.currency,
              creditorName: entry.creditorName,
              creditorIban: null,
              creditorBic: null,
              remittance: entry.remittance,
            },
            host.now(),
          );
          await host.ensureWindow(ach.batchWindowMs);
          return { traceNumber: row.traceNumber!, endToEndId: row.endToEndId };
        },
      }),
    // ACH settles by silence: after a complete listing, entries past their settlement time that nothing returned.
    poll: (host) => pollFileRailInbox(host, ach, (file, bankTime) => processAchInboundFile(host, ach, file, bankTime), (listedAt) => settleDueAchFiles(host, ACH_RAIL, listedAt)),
    readInboundFile: (host, file, bankTime) => processAchInboundFile(host, ach, file, bankTime),
    files: {
      compose: async (rows, now, fileId) => composeAchFile(ach, rows, now, fileId),
      maxTransactions: ach.maxFileTransactions,
      upload: sftpUpload(ach.sftp, ach.uploadDir),
      settlesAt: (effectiveDate, uploadedAt) => achSettlesAt(ach, effectiveDate, uploadedAt),
    },
    latestArrival: (now) => {
      const at = new Date(now.getTime() + ach.batchWindowMs);
      return achSettlesAt(ach, achEffectiveDate(at, { sameDayCutOff: ach.sameDayCutOff, timeZone: ach.timeZone }).effectiveDate, at);
    },
    ...(range
      ? {
          virtualAccounts: {
            currency: 'USD',
            issue: (beneficiaryName: string) => ({
              account_number: `${range.accountPrefix}${randomDigits(Math.max(0, 12 - range.accountPrefix.length))}`.slice(0, 12),
              routing_number: range.routingNumber,
              account_type: 'checking',
              bank_name: ach.odfiName,
              beneficiary_name: beneficiaryName,
            }),
          },
        }
      : {}),
    creditOf: (d, eventId) => {
      const s = (v: unknown) => (typeof v === 'string' && v ? v : null);
      const identifier = s(d.accountNumber)?.trim();
      if (s(d.currency) !== 'USD' || !s(d.amountMinor) || !identifier) return null;
      return {
        currency: 'USD',
        amountMinor: s(d.amountMinor)!,
        accountIdentifier: identifier,
        externalId: `ach:${s(d.traceNumber) ?? eventId}`,
        senderName: s(d.originatorName),
        reference: s(d.remittanceInformation),
      };
    },
    applyNotice: (host, event) => applyNotificationOfChange(host, event),
  };
}

export const achRailModule: RailModule<typeof ACH_SETTINGS> = {
  id: ACH_RAIL,
  rail: ACH_RAIL,
  settings: ACH_SETTINGS,
  connect(config) {
    const r = achRailConfig(config);
    return r.config ? { rail: configured(r.config), missing: [] } : { rail: null, missing: r.missing };
  },
  statements: achStatements,
  // A return before settlement is `rejected` (payout fails), after it `returned` (refunded).
  failureOf(type, code) {
    if (type === 'rejected') {
      const m = mapAchReturn(code);
      return { failureCode: m.failureCode, message: m.message, retryable: m.retryable, railReasonCode: m.railReasonCode };
    }
    const f = achReturnAfterSettlementFailure(code);
    return { failureCode: f.failureCode, message: f.message, retryable: false, railReasonCode: f.railReasonCode };
  },
  carriageProblem(details) {
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    return achCarriageProblem({ name: str(details.holder_name) ?? '', routingNumber: str(details.routing_number), accountNumber: str(details.account_number), accountType: str(details.account_type) });
  },
};
