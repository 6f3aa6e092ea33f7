/** The sandbox rail simulator: the outcome depends only on `reference` and attempt (docs/sandbox.md). Not for workflows. */
import type { RailAttemptResult } from '../../workflows/payout.contract';
import { parseDuration } from '../domain/durations';
import { randomToken } from '../domain/ids';
import { CLAIM_WINDOW_MS, type PayoutFailureCode } from '../domain/payout-state';

/** The magic `reference` values (docs/sandbox.md). */
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

export { CLAIM_WINDOW_MS };
/** Claim window under `sandbox:claim_expired`. */
export const SANDBOX_SHORT_CLAIM_WINDOW_MS = 2000;
export const SANDBOX_SLOW_ARRIVAL_MS = 5000;
export const SANDBOX_REFUND_AFTER_MS = 1000;

export const REFUND_MESSAGE = 'The provider returned the funds after delivery; the amount and fees were credited back';

/** A simulated attempt: settled at submission or rejected. */
export type SimulatedAttempt = Exclude<RailAttemptResult, { outcome: 'accepted' }>;

export interface RailAttemptInput {
  /** E.g. 'spei'. */
  rail: string;
  reference: string | null;
  /** 1-based. */
  attempt: number;
  /** Config SANDBOX_ARRIVAL (ISO 8601 duration or ms). */
  sandboxArrival: string;
  /** The reference already given to this attempt: the simulated provider is idempotent per attempt. */
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

function providerReference(rail: string): string {
  return `sbx_${rail}_${randomToken(9).replace(/[-_]/g, 'x')}`;
}

/** Simulates one delivery attempt; pure apart from a new random provider reference. */
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

/** 2 s under `sandbox:claim_expired`, else 30 days. */
export function sandboxClaimWindowMs(reference: string | null): number {
  return reference === SANDBOX_MAGIC.claimExpired ? SANDBOX_SHORT_CLAIM_WINDOW_MS : CLAIM_WINDOW_MS;
}
