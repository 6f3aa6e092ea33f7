/**
 * The sandbox rail simulator, behind the rail seam as the sandbox adapter (src/sandbox/rail-adapter.ts;
 * docs/rails.md "The seam"). Deterministic:
 * the outcome of an attempt depends only on the payout's `reference` and the attempt number, so
 * every state and failure of a payout can be reproduced from the API.
 *
 * ## Magic values (payout `reference`, sandbox only)
 *
 * | reference                               | what happens                                                                 | final status | failure.code                   | attempts |
 * |-----------------------------------------|------------------------------------------------------------------------------|--------------|--------------------------------|----------|
 * | (anything else)                         | delivered after `SANDBOX_ARRIVAL` (ISO 8601 duration or ms, default PT0.2S)  | succeeded    | -                              | 1        |
 * | `sandbox:invalid_destination`           | the rail refuses the destination at the first attempt                        | failed       | invalid_destination            | 1        |
 * | `sandbox:recipient_rejected_by_provider`| the provider rejects the recipient at the first attempt                      | failed       | recipient_rejected_by_provider | 1        |
 * | `sandbox:limit_exceeded`                | the provider's limit for the recipient is exceeded at the first attempt      | failed       | limit_exceeded                 | 1        |
 * | `sandbox:provider_declined`             | the provider declines at the first attempt                                   | failed       | provider_declined              | 1        |
 * | `sandbox:provider_timeout`              | every attempt times out; retried after 1 s, then 2 s                         | failed       | provider_timeout               | 3        |
 * | `sandbox:provider_timeout_once`         | the first attempt times out, the second (1 s later) is delivered             | succeeded    | -                              | 2        |
 * | `sandbox:refunded_by_provider`          | delivered, then the provider returns the funds 1 s later                     | refunded     | refunded_by_provider           | 1        |
 * | `sandbox:claim_expired`                 | claim_link only: the claim window is 2 seconds instead of 30 days            | failed       | claim_expired                  | 1        |
 * | `sandbox:slow`                          | delivery takes 5 seconds (used by the crash test)                            | succeeded    | -                              | 1        |
 *
 * On a claim_link payout the rail behaviours apply to the delivery that follows the claim. Money:
 * a failed or expired payout releases its hold (balance restored), a refunded one is credited back
 * in full (amount and fees). Provider references look like `sbx_<rail>_<random>`; a timed-out
 * attempt has none (the provider never answered).
 *
 * Not for workflow code (uses node:crypto through randomToken); the activities call it.
 */
import type { RailAttemptResult } from '../../workflows/payout.contract';
import { parseDuration } from '../domain/durations';
import { randomToken } from '../domain/ids';
import type { PayoutFailureCode } from '../domain/payout-state';

/** The magic `reference` values understood by the sandbox (see the table above). */
export const SANDBOX_MAGIC = {
  invalidDestination: 'sandbox:invalid_destination',
  recipientRejected: 'sandbox:recipient_rejected_by_provider',
  limitExceeded: 'sandbox:limit_exceeded',
  providerDeclined: 'sandbox:provider_declined',
  providerTimeout: 'sandbox:provider_timeout',
  providerTimeoutOnce: 'sandbox:provider_timeout_once',
  refundedByProvider: 'sandbox:refunded_by_provider',
  claimExpired: 'sandbox:claim_expired',
  slow: 'sandbox:slow',
} as const;

/** Claim window of a claim link (spec "Limits": claim-link arrival maximum 30 days). */
export const CLAIM_WINDOW_MS = 30 * 24 * 3600 * 1000;
/** Claim window under `sandbox:claim_expired`. */
export const SANDBOX_SHORT_CLAIM_WINDOW_MS = 2000;
/** Arrival under `sandbox:slow`. */
export const SANDBOX_SLOW_ARRIVAL_MS = 5000;
/** Delay between delivery and the provider's refund under `sandbox:refunded_by_provider`. */
export const SANDBOX_REFUND_AFTER_MS = 1000;

