/**
 * Delivery steps of a running payout that need the rail or the sandbox's magic values: opening the
 * claim window and making one rail attempt. Called by the payout activities (activities/payouts.ts),
 * which turn the errors below into the contract's failure types.
 */
import { type RailAttemptResult, sandboxClaimWindowMs, simulateRailAttempt } from '../../sandbox/rails';
import type { Core } from '../context';
import { openClaim, recordAttemptProviderReference, recordAttemptStart } from './transitions';

/** A payout whose rail has no adapter (only the sandbox rail ships): not retried. */
export class NoRailAdapterError extends Error {
  constructor(readonly rail: string) {
    super(`No live adapter for rail ${rail}`);
    this.name = 'NoRailAdapterError';
  }
}

/**
 * submitted -> awaiting_claim with a claim token and claim_expires_at (30 days; 2 s under the
 * sandbox magic reference `sandbox:claim_expired`). Returns the claim window left, in ms (>= 0).
 * Throws IllegalPayoutTransitionError if the payout cannot await a claim.
 */
export async function openClaimWindow(core: Core, payoutId: string): Promise<{ claimWindowMs: number }> {
  const current = await core.db.selectFrom('payouts').select('reference').where('id', '=', payoutId).executeTakeFirstOrThrow();
  const row = await openClaim(core, payoutId, sandboxClaimWindowMs(current.reference));
  const left = (row.claim_expires_at?.getTime() ?? core.now().getTime()) - core.now().getTime();
  return { claimWindowMs: Math.max(0, left) };
}

/**
 * Delivery attempt `attempt` (1-based): records its start (attempt_count >= attempt), calls the
 * rail and keeps the provider reference it gives. A retried call reuses the attempt's stored
 * reference, so the rail sees one idempotent request per (payout, attempt). Only the sandbox rail
 * exists: a live payout throws {@link NoRailAdapterError}.
 */
export async function makeRailAttempt(core: Core, payoutId: string, attempt: number): Promise<RailAttemptResult> {
  const payout = await core.db
    .selectFrom('payouts')
    .select(['environment', 'rail', 'reference'])
    .where('id', '=', payoutId)
    .executeTakeFirstOrThrow();
  if (payout.environment !== 'sandbox') throw new NoRailAdapterError(payout.rail);
  const started = await recordAttemptStart(core, payoutId, attempt);
  const result = simulateRailAttempt({
    rail: payout.rail,
    reference: payout.reference,
    attempt,
    sandboxArrival: core.config.SANDBOX_ARRIVAL,
    existingProviderReference: started.provider_reference,
  });
  if (result.providerReference && !started.provider_reference) await recordAttemptProviderReference(core, payoutId, attempt, result.providerReference);
  return result;
}
