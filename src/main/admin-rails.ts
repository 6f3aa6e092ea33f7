/** `npm run admin -- rail files | file <id> | unmatched | partner-transfers [--json]` (docs/rails.md "For operators"): snake_case rows, minor units as decimal strings, ISO 8601 times. */
import type { Db } from '../db/schema';
import {
  getRailFile,
  listPartnerTransfers,
  listRailFiles,
  listUnmatchedRailItems,
  type PartnerTransfer,
  type RailFileDetail,
  type RailFileSummary,
  type UnmatchedRailItem,
} from '../core/rails/operators';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** A file as the CLI prints it. */
export function renderRailFile(f: RailFileSummary) {
  return {
    id: f.id,
    rail: f.rail,
    direction: f.direction,
    name: f.name,
    kind: f.kind,
    status: f.status,
    transactions: f.transactions,
    control_sum_minor: f.controlSumMinor === null ? null : f.controlSumMinor.toString(),
    execution_date: f.executionDate,
    settlement_window: f.settlementWindow,
    settles_at: iso(f.settlesAt),
    settled_at: iso(f.settledAt),
    sha256: f.sha256,
    error: f.error,
    created_at: f.createdAt.toISOString(),
  };
}

/** A file with its content, payments and statuses as the CLI prints it. */
export function renderRailFileDetail(f: RailFileDetail) {
  return {
    ...renderRailFile(f),
    content: f.content,
    payments: f.payments.map((p) => ({
      payout_id: p.payoutId,
      attempt: p.attempt,
      end_to_end_id: p.endToEndId,
      uetr: p.uetr,
      trace_number: p.traceNumber,
      amount_minor: p.amountMinor.toString(),
      status: p.status,
    })),
    statuses: f.statuses.map((s) => ({
      id: s.id,
      type: s.type,
      payout_id: s.payoutId,
      deposit_id: s.depositId,
      end_to_end_id: s.endToEndId,
      reason_code: s.reasonCode,
      occurred_at: iso(s.occurredAt),
      dispatched_at: iso(s.dispatchedAt),
    })),
  };
}

/** An unmatched status as the CLI prints it. */
export function renderUnmatchedRailItem(r: UnmatchedRailItem) {
  return {
    id: r.id,
    rail: r.rail,
    rail_file_id: r.railFileId,
    type: r.type,
    end_to_end_id: r.endToEndId,
    uetr: r.uetr,
    reason_code: r.reasonCode,
    details: r.details,
    created_at: r.createdAt.toISOString(),
  };
}

/** A partner transfer as the CLI prints it (ours in minor units, decimal strings). */
export function renderPartnerTransfer(r: PartnerTransfer) {
  return {
    payout_id: r.payoutId,
    attempt: r.attempt,
    rail: r.rail,
    payout_status: r.payoutStatus,
    our_rate: r.ourRate,
    our_fee_minor: r.ourFeeMinor.toString(),
    our_source_amount_minor: r.ourSourceAmountMinor.toString(),
    source_currency: r.sourceCurrency,
    destination_amount_minor: r.destinationAmountMinor.toString(),
    destination_currency: r.destinationCurrency,
    partner_transfer_id: r.partnerTransferId,
    partner_state: r.partnerState,
    partner_rate: r.partnerRate,
    partner_fee: r.partnerFee,
    partner_source_amount: r.partnerSourceAmount,
    partner_source_currency: r.partnerSourceCurrency,
    created_at: r.createdAt.toISOString(),
  };
}

/** Runs `rail <sub> [id]`, printing a table or (with `json`) JSON; returns the exit code (1: no such file). */
export async function runRailCommand(db: Db, sub: string | undefined, id: string | undefined, json: boolean): Promise<number> {
  const out =
    sub === 'files'
      ? (await listRailFiles(db)).map(renderRailFile)
      : sub === 'unmatched'
        ? (await listUnmatchedRailItems(db)).map(renderUnmatchedRailItem)
        : sub === 'partner-transfers'
          ? (await listPartnerTransfers(db)).map(renderPartnerTransfer)
          : await getRailFile(db, id!).then((f) => (f ? renderRailFileDetail(f) : null));
  if (out === null) {
    console.error(`rail file ${id} not found`);
    return 1;
  }
  if (json) console.log(JSON.stringify(out, null, 2));
  else if (Array.isArray(out)) console.table(out.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'details' && k !== 'sha256'))));
  else {
    const { content, payments, statuses, ...file } = out;
    console.log(file);
    console.table(payments);
    console.table(statuses);
    console.log(content);
  }
  return 0;
}
