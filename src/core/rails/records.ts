/** The rail seam's records (src/rails/adapter.ts, camelCase) from and to the rail tables' rows (docs/rails.md "The seam"). Pure. */
import type { Selectable } from 'kysely';
import type { RailFilesTable } from '../../db/tables/rails';
import type { NewRailEvent, NewRailInstruction, RailEventRecord, RailFileRecord, RailInstructionRecord } from '../../rails/adapter';
import type { InstructionRow, NewInstructionRow } from './instructions';
import type { NewRailEventRow, RailEventRow } from './rail-events';

/** A rail_instructions row as the seam's record. */
export function instructionRecord(r: InstructionRow): RailInstructionRecord {
  return {
    payoutId: r.payout_id,
    attempt: r.attempt,
    rail: r.rail,
    businessId: r.business_id,
    endToEndId: r.end_to_end_id,
    uetr: r.uetr,
    traceNumber: r.trace_number,
    details: r.details,
    amountMinor: BigInt(r.amount_minor),
    currency: r.currency,
    creditorName: r.creditor_name,
    creditorIban: r.creditor_iban,
    creditorBic: r.creditor_bic,
    remittance: r.remittance,
    status: r.status,
    railFileId: r.rail_file_id,
    paymentInformationId: r.payment_information_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The row a new instruction is stored as. */
export function newInstructionRow(i: NewRailInstruction): NewInstructionRow {
  return {
    payout_id: i.payoutId,
    attempt: i.attempt,
    rail: i.rail,
    business_id: i.businessId,
    end_to_end_id: i.endToEndId,
    uetr: i.uetr,
    trace_number: i.traceNumber,
    details: i.details,
    amount_minor: i.amountMinor,
    currency: i.currency,
    creditor_name: i.creditorName,
    creditor_iban: i.creditorIban,
    creditor_bic: i.creditorBic,
    remittance: i.remittance,
    ...(i.status ? { status: i.status } : {}),
  };
}

/** A rail_files row as the seam's record. */
export function fileRecord(
  r: Pick<Selectable<RailFilesTable>, 'id' | 'rail' | 'direction' | 'name' | 'message_id' | 'kind' | 'status' | 'content' | 'execution_date' | 'settles_at'>,
): RailFileRecord {
  return {
    id: r.id,
    rail: r.rail,
    direction: r.direction,
    name: r.name,
    messageId: r.message_id,
    kind: r.kind,
    status: r.status,
    content: r.content,
    executionDate: r.execution_date,
    settlesAt: r.settles_at,
  };
}

/** The row a new rail event is recorded as. */
export function newRailEventRow(e: NewRailEvent): NewRailEventRow {
  return {
    id: e.id,
    rail: e.rail,
    rail_file_id: e.railFileId,
    type: e.type,
    payout_id: e.payoutId,
    attempt: e.attempt,
    deposit_id: e.depositId,
    end_to_end_id: e.endToEndId,
    uetr: e.uetr,
    reason_code: e.reasonCode,
    occurred_at: e.occurredAt,
    details: e.details,
  };
}

/** A rail_events row as the seam's record. */
export function railEventRecord(r: RailEventRow): RailEventRecord {
  return {
    id: r.id,
    rail: r.rail,
    railFileId: r.rail_file_id,
    type: r.type,
    payoutId: r.payout_id,
    attempt: r.attempt,
    depositId: r.deposit_id,
    endToEndId: r.end_to_end_id,
    uetr: r.uetr,
    reasonCode: r.reason_code,
    occurredAt: r.occurred_at,
    details: r.details,
    dispatchedAt: r.dispatched_at,
    createdAt: r.created_at,
  };
}
