/**
 * Batch disbursements (spec "Disbursement (Surface A)"; docs/disbursements.md): prepared, approved,
 * launched and run by workflows/disbursement.ts, each ready item becoming a payout. Every operation
 * locks the row and writes projection, postings and events in one transaction (docs/architecture.md
 * "Money rules"); the postings: docs/disbursements.md "Launch, the run, and money", docs/states.md.
 */

export { MAX_ITEMS, MAX_NAME_LENGTH, MAX_CSV_BYTES, type DisbursementRow, type DisbursementItemRow } from './shared';
export type { DisbursementItemInput } from './review';
export { getDisbursement, type ListItemsQuery, listItems } from './read';
export { createDisbursement, parseItemsCsv, importItems } from './create';
export { type ItemPatch, updateItem } from './items';
export { submitForApproval, approveDisbursement, rejectDisbursement } from './approvals';
export {
  type RunOptions,
  disbursementStart,
  launchDisbursement,
  pauseDisbursement,
  resumeDisbursement,
  retryFailedItems,
} from './run-control';
export { EXPORT_COLUMNS, exportResultsCsv } from './export';
export { claimAndStartItems, claimItems, finalizeDisbursement, recoverDisbursementRuns, projectionStatus } from './worker-steps';
export type { ClaimResult, FinalizeResult } from './worker-steps';
