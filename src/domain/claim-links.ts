/** A claim-link payout as its claim page sees it (docs/surface-b.md; src/api/pages/claim.ts). */
import type { Payout } from './payouts';

/** The payout behind a claim link's token, whose business and environment the page acts for, and the claim flow's marks. */
export interface ClaimLink {
  payout: Payout;
  businessId: string;
  environment: 'sandbox' | 'live';
  claimStartedAt: Date | null;
  /** Set while the sender's cancel is under way. */
  cancelRequestedAt: Date | null;
}
