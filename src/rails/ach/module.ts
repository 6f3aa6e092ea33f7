/**
 * The ach_usd rail module (docs/rails.md "ACH", "The seam"): ACH credits in NACHA files over SFTP.
 * Everything the core runs for this rail: the adapter (src/rails/ach/adapter.ts; trace numbers
 * from the database sequence `ach_trace_seq`), the NACHA file of a window (src/rails/ach/file.ts),
 * the ODFI's returns, notifications of change and incoming credits, the settlement by silence
 * (src/rails/ach/inbox.ts), the return-code table, the Federal Reserve calendar, the live
 * virtual account number range and the USD settlement account's statements (src/rails/ach/statements.ts).
 */
import { randomDigits } from '../../domain/ids';
import type { ConfiguredRail, RailModule } from '../adapter';
import { achEffectiveDate } from '../fed-calendar';
import { achReturnAfterSettlementFailure, mapAchReturn } from '../reason-codes';
import { pollSftpInbox } from '../sftp/inbox';
import { achCarriageProblem, achRailAdapter } from './adapter';
import { ACH_RAIL, type AchRailConfig, achRailConfig } from './config';
import { achStatements } from './statements';
import { achSettlesAt, composeAchFile } from './file';
import { applyNotificationOfChange, processAchInboundFile, settleDueAchFiles } from './inbox';

/** The database sequence of the 7-digit part of ACH trace numbers (migration 0056). */
export const ACH_TRACE_SEQUENCE = 'ach_trace_seq';

/** The rail with a configuration: see the file header. */
function configured(ach: AchRailConfig): ConfiguredRail {
  const range = ach.virtualAccountRange;
  return {
    pollIntervalMs: ach.pollIntervalMs,
    adapter: (host) =>
      achRailAdapter(ach, {
        // A new trace number: the ODFI routing number's first 8 digits and the next value of the
        // sequence (never reused, also across workers and restarts). A retried submission gets the
        // stored one back (a value drawn by a racing retry is burned, leaving a gap, never a repeat).
        enqueue: async (entry) => {
          const stored = await host.store.instruction(entry.payoutId, entry.attempt);
          if (stored?.trace_number) return { traceNumber: stored.trace_number, endToEndId: stored.end_to_end_id };
          const seq = await host.store.nextSequenceValue(ACH_TRACE_SEQUENCE);
          const row = await host.store.queueInstruction(
            {
              payout_id: entry.payoutId,
              attempt: entry.attempt,
              rail: ACH_RAIL,
              business_id: entry.businessId,
              end_to_end_id: entry.endToEndId,
              uetr: null,
              trace_number: `${ach.odfiRouting.slice(0, 8)}${seq.padStart(7, '0')}`,
              details: { routing_number: entry.routingNumber, account_number: entry.accountNumber, account_type: entry.accountType, sec_code: entry.secCode },
              amount_minor: BigInt(entry.amountMinor),
              currency: entry.currency,
              creditor_name: entry.creditorName,
              creditor_iban: null,
              creditor_bic: null,
              remittance: entry.remittance,
            },
            host.now(),
          );
          await host.ensureWindow(ach.batchWindowMs);
          return { traceNumber: row.trace_number!, endToEndId: row.end_to_end_id };
        },
      }),
    // ACH settles by silence: after a complete listing, the entries of files past their settlement
    // time (by the time of the listing) that nothing returned.
    poll: (host) => pollSftpInbox(host, ach, (file, bankTime) => processAchInboundFile(host, ach, file, bankTime), (listedAt) => settleDueAchFiles(host, ACH_RAIL, listedAt)),
    readInboundFile: (host, file, bankTime) => processAchInboundFile(host, ach, file, bankTime),
    files: {
      compose: async (rows, now, fileId) => composeAchFile(ach, rows, now, fileId),
      maxTransactions: ach.maxFileTransactions,
      upload: { sftp: ach.sftp, dir: ach.uploadDir },
      settlesAt: (effectiveDate, uploadedAt) => achSettlesAt(ach, effectiveDate, uploadedAt),
    },
    // The next window's effective date (a payout queued now leaves in the current window's file).
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

/** The ach_usd rail (registry entry). */
export const achRailModule: RailModule = {
  rail: ACH_RAIL,
  connect(config) {
    const r = achRailConfig(config);
    return r.config ? { rail: configured(r.config), missing: [] } : { rail: null, missing: r.missing };
  },
  statements: achStatements,
  // An ACH return before settlement is `rejected` (the payout fails), after it `returned` (refunded).
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
