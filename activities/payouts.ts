/**
 * Activities of payoutWorkflow (contract: workflows/payout.contract.ts): thin adapters over
 * src/core/payouts (transitions, attempts, the rail). Every activity is idempotent, so Temporal's
 * retries are safe: transitions are guarded by the transition table and no-op when already done,
 * postings and events are keyed, an attempt keeps its first provider reference and result. Core
 * errors become the contract's failure types (not retried).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Core } from '../src/core/context';
import { deliverPayout } from '../src/core/payouts/delivery';
import {
  IllegalPayoutTransitionError,
  makeRailAttempt,
  NoRailAdapterError,
  openClaimWindow,
  recordAttemptResult,
  transitionPayout,
} from '../src/core/payouts';
import type { PayoutStatus } from '../src/domain/payout-state';
import {
  ILLEGAL_PAYOUT_TRANSITION,
  NO_RAIL_ADAPTER,
  type PayoutActivities,
  type PayoutApprovalDecision,
  type PayoutTransitionInput,
  type PayoutTransitionResult,
} from '../workflows/payout.contract';
import { decidePayoutApproval } from '../src/core/policies/payout-approvals';
import { payoutRailStatus } from '../src/core/rails/inbox';

export type { PayoutActivities, PayoutTransitionInput };

/** Runs `fn`, turning the core's non-retryable errors into the contract's failure types. */
async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof IllegalPayoutTransitionError) {
      throw ApplicationFailure.create({ type: ILLEGAL_PAYOUT_TRANSITION, message: err.message, nonRetryable: true });
    }
    if (err instanceof NoRailAdapterError) {
      throw ApplicationFailure.create({ type: NO_RAIL_ADAPTER, message: err.message, nonRetryable: true });
    }
    throw err;
  }
}

/** The payout activities over one core (merged into createActivities). */
export function createPayoutActivities(core: Core) {
  return {
    /**
     * transitionPayout (one transaction: projection, money, event). Returns the status now stored.
     * With `deliverAttempt` and `to: 'delivering'`: deliverPayout, the move and that rail attempt
     * (its answer as `attempt`; null when the row is failed, canceled or refunded).
     */
    async payoutTransition(input: PayoutTransitionInput): Promise<PayoutTransitionResult> {
      const { payoutId, to, deliverAttempt, ...patch } = input;
      if (deliverAttempt !== undefined) {
        if (to !== 'delivering') throw ApplicationFailure.nonRetryable(`deliverAttempt is only for the move to delivering, not ${to}`, ILLEGAL_PAYOUT_TRANSITION);
        return guarded(() => deliverPayout(core, payoutId, deliverAttempt));
      }
      const row = await guarded(() => transitionPayout(core, payoutId, to, patch));
      return { status: row.status as PayoutStatus };
    },

    /** openClaimWindow: submitted -> awaiting_claim; returns the claim window left, in ms. */
    async payoutOpenClaim(input: { payoutId: string }) {
      return guarded(() => openClaimWindow(core, input.payoutId));
    },

    /** makeRailAttempt: one delivery attempt through the rail (a live payout fails without retry). */
    async payoutRailAttempt(input: { payoutId: string; attempt: number }) {
      return guarded(() => makeRailAttempt(core, input.payoutId, input.attempt));
    },

    /** payoutRailStatus: the rail's recorded answers about an attempt past its deadline (raises the overdue alert when none). */
    async payoutRailStatus(input: { payoutId: string; attempt: number; overdueMs: number }) {
      return payoutRailStatus(core, input.payoutId, input.attempt, input.overdueMs);
    },

    /** Records the result of an attempt that will be retried (idempotent). */
    async payoutAttemptResult(input) {
      const { payoutId, number, ...result } = input;
      await recordAttemptResult(core, payoutId, number, result);
    },

    /** decidePayoutApproval: records approve/reject/expiry and moves pending -> submitted | canceled. */
    async payoutApprovalDecide(input: PayoutApprovalDecision) {
      return guarded(() => decidePayoutApproval(core, input));
    },
  } satisfies PayoutActivities;
}
