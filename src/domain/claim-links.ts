/** A claim-link payout as its claim page sees it (docs/surface-b.md; src/api/pages/claim.ts). */
import type { Payout } from './payouts';

/** The payout behind a claim link's token, whose business and environment the page acts for, and the claim flow's marks. */
export interface ClaimLink {
  payout: Payout;
  businessId: string;
  environment: 'sandbox' | 'live';
  /** When the recipient started the claim on the page (Surface B `claimed`), else null. */
  claimStartedAt: Date | null;
  /** When the sender asked to cancel (a cancel under way), else null. */
  cancelRequestedAt: Date | null;
}
