/**
 * Activities of payoutWorkflow (contract: workflows/payout.contract.ts): storage (src/core/payouts
 * transitions and attempts) and the rail (src/sandbox/rails.ts). Every activity is idempotent, so
 * Temporal's retries are safe: transitions are guarded by the transition table and no-op when
 * already done, postings and events are keyed, an attempt keeps its first provider reference and
 * result.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Core } from '../src/core/context';
import {
  IllegalPayoutTransitionError,
  openClaim,
  recordAttemptProviderReference,
  recordAttemptResult,
  recordAttemptStart,
  transitionPayout,
} from '../src/core/payouts';
import type { PayoutStatus } from '../src/domain/payout-state';
import { sandboxClaimWindowMs, simulateRailAttempt } from '../src/sandbox/rails';
import {
  ILLEGAL_PAYOUT_TRANSITION,
  NO_RAIL_ADAPTER,
  type PayoutActivities,
  type PayoutTransitionInput,
} from '../workflows/payout.contract';

export type { PayoutActivities, PayoutTransitionInput };

async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof IllegalPayoutTransitionError) {
      throw ApplicationFailure.create({ type: ILLEGAL_PAYOUT_TRANSITION, message: err.message, nonRetryable: true });
    }
    throw err;
  }
}

/** The payout activities over one core (merged into createActivities). */
export function createPayoutActivities(core: Core) {
  return {
    /** transitionPayout (one transaction: projection, money, event). Returns the status now stored. */
    async payoutTransition(input: PayoutTransitionInput) {
      const { payoutId, to, ...patch } = input;
      const row = await guarded(() => transitionPayout(core, payoutId, to, patch));
      return { status: row.status as PayoutStatus };
    },

    /**
     * submitted -> awaiting_claim with a claim token and claim_expires_at (30 days; 2 s under the
     * sandbox magic reference `sandbox:claim_expired`). Returns the claim window left, in ms.
     */
    async payoutOpenClaim(input: { payoutId: string }) {
      const current = await core.db.selectFrom('payouts').select('reference').where('id', '=', input.payoutId).executeTakeFirstOrThrow();
      const row = await guarded(() => openClaim(core, input.payoutId, sandboxClaimWindowMs(current.reference)));
      const left = (row.claim_expires_at?.getTime() ?? core.now().getTime()) - core.now().getTime();
      return { claimWindowMs: Math.max(0, left) };
    },

    /**
     * One delivery attempt: records its start (attempt_count >= attempt), calls the rail and keeps
     * the provider reference it gives. A retried activity reuses the attempt's stored reference.
     * Only the sandbox rail exists: a live payout fails this activity without retry.
     */
    async payoutRailAttempt(input: { payoutId: string; attempt: number }) {
      const payout = await core.db
        .selectFrom('payouts')
        .select(['environment', 'rail', 'reference'])
        .where('id', '=', input.payoutId)
        .executeTakeFirstOrThrow();
      if (payout.environment !== 'sandbox') {
        throw ApplicationFailure.create({ type: NO_RAIL_ADAPTER, message: `No live adapter for rail ${payout.rail}`, nonRetryable: true });
      }
      const attempt = await recordAttemptStart(core, input.payoutId, input.attempt);
      const result = simulateRailAttempt({
        rail: payout.rail,
        reference: payout.reference,
        attempt: input.attempt,
        sandboxArrival: core.config.SANDBOX_ARRIVAL,
        existingProviderReference: attempt.provider_reference,
      });
      if (result.providerReference) await recordAttemptProviderReference(core, input.payoutId, input.attempt, result.providerReference);
      return result;
    },

    /** Records the result of an attempt that will be retried (idempotent). */
    async payoutAttemptResult(input) {
      const { payoutId, number, ...result } = input;
      await recordAttemptResult(core, payoutId, number, result);
    },
  } satisfies PayoutActivities;
}
