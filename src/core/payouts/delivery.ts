/**
 * Delivery steps of a running payout: opening the claim window and making one rail attempt
 * through the rail adapter seam (docs/rails.md "The seam"; src/core/rails/registry.ts picks the
 * adapter by environment and rail). Called by the payout activities (activities/payouts.ts),
 * which turn the errors below into the contract's failure types.
 */
import type { RailAttemptResult } from '../../../workflows/payout.contract';
import { parseDuration } from '../../domain/durations';
import { findChannel } from '../../domain/channels';
import type { PaymentInstruction, RailSubmitResult } from '../../rails/adapter';
import { RailError } from '../../rails/adapter';
import { sandboxClaimWindowMs } from '../../sandbox/rails';
import type { Core } from '../context';
import { railAdapterFor } from '../rails/registry';
import { openClaim, recordAttemptProviderReference, recordAttemptStart } from './transitions';

/** A payout whose rail has no adapter in its environment (no live connection configured): not retried. */
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

/** The payout workflow's form of what the rail answered (workflows/payout.contract.ts RailAttemptResult). */
function toAttemptResult(r: RailSubmitResult, deadlineMs: number, returnWindowMs: number): RailAttemptResult {
  const providerReference = r.references.providerReference ?? r.references.endToEndId ?? null;
  if (r.outcome === 'settled') {
    return {
      ok: true,
      providerReference: providerReference ?? '',
      arrivalMs: r.landsInMs,
      ...(r.returned ? { refundAfterMs: r.returned.afterMs, refundMessage: r.returned.message } : {}),
    };
  }
  if (r.outcome === 'accepted') return { ok: true, outcome: 'accepted', providerReference: providerReference ?? '', deadlineMs, returnWindowMs };
  return {
    ok: false,
    errorCode: r.failureCode,
    message: r.message,
    retryable: r.retryable,
    retryAfterMs: r.retryAfterMs,
    providerReference,
    ...(r.railReasonCode ? { railReasonCode: r.railReasonCode } : {}),
  };
}

/**
 * Delivery attempt `attempt` (1-based): records its start (attempt_count >= attempt), hands the
 * payment instruction to the rail's adapter and keeps the reference it gives. A retried call
 * reuses the attempt's stored reference, so the rail sees one idempotent instruction per
 * (payout, attempt). A RailError the adapter throws becomes a retryable or final rejection. Throws
 * {@link NoRailAdapterError} when the payout's rail has no adapter in its environment.
 */
export async function makeRailAttempt(core: Core, payoutId: string, attempt: number): Promise<RailAttemptResult> {
  const payout = await core.db
    .selectFrom('payouts')
    .select(['environment', 'rail', 'reference', 'business_id', 'channel', 'destination_amount', 'destination_currency', 'recipient_details'])
    .where('id', '=', payoutId)
    .executeTakeFirstOrThrow();
  const adapter = railAdapterFor(core, payout.environment, payout.rail);
  if (!adapter) throw new NoRailAdapterError(payout.rail);
  const started = await recordAttemptStart(core, payoutId, attempt);
  const details = payout.recipient_details as Record<string, unknown>;
  const account = Object.fromEntries(Object.entries(details).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const instruction: PaymentInstruction = {
    payoutId,
    attempt,
    environment: payout.environment,
    businessId: payout.business_id,
    channel: payout.channel,
    rail: payout.rail,
    amountMinor: payout.destination_amount.toString(),
    currency: payout.destination_currency,
    creditor: {
      name: String(details.holder_name ?? details.name ?? ''),
      kind: details.recipient_kind === 'business' ? 'business' : 'individual',
      country: typeof details.country === 'string' ? details.country : null,
      account,
    },
    reference: payout.reference,
    existing: started.provider_reference ? { providerReference: started.provider_reference } : null,
  };
  let answer: RailSubmitResult;
  try {
    answer = await adapter.submit(instruction);
  } catch (err) {
    if (!(err instanceof RailError)) throw err;
    answer = {
      outcome: 'rejected',
      failureCode: err.failureCode,
      message: err.message,
      retryable: err.retryable,
      retryAfterMs: err.retryable ? 1000 * 2 ** Math.max(0, attempt - 1) : 0,
      ...(err.railReasonCode ? { railReasonCode: err.railReasonCode } : {}),
      references: {},
    };
  }
  const channel = findChannel(payout.channel);
  const deadlineMs = channel ? parseDuration(channel.arrival.max) : 24 * 3600 * 1000;
  const result = toAttemptResult(answer, deadlineMs, adapter.capabilities.returnWindowMs);
  if (result.providerReference && !started.provider_reference) await recordAttemptProviderReference(core, payoutId, attempt, result.providerReference);
  return result;
}