/** Message of the refund failure object (failure.code refunded_by_provider). */
export const REFUND_MESSAGE = 'The provider returned the funds after delivery; the amount and fees were credited back';

/** What one simulated attempt answers: settled at submission or rejected (the contract's shapes without `outcome`). */
export type SimulatedAttempt = Exclude<RailAttemptResult, { outcome: 'accepted' }>;

/** What the simulator needs to know about one attempt. */
export interface RailAttemptInput {
  /** Rail of the channel, e.g. 'spei', 'claim_link' (used in provider references). */
  rail: string;
  /** The payout's reference (magic values above), or null. */
  reference: string | null;
  /** 1-based attempt number. */
  attempt: number;
  /** The default simulated arrival, from config SANDBOX_ARRIVAL (ISO 8601 duration or ms). */
  sandboxArrival: string;
  /**
   * The provider reference already given to this attempt (a retried activity): the simulated
   * provider is idempotent per payout and attempt, so the same reference comes back.
   */
  existingProviderReference?: string | null;
}

const FINAL_FAILURES: Readonly<Record<string, { code: PayoutFailureCode; message: string }>> = {
  [SANDBOX_MAGIC.invalidDestination]: { code: 'invalid_destination', message: 'The destination account does not exist or cannot receive funds' },
  [SANDBOX_MAGIC.recipientRejected]: { code: 'recipient_rejected_by_provider', message: 'The provider rejected the recipient' },
  [SANDBOX_MAGIC.limitExceeded]: { code: 'limit_exceeded', message: "The payout exceeds the provider's limit for this recipient" },
  [SANDBOX_MAGIC.providerDeclined]: { code: 'provider_declined', message: 'The provider declined the payout' },
};

/** Backoff before attempt `attempt + 1`: 1 s, 2 s, 4 s, ... */
export function sandboxRetryAfterMs(attempt: number): number {
  return 1000 * 2 ** Math.max(0, attempt - 1);
}

/** A new provider reference `sbx_<rail>_<random>`. */
function providerReference(rail: string): string {
  return `sbx_${rail}_${randomToken(9).replace(/[-_]/g, 'x')}`;
}

/**
 * Simulates one delivery attempt (table above). Pure apart from the random provider reference,
 * which is reused when `existingProviderReference` is given.
 */
export function simulateRailAttempt(input: RailAttemptInput): SimulatedAttempt {
  const ref = input.reference ?? '';
  const reference = () => input.existingProviderReference ?? providerReference(input.rail);
  const final = FINAL_FAILURES[ref];
  if (final) {
    return { ok: false, errorCode: final.code, message: final.message, retryable: false, retryAfterMs: 0, providerReference: reference() };
  }
  if (ref === SANDBOX_MAGIC.providerTimeout || (ref === SANDBOX_MAGIC.providerTimeoutOnce && input.attempt === 1)) {
    return {
      ok: false,
      errorCode: 'provider_timeout',
      message: `The provider did not answer attempt ${input.attempt} in time`,
      retryable: true,
      retryAfterMs: sandboxRetryAfterMs(input.attempt),
      providerReference: null,
    };
  }
  const arrivalMs = ref === SANDBOX_MAGIC.slow ? SANDBOX_SLOW_ARRIVAL_MS : parseDuration(input.sandboxArrival);
  return {
    ok: true,
    providerReference: reference(),
    arrivalMs,
    ...(ref === SANDBOX_MAGIC.refundedByProvider ? { refundAfterMs: SANDBOX_REFUND_AFTER_MS, refundMessage: REFUND_MESSAGE } : {}),
  };
}

/** Claim window of a claim-link payout with this reference: 2 s under `sandbox:claim_expired`, else 30 days. */
export function sandboxClaimWindowMs(reference: string | null): number {
  return reference === SANDBOX_MAGIC.claimExpired ? SANDBOX_SHORT_CLAIM_WINDOW_MS : CLAIM_WINDOW_MS;
}
