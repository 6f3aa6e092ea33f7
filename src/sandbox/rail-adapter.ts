/** The sandbox simulator as a rail adapter (docs/rails.md "The seam"): it answers `settled` or `rejected` at submission. */
import { simulateRailAttempt } from './rails';
import type { PayeeVerificationAnswer, PayeeVerificationRequest, PaymentInstruction, RailAdapter, RailCapabilities, RailSubmitResult } from '../rails/adapter';

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

/** The magic holder names of the sandbox's Verification of Payee (docs/sandbox.md "Verification of Payee"; case-insensitive). */
export const SANDBOX_PAYEE_MAGIC = { closeMatch: 'close match', noMatch: 'no match', notPossible: 'not possible' } as const;

/** The sandbox's Verification of Payee answer for a holder name (docs/sandbox.md): a close match returns the name without its magic words. */
export function sandboxVerifyPayee(request: PayeeVerificationRequest): PayeeVerificationAnswer {
  const name = request.creditor.name;
  const lower = name.toLowerCase();
  if (lower.includes(SANDBOX_PAYEE_MAGIC.noMatch)) return { result: 'no_match', nameReturned: null, reasonCode: 'PN01' };
  if (lower.includes(SANDBOX_PAYEE_MAGIC.notPossible)) return { result: 'not_possible', nameReturned: null, reasonCode: 'NR01' };
  if (lower.includes(SANDBOX_PAYEE_MAGIC.closeMatch)) {
    const real = name.replace(/close match/gi, ' ').replace(/\s+/g, ' ').trim();
    return { result: 'close_match', nameReturned: real || 'Sandbox Account Holder', reasonCode: 'PN02' };
  }
  return { result: 'match', nameReturned: null, reasonCode: 'MTCH' };
}

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
    async verifyPayee(request) {
      return sandboxVerifyPayee(request);
    },
  };
}
