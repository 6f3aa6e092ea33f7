/**
 * Verification of Payee on sepa_eur (docs/payee-verification.md): asks the rail, records the answer,
 * and records the business's confirmation. STUB: filled by the Verification of Payee work.
 */
import type { Core } from '../context';
import type { PayeeVerificationStep } from '../../../workflows/payout.contract';

/** Asks the payout's rail for a Verification of Payee, or returns the answer already recorded (idempotent per payout). */
export async function verifyPayee(_core: Core, _payoutId: string): Promise<PayeeVerificationStep> {
  throw new Error('verifyPayee: not implemented yet');
}

/** Records the business's confirmation, its cancellation or the confirmation window's expiry (idempotent). */
export async function recordPayeeDecision(_core: Core, _payoutId: string, _decision: 'confirmed' | 'canceled' | 'expired', _keyId: string | null): Promise<void> {
  throw new Error('recordPayeeDecision: not implemented yet');
}
