/**
 * Screening a payout before money moves (docs/screening.md "Holding payouts"): the subject is the
 * payout's recipient (saved or inline) or, on a claim link, the claimant; a potential match opens a
 * case (src/core/screening/cases.ts). STUB: filled by the screening-in-payouts work.
 */
import type { Core } from '../context';
import type { PayoutScreeningStep } from '../../../workflows/payout.contract';

/** Screens payout `payoutId` in its environment's service; idempotent per payout (a second call returns the open case or the last answer). */
export async function screenPayout(_core: Core, _payoutId: string): Promise<PayoutScreeningStep> {
  throw new Error('screenPayout: not implemented yet');
}
