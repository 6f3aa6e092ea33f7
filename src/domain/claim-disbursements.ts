/**
 * A Surface B disbursement as the core returns it: a claim-link payout seen through the claim flow
 * (spec "Surface B resources", "Disbursement status (Surface B)"; docs/architecture.md "Surfaces").
 * Surface B renders it camelCase with USD decimal strings (src/api/surface-b/disbursements.ts).
 */
import type { Money } from './money';

/** Spec "Disbursement status (Surface B)". */
export const CLAIM_STATUSES = ['pending', 'claimed', 'processing', 'delivered', 'failed', 'expired', 'cancelled'] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

/** A claim-link payout as a Surface B disbursement; amounts in micro-USDC (1 USD = 1 USDC of the balance). */
export interface ClaimDisbursement {
  id: string;
  status: ClaimStatus;
  /** E.164, or null for a disbursement to an e-mail address. */
  recipientPhone: string | null;
  recipientEmail: string | null;
  /** What the recipient receives (USDC). */
  amount: Money;
  /** Fees charged to the balance on top of `amount` (USDC). */
  fee: Money;
  reference: string | null;
  note: string | null;
  /** The method the recipient chose on the claim page (bank_transfer, mobile_money, wallet), or null. */
  payoutMethod: string | null;
  batchId: string | null;
  /** The claim link sent to the recipient (null until the claim is open). */
  claimUrl: string | null;
  claimExpiresAt: Date | null;
  claimedAt: Date | null;
  deliveredAt: Date | null;
  failureCode: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A Surface B batch of claim-link payouts (spec "Batch create"), with its disbursements in id order. */
export interface ClaimBatch {
  id: string;
  batchReference: string | null;
  note: string | null;
  count: number;
  /** Sum of the entries' amounts (USDC). */
  totalAmount: Money;
  /** Sum of amounts plus fees held on the balance (USDC). */
  totalDebit: Money;
  createdAt: Date;
  disbursements: ClaimDisbursement[];
}
