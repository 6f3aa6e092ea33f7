/**
 * The Surface B view of a claim-link payout (spec "Surface B resources": disbursement record as seen
 * in event data, plus the documented extra fields), shared by the API and the Surface B webhook
 * envelope. Amounts are decimal strings in USD, where 1 USD = 1 USDC of the balance.
 */
import { formatAmount, USDC } from '../../domain/money';
import type { PayoutRow } from '../payouts';
import { type ClaimStatus, claimStatusOf } from './status';

/** A Surface B disbursement (camelCase; timestamps ISO 8601 UTC or null). */
export interface ClaimDisbursementView {
  id: string;
  status: ClaimStatus;
  /** E.164, or null for a disbursement to an e-mail address. */
  recipientPhone: string | null;
  recipientEmail: string | null;
  /** What the recipient receives, USD decimal string ("25.00"). */
  amountUsd: string;
  /** Fees charged to the balance on top of amountUsd, USD decimal string. */
  feeUsd: string;
  currency: 'USD';
  reference: string | null;
  note: string | null;
  /** The method the recipient chose on the claim page (bank_transfer, mobile_money, wallet), or null. */
  payoutMethod: string | null;
  batchId: string | null;
  /** The claim link sent to the recipient (null until the claim is open). */
  claimUrl: string | null;
  claimExpiresAt: string | null;
  claimedAt: string | null;
  deliveredAt: string | null;
  failureCode: string | null;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The {@link ClaimDisbursementView} of a payout row; `publicUrl` makes `claimUrl` (`{publicUrl}/c/<token>`). */
export function claimDisbursementView(row: PayoutRow, publicUrl: string): ClaimDisbursementView {
  const d = (row.recipient_details ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    id: row.id,
    status: claimStatusOf(row),
    recipientPhone: row.recipient_type === 'phone' ? str(d.number) : null,
    recipientEmail: row.recipient_type === 'email' ? str(d.address) : null,
    amountUsd: formatAmount(row.source_amount, USDC),
    feeUsd: formatAmount(row.fee_total, USDC),
    currency: 'USD',
    reference: row.reference,
    note: row.message,
    payoutMethod: row.claim_method,
    batchId: row.claim_batch_id,
    claimUrl: row.claim_token ? `${publicUrl}/c/${row.claim_token}` : null,
    claimExpiresAt: iso(row.claim_expires_at),
    claimedAt: iso(row.claim_started_at ?? row.claimed_at),
    deliveredAt: iso(row.delivered_at),
    failureCode: row.failure_code,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
