/**
 * Payouts (spec "Payout", "Payout status"; docs/payouts.md "Contract for other engines"): prepare.ts
 * validates and prices, accept.ts inserts, holds and starts, read.ts reads, transitions.ts and
 * delivery.ts are the activities' steps, updates.ts the workflow Updates. Postings and moves:
 * docs/payouts.md "States, money and events"; wire decisions: docs/payouts.md.
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
export { claimPayout, cancelPayeeHold, cancelPayout, confirmPayee, runOnStartedWorkflow } from './updates';
export { makeRailAttempt, NoRailAdapterError, openClaimWindow } from './delivery';
export type { AttemptResult } from './transitions';
/** Claim methods a recipient may choose (sandbox claim endpoint; Surface B payoutMethod). */
export { CLAIM_METHODS, type ClaimMethod } from '../../../workflows/payout.contract';
