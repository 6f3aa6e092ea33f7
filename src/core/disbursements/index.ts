/**
 * Batch disbursements (spec "Disbursement (Surface A)", "Disbursement status", Surface A
 * `/disbursements*`; docs/disbursements.md). A disbursement is prepared (items created or
 * imported, each reviewed), approved by a key other than its submitter, launched (the batch total
 * is held and the disbursement workflow starts), and run by workflows/disbursement.ts, which turns
 * each ready item into a payout (src/core/payouts/) started as a child payoutWorkflow.
 *
 * State machine: src/domain/disbursement-state.ts. Every operation locks the disbursement row
 * (SELECT … FOR UPDATE), checks the table, and writes the projection, postings and events in one
 * transaction (docs/architecture.md "Money rules", rules 2 and 3).
 *
 * Money (src/core/ledger.ts; amounts are micro-USDC, the debit totals of the items):
 * | posting                                        | movement           | when                                           |
 * |------------------------------------------------|--------------------|------------------------------------------------|
 * | `disbursement:{id}:hold:{revision_id}`         | available -> held  | launch: the sum of the ready items' debit_total |
 * | `disbursement_item:{item}:retry:{n}:hold`      | available -> held  | retry-failed: attempt n of a failed item        |
 * | `disbursement_item:{item}:attempt:{n}:release` | held -> available  | attempt n failed before its payout existed      |
 * | `disbursement_item:{item}:attempt:{n}:topup` / `:excess` | available -> held / held -> available | the fee of attempt n changed since review |
 * | `payout:{id}:settle` / `:release` / `:refund`  | (src/core/payouts/)  | each item's payout (funding 'batch')        |
 * So after a batch: held returns to 0, and available = before - the debit totals of the succeeded items.
 *
 * Per-item results live in the payout projection: an item whose current attempt has a payout shows
 * that payout's status (itemStatus in the domain module); summaries are SQL aggregates.
 *
 * One file per use case: create.ts (create, CSV import), review.ts (items as given, review),
 * items.ts (edit an item), approvals.ts, run-control.ts (launch, pause, resume, retry-failed),
 * read.ts (domain objects, GET), export.ts (results CSV), worker-steps.ts (the workflow's activities
 * and the relay's recovery); shared.ts holds the row types, limits and value helpers.
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
