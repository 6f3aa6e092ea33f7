/**
 * The claimant's identity at claim time (docs/screening.md "Identity at claim time"): what the claim
 * page collected for a channel with `kycRequired`, as the payout's screening subject. STUB: filled by
 * the identity-at-claim work; returns null (no identity collected) until then.
 */
import type { Core } from '../context';
import type { ScreeningSubject } from '../screening/service';

/** The claimant as a screening subject, and whether their name differs from the account holder's; null when none was collected. */
export interface ClaimantIdentity {
  subject: ScreeningSubject;
  /** Set when the claimant's name does not match the holder name of the account they gave. */
  nameMismatch: { claimantName: string; holderName: string } | null;
}

/** The identity collected when payout `payoutId` was claimed, decrypted; null when the claim collected none. */
export async function claimantIdentity(_core: Core, _payoutId: string): Promise<ClaimantIdentity | null> {
  return null;
}
