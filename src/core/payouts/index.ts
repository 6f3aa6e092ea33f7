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
 * Wire decisions (documented extensions):
 * - `attempts` is the number of delivery attempts begun or scheduled: 1 from acceptance (the spec's
 *   creation response shows `attempts: 1`), one more per retry. GET /payouts/{id} also returns
 *   `attempt_history`: one element per rail call made so far (empty while a
 *   claim link awaits its claim).
 * - `recipient` echoes the destination, masked (maskRecipientDetails): `{type, ...fields}`.
 * - `confirmed_received_at` (Receipt) is set when the rail confirms delivery (= delivered_at of a
 *   succeeded payout), and cleared again if the provider later returns the funds (refunded).
 * - `estimated_arrival` is acceptance time + the channel's maximum arrival (catalog `arrival.max`).
 */

export { type PayoutRow, type PayoutAttemptRow, MAX_REFERENCE_LENGTH, MAX_MEMO_LENGTH, MAX_MESSAGE_LENGTH } from './rows';
export { type PayoutRequest, type PreparedPayout, preparePayout } from './prepare';
export { type InsertPayoutOptions, insertPayout, payoutStart, payoutValues, createPayout } from './accept';
export {
  payoutFromRow,
  payoutEventData,
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
