/** Activities of payoutWorkflow over src/core/payouts; all idempotent, core errors become the contract's failure types. */
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
  type PayoutCheckActivities,
  type PayoutTransitionInput,
  type PayoutTransitionResult,
} from '../workflows/payout.contract';
import { decidePayoutApproval } from '../src/core/policies/payout-approvals';
import { payoutRailStatus } from '../src/core/rails/inbox';
import { screenPayout } from '../src/core/screening/payout-screening';
import { recordPayeeDecision, verifyPayee } from '../src/core/payouts/payee-verification';

export type { PayoutActivities, PayoutTransitionInput };

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

export function createPayoutActivities(core: Core) {
  return {
    /** With `deliverAttempt` and `to: 'delivering'`, also the rail attempt (null when the row is failed, canceled or refunded). */
    async payoutTransition(input: PayoutTransitionInput): Promise<PayoutTransitionResult> {
      const { payoutId, to, deliverAttempt, ...patch } = input;
      if (deliverAttempt !== undefined) {
        if (to !== 'delivering') throw ApplicationFailure.nonRetryable(`deliverAttempt is only for the move to delivering, not ${to}`, ILLEGAL_PAYOUT_TRANSITION);
        return guarded(() => deliverPayout(core, payoutId, deliverAttempt));
      }
      const row = await guarded(() => transitionPayout(core, payoutId, to, patch));
      return { status: row.status as PayoutStatus };
    },

    async payoutOpenClaim(input: { payoutId: string }) {
      return guarded(() => openClaimWindow(core, input.payoutId));
    },

    /** A live payout fails without retry. */
    async payoutRailAttempt(input: { payoutId: string; attempt: number }) {
      return guarded(() => makeRailAttempt(core, input.payoutId, input.attempt));
    },

    async payoutRailStatus(input: { payoutId: string; attempt: number; overdueMs: number }) {
      return payoutRailStatus(core, input.payoutId, input.attempt, input.overdueMs);
    },

    async payoutAttemptResult(input) {
      const { payoutId, number, ...result } = input;
      await recordAttemptResult(core, payoutId, number, result);
    },

    async payoutApprovalDecide(input: PayoutApprovalDecision) {
      return guarded(() => decidePayoutApproval(core, input));
    },

    async payoutScreen(input: { payoutId: string }) {
      return screenPayout(core, input.payoutId);
    },

    async payoutVerifyPayee(input: { payoutId: string }) {
      return verifyPayee(core, input.payoutId);
    },

    async payoutPayeeDecision(input: { payoutId: string; decision: 'confirmed' | 'canceled' | 'expired'; keyId?: string | null }) {
      await recordPayeeDecision(core, input.payoutId, input.decision, input.keyId ?? null);
    },
  } satisfies PayoutActivities & PayoutCheckActivities;
}
