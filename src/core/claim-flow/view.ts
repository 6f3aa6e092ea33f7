/** A claim-link payout as a Surface B disbursement (src/domain/claim-disbursements.ts). */
import type { ClaimDisbursement } from '../../domain/claim-disbursements';
import { USDC } from '../../domain/money';
import type { PayoutRow } from '../payouts';
import { claimStatusOfRow } from './status';

/** The {@link ClaimDisbursement} of a payout row; `publicUrl` makes `claimUrl` (`{publicUrl}/c/<token>`). */
export function claimDisbursementView(row: PayoutRow, publicUrl: string): ClaimDisbursement {
  const d = (row.recipient_details ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    id: row.id,
    status: claimStatusOfRow(row),
    recipientPhone: row.recipient_type === 'phone' ? str(d.number) : null,
    recipientEmail: row.recipient_type === 'email' ? str(d.address) : null,
    amount: { minor: row.source_amount, currency: USDC },
    fee: { minor: row.fee_total, currency: USDC },
    reference: row.reference,
    note: row.message,
    payoutMethod: row.claim_method,
    batchId: row.claim_batch_id,
    claimUrl: row.claim_token ? `${publicUrl}/c/${row.claim_token}` : null,
    claimExpiresAt: row.claim_expires_at,
    claimedAt: row.claim_started_at ?? row.claimed_at,
    deliveredAt: row.delivered_at,
    failureCode: row.failure_code,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
