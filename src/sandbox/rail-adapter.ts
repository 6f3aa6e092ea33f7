/** The sandbox simulator as a rail adapter (docs/rails.md "The seam"): it answers `settled` or `rejected` at submission. */
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
