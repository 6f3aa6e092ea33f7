/**
 * Surface B's disbursement status as a view of the core payout (spec "Disbursement status (Surface
 * B)"; docs/architecture.md "Surfaces"). A Surface B disbursement IS a claim-link payout; its
 * status is computed from the payout's status, `claim_started_at` and failure code:
 *
 * | Surface B  | core payout                                                           |
 * |------------|-----------------------------------------------------------------------|
 * | pending    | submitted or awaiting_claim, claim not started                        |
 * | claimed    | awaiting_claim with the claim started on the claim page; or claimed   |
 * | processing | delivering                                                            |
 * | delivered  | succeeded                                                             |
 * | failed     | failed (any failure but claim_expired), refunded                      |
 * | expired    | failed with claim_expired (30 days unclaimed; funds returned)         |
 * | cancelled  | canceled                                                              |
 *
 * A claim-link payout created inside a Surface A batch is `pending` also while the batch has not
 * started it (core `pending`).
 */
import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../../db/schema';
import type { ClaimStatus } from '../../domain/claim-disbursements';
import type { PayoutRow } from '../payouts/rows';

export { CLAIM_STATUSES, type ClaimStatus } from '../../domain/claim-disbursements';

/** The fields of a payout the view needs: its core status, when the claim started, its failure code. */
export interface ClaimStatusFacts {
  status: string;
  claimStartedAt: Date | null;
  failureCode: string | null;
}

/** The Surface B status of a payout (see the table above). */
export function claimStatusOf(p: ClaimStatusFacts): ClaimStatus {
  switch (p.status) {
    case 'pending':
    case 'submitted':
      return 'pending';
    case 'awaiting_claim':
      return p.claimStartedAt ? 'claimed' : 'pending';
    case 'claimed':
      return 'claimed';
    case 'delivering':
      return 'processing';
    case 'succeeded':
      return 'delivered';
    case 'failed':
      return p.failureCode === 'claim_expired' ? 'expired' : 'failed';
    case 'refunded':
      return 'failed';
    case 'canceled':
      return 'cancelled';
    default:
      return 'processing';
  }
}

/** The Surface B status of a stored payout row ({@link claimStatusOf} of its facts). */
export const claimStatusOfRow = (row: Pick<PayoutRow, 'status' | 'claim_started_at' | 'failure_code'>): ClaimStatus =>
  claimStatusOf({ status: row.status, claimStartedAt: row.claim_started_at, failureCode: row.failure_code });

/** A `where` on `payouts` selecting the payouts whose Surface B status is `s` (same table as {@link claimStatusOf}). */
export function claimStatusWhere(s: ClaimStatus) {
  return (eb: ExpressionBuilder<Database, 'payouts'>) => {
    switch (s) {
      case 'pending':
        return eb.or([
          eb('status', 'in', ['pending', 'submitted']),
          eb.and([eb('status', '=', 'awaiting_claim'), eb('claim_started_at', 'is', null)]),
        ]);
      case 'claimed':
        return eb.or([eb('status', '=', 'claimed'), eb.and([eb('status', '=', 'awaiting_claim'), eb('claim_started_at', 'is not', null)])]);
      case 'processing':
        return eb('status', '=', 'delivering');
      case 'delivered':
        return eb('status', '=', 'succeeded');
      case 'failed':
        return eb.or([
          eb('status', '=', 'refunded'),
          eb.and([eb('status', '=', 'failed'), eb.or([eb('failure_code', 'is', null), eb('failure_code', '!=', 'claim_expired')])]),
        ]);
      case 'expired':
        return eb.and([eb('status', '=', 'failed'), eb('failure_code', '=', 'claim_expired')]);
      case 'cancelled':
        return eb('status', '=', 'canceled');
    }
  };
}
