/**
 * The sandbox simulator as one rail adapter among others (docs/rails.md "The seam"; the magic
 * values are in src/sandbox/rails.ts and docs/getting-started.md). It knows every outcome at
 * submission, so it answers `settled` (with when the money lands and whether the provider returns
 * it) or `rejected`: a sandbox payout costs the payout workflow one durable timer, as before the
 * seam existed.
 */
import { simulateRailAttempt } from './rails';
import type { PaymentInstruction, RailAdapter, RailCapabilities, RailSubmitResult } from '../rails/adapter';

export interface SandboxRailOptions {
  /** ISO 8601 duration or ms. */
  sandboxArrival: string;
}

const CAPABILITIES: RailCapabilities = {
  rails: ['*'],
  currencies: ['*'],
  mode: 'instant',
  answers: 'at_submission',
  cutOffs: [],
  returnsAfterSettlement: true,
  returnWindowMs: 0,
};

/** Every rail of the sandbox environment. Never throws. */
export function sandboxRailAdapter(options: SandboxRailOptions): RailAdapter {
  return {
    name: 'sandbox',
    capabilities: CAPABILITIES,
    async submit(instruction: PaymentInstruction): Promise<RailSubmitResult> {
      const r = simulateRailAttempt({
        rail: instruction.rail,
        reference: instruction.reference,
        attempt: instruction.attempt,
        sandboxArrival: options.sandboxArrival,
        existingProviderReference: instruction.existing?.providerReference ?? null,
      });
      if (r.ok) {
        return {
          outcome: 'settled',
          references: { providerReference: r.providerReference },
          landsInMs: r.arrivalMs,
          ...(r.refundAfterMs !== undefined
            ? { returned: { afterMs: r.refundAfterMs, failureCode: 'refunded_by_provider' as const, message: r.refundMessage ?? 'The provider returned the funds' } }
            : {}),
        };
      }
      return {
        outcome: 'rejected',
        failureCode: r.errorCode,
        message: r.message,
        retryable: r.retryable,
        retryAfterMs: r.retryAfterMs,
        references: r.providerReference ? { providerReference: r.providerReference } : {},
      };
    },
    async status() {
      return null;
    },
    async health() {
      return 'working';
    },
  };
}
