/** Delivery steps of a running payout through the rail adapter seam (docs/rails.md "The seam"). */
import type { RailAttemptResult } from '../../../workflows/payout.contract';
import { parseDuration } from '../../domain/durations';
import { findChannel } from '../../domain/channels';
import { CLAIM_WINDOW_MS, type PayoutStatus } from '../../domain/payout-state';
import type { PaymentInstruction, RailAdapter, RailSubmitResult } from '../../rails/adapter';
import { RailError } from '../../rails/adapter';
import type { Core } from '../context';
import { liveServedRails, railAdapterFor } from '../rails/rail-adapters';
import { CLAIM_LINK } from '../claim-routes';
import { deliveryRoute } from './claim-destinations';
import type { PayoutRow } from './rows';
import { openClaim, recordAttemptProviderReference, recordAttemptStart, startDelivery, transitionPayout } from './transitions';

/** A payout whose rail has no adapter in its environment (no live connection configured): not retried. */
export class NoRailAdapterError extends Error {
  constructor(readonly rail: string) {
    super(`No live adapter for rail ${rail}`);
    this.name = 'NoRailAdapterError';
  }
}

/**
 * submitted -> awaiting_claim for {@link CLAIM_WINDOW_MS} (sandbox: the claim-window policy `core.sandbox.claimWindowMs`, 2 s under
 * `sandbox:claim_expired`). Returns the window left in ms; throws IllegalPayoutTransitionError if it cannot await a claim.
 */
export async function openClaimWindow(core: Core, payoutId: string): Promise<{ claimWindowMs: number }> {
  const current = await core.db.selectFrom('payouts').select(['reference', 'environment']).where('id', '=', payoutId).executeTakeFirstOrThrow();
  const windowMs = current.environment === 'sandbox' ? core.sandbox.claimWindowMs(current.reference) : CLAIM_WINDOW_MS;
  const row = await openClaim(core, payoutId, windowMs);
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

/** The payout columns an attempt's payment instruction is built from. */
type InstructionSource = Pick<
  PayoutRow,
  'environment' | 'rail' | 'reference' | 'business_id' | 'channel' | 'destination_amount' | 'destination_currency' | 'recipient_details'
>;

/** `payout` as its delivery route sees it: a live claim-link payout with the channel, rail and recipient it was claimed to. */
async function routed<T extends InstructionSource>(core: Core, payoutId: string, payout: T): Promise<T> {
  const route = await deliveryRoute(core, payoutId, payout);
  return { ...payout, channel: route.channel, rail: route.rail, recipient_details: route.recipientDetails };
}

/** Hands started attempt `attempt` to `adapter` and keeps its reference; a RailError becomes a rejection. */
async function submitAttempt(
  core: Core,
  payoutId: string,
  attempt: number,
  payout: InstructionSource,
  adapter: RailAdapter,
  existingProviderReference: string | null,
): Promise<RailAttemptResult> {
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
    existing: existingProviderReference ? { providerReference: existingProviderReference } : null,
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
  if (result.providerReference && !existingProviderReference) await recordAttemptProviderReference(core, payoutId, attempt, result.providerReference);
  return result;
}

/**
 * Delivery attempt `attempt` (1-based), idempotent per (payout, attempt): records its start and hands
 * the instruction to the rail's adapter. Throws {@link NoRailAdapterError} when the rail has no adapter.
 */
export async function makeRailAttempt(core: Core, payoutId: string, attempt: number): Promise<RailAttemptResult> {
  const stored = await core.db
    .selectFrom('payouts')
    .select(['environment', 'rail', 'reference', 'business_id', 'channel', 'destination_amount', 'destination_currency', 'recipient_details'])
    .where('id', '=', payoutId)
    .executeTakeFirstOrThrow();
  const payout = await routed(core, payoutId, stored);
  const adapter = railAdapterFor(core, payout.environment, payout.rail);
  if (!adapter) throw new NoRailAdapterError(payout.rail);
  const started = await recordAttemptStart(core, payoutId, attempt);
  return submitAttempt(core, payoutId, attempt, payout, adapter, started.provider_reference);
}

/** Statuses in which a payout has nothing to deliver: a delivery replayed after a lost workflow task can find it there. */
export const NOTHING_TO_DELIVER: readonly PayoutStatus[] = ['failed', 'canceled', 'refunded'];

/**
 * `transitionPayout(…, 'delivering')` then {@link makeRailAttempt}, in fewer round trips. Returns the
 * stored status and the rail's answer (null in {@link NOTHING_TO_DELIVER}); throws
 * IllegalPayoutTransitionError or {@link NoRailAdapterError}.
 */
export async function deliverPayout(core: Core, payoutId: string, attempt: number): Promise<{ status: PayoutStatus; attempt: RailAttemptResult | null }> {
  const liveRails = liveServedRails(core);
  const started = await startDelivery(core, payoutId, attempt, liveRails.length > 0 ? [...liveRails, CLAIM_LINK] : liveRails);
  if (started) {
    const payout = await routed(core, payoutId, started.payout);
    const adapter = railAdapterFor(core, payout.environment, payout.rail);
    // A live claim-link payout with no stored route (not claimed on the claim page) has none.
    if (!adapter) throw new NoRailAdapterError(payout.rail);
    const result = await submitAttempt(core, payoutId, attempt, payout, adapter, started.existingProviderReference);
    return { status: started.payout.status as PayoutStatus, attempt: result };
  }
  const row = await transitionPayout(core, payoutId, 'delivering');
  const status = row.status as PayoutStatus;
  if (NOTHING_TO_DELIVER.includes(status)) return { status, attempt: null };
  return { status, attempt: await makeRailAttempt(core, payoutId, attempt) };
}
