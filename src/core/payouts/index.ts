/**
 * Payouts (spec "Payout", "Payout create body", "Payout status", "Events, Surface A"; issue
 * "Payouts end to end"). The contract the API surfaces and the disbursements engine call. One file
 * per use case: prepare.ts (validate and price), accept.ts (insert, hold, start), read.ts (domain
 * payout, GET), transitions.ts (the activities' steps), delivery.ts (rail attempt, claim window),
 * updates.ts (workflow Updates); rows.ts holds the row types and field limits.
 *
 * Flow: {@link preparePayout} validates and prices (read-only) -> {@link insertPayout} writes the
 * payout row, its hold, the payout.submitted event and the workflow start in the caller's
 * transaction -> `payoutWorkflow` (workflows/payout.ts) drives the lifecycle through the
 * activities, which call {@link transitionPayout} and the attempt functions (transitions.ts).
 *
 * Pricing: with a `quote_id` the payout takes the quote's amounts, rate and fees; without one it is
 * priced at the current sandbox mid-market rate when it is accepted. The spec's "priced at
 * execution" means exactly that: execution is acceptance (POST /payouts), because the hold must
 * know the debit total before the 201 is returned.
 *
 * Money (src/core/ledger.ts, keys unique per business and environment):
 * | posting               | movement           | when                                                   |
 * |-----------------------|--------------------|--------------------------------------------------------|
 * | `payout:{id}:hold`    | available -> held  | accepted (funding 'balance'; a disbursement holds its batch itself) |
 * | `payout:{id}:settle`  | held -> sent       | -> succeeded                                           |
 * | `payout:{id}:release` | held -> available  | -> failed, -> canceled                                 |
 * | `payout:{id}:refund`  | sent -> available  | succeeded -> refunded (amount and fees credited back)  |
 * Every amount is the payout's debit_total (source amount + fees, micro-USDC).
 *
 * Wire decisions (attempts, attempt_history, the masked recipient, estimated_arrival, the receipt):
 * docs/payouts.md.
 */

export { type PayoutRow, type PayoutAttemptRow, MAX_REFERENCE_LENGTH, MAX_MEMO_LENGTH, MAX_MESSAGE_LENGTH } from './rows';
export { type PayoutRequest, type PreparedPayout, preparePayout } from './prepare';
export { type InsertPayoutOptions, insertPayout, payoutStart, payoutValues, createPayout } from './accept';
export {
  payoutFromRow,
  PAYOUT_VIEW_COLUMNS,
  type PayoutViewRow,
  getPayoutRow,
  getPayout,
  type ListPayoutsQuery,
  listPayouts,
  getPayoutReceipt,
  findPayoutByReceiptToken,
} from './read';
export {
  IllegalPayoutTransitionError,
  type TransitionPatch,
  transitionPayout,
  openClaim,
  recordAttemptStart,
  recordAttemptProviderReference,
  recordAttemptResult,
} from './transitions';
export { claimPayout, cancelPayout, runOnStartedWorkflow } from './updates';
export { makeRailAttempt, NoRailAdapterError, openClaimWindow } from './delivery';
export type { AttemptResult } from './transitions';
/** Claim methods a recipient may choose (sandbox claim endpoint; Surface B payoutMethod). */
export { CLAIM_METHODS, type ClaimMethod } from '../../../workflows/payout.contract';
