/** Surface A's disbursement and disbursement item (spec "Disbursement (Surface A)"; snake_case, USDC decimal strings). */
import type { DisbursementItemStatus, DisbursementStatus } from '../../domain/disbursement-state';
import type { Disbursement, DisbursementItem } from '../../domain/disbursements';
import { formatAmount, type Money } from '../../domain/money';

/** Spec "Disbursement (Surface A)" plus the documented extensions. Amounts are USDC decimal strings. */
export interface WireDisbursement {
  id: string;
  object: 'disbursement';
  name: string;
  status: DisbursementStatus;
  revision_id: string;
  summary: {
    item_count: number;
    ready: number;
    needs_review: number;
    total_source_amount: string;
    total_fees: string;
    by_type: Record<string, number>;
    warnings: { code: 'duplicate_recipient'; item_ids: string[] }[];
  };
  balance_check: { required: string; available: string; ok: boolean };
  approval: {
    required: number;
    received: number;
    revision_id: string | null;
    submitted_by: string | null;
    approved: boolean;
  };
  progress: { pending: number; processing: number; succeeded: number; failed: number; refunded: number } | null;
  rejection: { reason: string | null; rejected_at: string } | null;
  created_at: string;
  submitted_at: string | null;
  launched_at: string | null;
  completed_at: string | null;
}

/** An item on Surface A (documented extension: the spec does not show the item record). */
export interface WireDisbursementItem {
  id: string;
  object: 'disbursement_item';
  disbursement_id: string;
  seq: number;
  row_number: number | null;
  status: DisbursementItemStatus;
  channel: string | null;
  source_amount: string | null;
  source_currency: 'USDC';
  destination_amount: string | null;
  destination_currency: string | null;
  rate: string | null;
  fees: { provider: string; service: string; fx_spread: string; total: string; currency: 'USDC' } | null;
  debit_total: string | null;
  recipient_id: string | null;
  recipient: Record<string, unknown> | null;
  recipient_type: string | null;
  reference: string | null;
  memo: string | null;
  review_reasons: { code: string; message: string; param: string | null }[];
  payout_id: string | null;
  attempts: number;
  failure: { code: string; message: string } | null;
  provider_reference: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

const amount = (m: Money) => formatAmount(m.minor, m.currency);
const usdc = (minor: bigint) => formatAmount(minor, 'USDC');
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Surface A's disbursement. */
export function renderDisbursement(d: Disbursement): WireDisbursement {
  return {
    id: d.id,
    object: 'disbursement',
    name: d.name,
    status: d.status,
    revision_id: d.revisionId,
    summary: {
      item_count: d.summary.itemCount,
      ready: d.summary.ready,
      needs_review: d.summary.needsReview,
      total_source_amount: amount(d.summary.totalSourceAmount),
      total_fees: amount(d.summary.totalFees),
      by_type: { ...d.summary.byType },
      warnings: d.summary.duplicateRecipients.map((item_ids) => ({ code: 'duplicate_recipient' as const, item_ids })),
    },
    balance_check: { required: amount(d.balanceCheck.required), available: amount(d.balanceCheck.available), ok: d.balanceCheck.ok },
    approval: {
      required: d.approval.required,
      received: d.approval.received,
      revision_id: d.approval.revisionId,
      submitted_by: d.approval.submittedBy,
      approved: d.approval.approved,
    },
    progress: d.progress ? { ...d.progress } : null,
    rejection: d.rejection ? { reason: d.rejection.reason, rejected_at: d.rejection.rejectedAt.toISOString() } : null,
    created_at: d.createdAt.toISOString(),
    submitted_at: iso(d.submittedAt),
    launched_at: iso(d.launchedAt),
    completed_at: iso(d.completedAt),
  };
}

/** Surface A's disbursement item. */
export function renderDisbursementItem(i: DisbursementItem): WireDisbursementItem {
  return {
    id: i.id,
    object: 'disbursement_item',
    disbursement_id: i.disbursementId,
    seq: i.seq,
    row_number: i.rowNumber,
    status: i.status,
    channel: i.channel,
    source_amount: i.sourceAmount ? amount(i.sourceAmount) : i.givenSourceAmount,
    source_currency: 'USDC',
    destination_amount: i.destinationAmount ? amount(i.destinationAmount) : null,
    destination_currency: i.destinationCurrency,
    rate: i.rate,
    fees: i.fees
      ? { provider: usdc(i.fees.provider), service: usdc(i.fees.service), fx_spread: usdc(i.fees.fxSpread), total: usdc(i.fees.total), currency: 'USDC' }
      : null,
    debit_total: i.debitTotal ? amount(i.debitTotal) : null,
    recipient_id: i.recipientId,
    recipient: i.recipient,
    recipient_type: i.recipientType,
    reference: i.reference,
    memo: i.memo,
    review_reasons: i.reviewReasons,
    payout_id: i.payoutId,
    attempts: i.attempts,
    failure: i.failure,
    provider_reference: i.providerReference,
    delivered_at: iso(i.deliveredAt),
    created_at: i.createdAt.toISOString(),
    updated_at: i.updatedAt.toISOString(),
  };
}
