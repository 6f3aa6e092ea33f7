/**
 * A batch disbursement and its items as the core returns them (docs/disbursements.md; spec
 * "Disbursement (Surface A)"). Every amount is micro-USDC unless it carries its currency; each
 * surface renders its own wire shape (src/wire/surface-a/disbursements.ts).
 */
import type { DisbursementItemStatus, DisbursementStatus } from './disbursement-state';
import type { Money } from './money';

/** A disbursement with its review summary, balance check, approval state and progress. */
export interface Disbursement {
  id: string;
  name: string;
  status: DisbursementStatus;
  revisionId: string;
  summary: {
    itemCount: number;
    /** Items that passed review (before launch: ready; after: every item not needing review). */
    ready: number;
    needsReview: number;
    /** Sum over the items that passed review (USDC). */
    totalSourceAmount: Money;
    /** Fees of the items that passed review (USDC). */
    totalFees: Money;
    /** Items by recipient type. */
    byType: Record<string, number>;
    /** Groups of items (ids in batch order) paying the same recipient. */
    duplicateRecipients: string[][];
  };
  /** Before launch: what launch holds. Once launched: what retry-failed would hold (USDC). */
  balanceCheck: { required: Money; available: Money; ok: boolean };
  approval: {
    required: number;
    /** Distinct keys that approved the current revision. */
    received: number;
    revisionId: string | null;
    submittedBy: string | null;
    approved: boolean;
  };
  /** Item counts once launched (null before). */
  progress: { pending: number; processing: number; succeeded: number; failed: number; refunded: number } | null;
  rejection: { reason: string | null; rejectedAt: Date } | null;
  createdAt: Date;
  submittedAt: Date | null;
  launchedAt: Date | null;
  completedAt: Date | null;
}

/** One item of a disbursement, with the result of its current attempt's payout. */
export interface DisbursementItem {
  id: string;
  disbursementId: string;
  seq: number;
  /** CSV line (header = 1) for imported items, else null. */
  rowNumber: number | null;
  status: DisbursementItemStatus;
  channel: string | null;
  /** USDC, once reviewed. */
  sourceAmount: Money | null;
  /** The source amount as given, while it is not (validly) reviewed. */
  givenSourceAmount: string | null;
  /** The payout's destination amount, else the reviewed one. */
  destinationAmount: Money | null;
  destinationCurrency: string | null;
  /** Decimal string: 1 USDC buys `rate` units of the destination currency. */
  rate: string | null;
  /** Micro-USDC. */
  fees: { provider: bigint; service: bigint; fxSpread: bigint; total: bigint } | null;
  /** sourceAmount + fees (USDC): this item's share of the batch hold. */
  debitTotal: Money | null;
  recipientId: string | null;
  /** Inline recipient with bank and identity fields masked (keys as given). */
  recipient: Record<string, unknown> | null;
  recipientType: string | null;
  reference: string | null;
  memo: string | null;
  /** Why the item needs review (the error of its validation); empty once it passes. */
  reviewReasons: { code: string; message: string; param: string | null }[];
  /** Payout of the current attempt. */
  payoutId: string | null;
  /** Attempts made for this item (retry-failed adds one). */
  attempts: number;
  failure: { code: string; message: string } | null;
  providerReference: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * One item as given (spec "Disbursement" item fields), values unknown until reviewed (a bad one makes
 * it needs_review); `extra` holds the other fields as given.
 */
export interface DisbursementItemInput {
  channel?: unknown;
  sourceAmount?: unknown;
  recipientId?: unknown;
  recipient?: unknown;
  reference?: unknown;
  memo?: unknown;
  extra?: Record<string, unknown>;
}

/** An item edit (spec "Item fields on create and update"): only the fields present change; null clears reference / memo. */
export type DisbursementItemPatch = Omit<DisbursementItemInput, 'extra'>;
