/** The inverse of Surface A's rendering of an event's object, for migration 0070 (docs/webhooks.md "Event data"). Pure. */
import type { Deposit } from '../../domain/deposits';
import type { Disbursement } from '../../domain/disbursements';
import type { EventObject, RecipientEventValue } from '../../domain/event-objects';
import { exponent, type Money, USDC } from '../../domain/money';
import type { PayoutNotification } from '../../domain/notifications';
import type { PaymentRequest } from '../../domain/payment-links';
import type { Payout, PayoutAttempt } from '../../domain/payouts';

type Obj = Record<string, unknown>;

class NotInvertible extends Error {}

const fail = (what: string): never => {
  throw new NotInvertible(what);
};
const obj = (v: unknown, what: string): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : fail(what));
const text = (v: unknown, what: string): string => (typeof v === 'string' ? v : fail(what));
const textOrNull = (v: unknown, what: string): string | null => (v === null || v === undefined ? null : text(v, what));
const int = (v: unknown, what: string): number => (typeof v === 'number' && Number.isInteger(v) ? v : fail(what));
const bool = (v: unknown, what: string): boolean => (typeof v === 'boolean' ? v : fail(what));
const date = (v: unknown, what: string): Date => {
  const d = new Date(text(v, what));
  return Number.isNaN(d.getTime()) ? fail(what) : d;
};
const dateOrNull = (v: unknown, what: string): Date | null => (v === null || v === undefined ? null : date(v, what));

/** Minor units of `currency` of a decimal string Surface A rendered (`formatAmount`); more decimals than the exponent fail. */
export function minorUnits(value: unknown, currency: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text(value, 'amount'));
  const exp = exponent(currency);
  if (!m || (m[3] ?? '').length > exp) return fail(`amount ${String(value)} in ${currency}`);
  const minor = BigInt(m[2] + (m[3] ?? '').padEnd(exp, '0'));
  return m[1] ? -minor : minor;
}
const money = (value: unknown, currency: string): Money => ({ minor: minorUnits(value, currency), currency });

function payout(s: Obj): Payout {
  const { type, ...details } = obj(s.recipient, 'recipient');
  const fees = obj(s.fees, 'fees');
  const source = text(s.source_currency, 'source_currency');
  const destination = text(s.destination_currency, 'destination_currency');
  const failure = s.failure === null ? null : obj(s.failure, 'failure');
  const claim = s.claim === null ? null : obj(s.claim, 'claim');
  const rate = s.rate_details === undefined ? null : obj(s.rate_details, 'rate_details');
  const p: Payout = {
    id: text(s.id, 'id'),
    status: text(s.status, 'status') as Payout['status'],
    channel: text(s.channel, 'channel'),
    recipientId: textOrNull(s.recipient_id, 'recipient_id'),
    recipient: { type: text(type, 'recipient.type'), details },
    source: money(s.source_amount, source),
    destination: money(s.destination_amount, destination),
    rate: text(s.rate, 'rate'),
    fees: { provider: minorUnits(fees.provider, USDC), service: minorUnits(fees.service, USDC), fxSpread: minorUnits(fees.fx_spread, USDC), total: minorUnits(fees.total, USDC) },
    rateDetails: rate && rateDetails(rate),
    reference: textOrNull(s.reference, 'reference'),
    memo: textOrNull(s.memo, 'memo'),
    message: textOrNull(s.message, 'message'),
    quoteId: textOrNull(s.quote_id, 'quote_id'),
    estimatedArrival: dateOrNull(s.estimated_arrival, 'estimated_arrival'),
    deliveredAt: dateOrNull(s.delivered_at, 'delivered_at'),
    providerReference: textOrNull(s.provider_reference, 'provider_reference'),
    failure: failure && {
      code: text(failure.code, 'failure.code') as NonNullable<Payout['failure']>['code'],
      message: text(failure.message, 'failure.message'),
      retryable: failure.retryable === undefined ? null : bool(failure.retryable, 'failure.retryable'),
      railReasonCode: textOrNull(failure.rail_reason_code, 'failure.rail_reason_code'),
    },
    attempts: int(s.attempts, 'attempts'),
    claim: claim && {
      url: textOrNull(claim.url, 'claim.url'),
      expiresAt: dateOrNull(claim.expires_at, 'claim.expires_at'),
      claimedAt: dateOrNull(claim.claimed_at, 'claim.claimed_at'),
      method: textOrNull(claim.method, 'claim.method'),
    },
    disbursementId: textOrNull(s.disbursement_id, 'disbursement_id'),
    createdAt: date(s.created_at, 'created_at'),
    updatedAt: date(s.updated_at, 'updated_at'),
  };
  if (s.attempt_history !== undefined) {
    const history = Array.isArray(s.attempt_history) ? s.attempt_history : fail('attempt_history');
    p.attemptHistory = history.map((x): PayoutAttempt => {
      const a = obj(x, 'attempt');
      return {
        number: int(a.number, 'attempt.number'),
        status: text(a.status, 'attempt.status') as PayoutAttempt['status'],
        startedAt: date(a.started_at, 'attempt.started_at'),
        completedAt: dateOrNull(a.completed_at, 'attempt.completed_at'),
        providerReference: textOrNull(a.provider_reference, 'attempt.provider_reference'),
        error: a.error === null ? null : (a.error as PayoutAttempt['error']),
      };
    });
  }
  return p;
}

function rateDetails(r: Obj): NonNullable<Payout['rateDetails']> {
  return { referenceRate: text(r.reference_rate, 'reference_rate'), source: text(r.source, 'rate source'), asOf: date(r.as_of, 'as_of'), spreadBps: int(r.spread_bps, 'spread_bps') };
}

function notification(n: Obj): PayoutNotification {
  return {
    channel: text(n.channel, 'notification.channel') as PayoutNotification['channel'],
    destination: text(n.destination, 'notification.destination'),
    language: text(n.language, 'notification.language') as PayoutNotification['language'],
    status: text(n.status, 'notification.status') as PayoutNotification['status'],
    sentAt: dateOrNull(n.sent_at, 'notification.sent_at'),
    deliveredAt: dateOrNull(n.delivered_at, 'notification.delivered_at'),
    error: textOrNull(n.error, 'notification.error'),
    failureCode: textOrNull(n.failure_code, 'notification.failure_code'),
  };
}

function deposit(s: Obj): Deposit {
  const currency = text(s.currency, 'currency');
  const fees = obj(s.fees, 'fees');
  return {
    id: text(s.id, 'id'),
    source: text(s.source, 'source') as Deposit['source'],
    status: text(s.status, 'status') as Deposit['status'],
    virtualAccountId: textOrNull(s.virtual_account_id, 'virtual_account_id'),
    amount: money(s.amount, currency),
    rate: text(s.rate, 'rate'),
    converted: money(s.converted_amount, USDC),
    fees: { fxSpread: minorUnits(fees.fx_spread, USDC), processing: minorUnits(fees.processing, USDC), total: minorUnits(fees.total, USDC) },
    credited: money(s.credited_amount, USDC),
    rateDetails: s.rate_details === undefined ? null : rateDetails(obj(s.rate_details, 'rate_details')),
    reference: textOrNull(s.reference, 'reference'),
    senderName: textOrNull(s.sender_name, 'sender_name'),
    externalId: text(s.external_id, 'external_id'),
    paymentRequestId: textOrNull(s.payment_request_id, 'payment_request_id'),
    match: (s.match ?? null) as Deposit['match'],
    receivedAt: date(s.received_at, 'received_at'),
    creditedAt: dateOrNull(s.credited_at, 'credited_at'),
    createdAt: date(s.created_at, 'created_at'),
  };
}

function disbursement(s: Obj): Disbursement {
  const summary = obj(s.summary, 'summary');
  const check = obj(s.balance_check, 'balance_check');
  const approval = obj(s.approval, 'approval');
  const warnings = Array.isArray(summary.warnings) ? summary.warnings.map((w) => obj(w, 'warning')) : fail('summary.warnings');
  const rejection = s.rejection === null ? null : obj(s.rejection, 'rejection');
  return {
    id: text(s.id, 'id'),
    name: text(s.name, 'name'),
    status: text(s.status, 'status') as Disbursement['status'],
    revisionId: text(s.revision_id, 'revision_id'),
    summary: {
      itemCount: int(summary.item_count, 'item_count'),
      ready: int(summary.ready, 'ready'),
      needsReview: int(summary.needs_review, 'needs_review'),
      totalSourceAmount: money(summary.total_source_amount, USDC),
      totalFees: money(summary.total_fees, USDC),
      byType: { ...obj(summary.by_type, 'by_type') } as Record<string, number>,
      duplicateRecipients: warnings.map((w) => (w.code === 'duplicate_recipient' && Array.isArray(w.item_ids) ? (w.item_ids as string[]) : fail('warning'))),
    },
    balanceCheck: { required: money(check.required, USDC), available: money(check.available, USDC), ok: bool(check.ok, 'ok') },
    approval: {
      required: int(approval.required, 'approval.required'),
      received: int(approval.received, 'approval.received'),
      revisionId: textOrNull(approval.revision_id, 'approval.revision_id'),
      submittedBy: textOrNull(approval.submitted_by, 'approval.submitted_by'),
      approved: bool(approval.approved, 'approval.approved'),
    },
    progress: s.progress === null ? null : ({ ...obj(s.progress, 'progress') } as NonNullable<Disbursement['progress']>),
    rejection: rejection && { reason: textOrNull(rejection.reason, 'rejection.reason'), rejectedAt: date(rejection.rejected_at, 'rejected_at') },
    createdAt: date(s.created_at, 'created_at'),
    submittedAt: dateOrNull(s.submitted_at, 'submitted_at'),
    launchedAt: dateOrNull(s.launched_at, 'launched_at'),
    completedAt: dateOrNull(s.completed_at, 'completed_at'),
  };
}

function paymentRequest(s: Obj): PaymentRequest {
  return {
    id: text(s.id, 'id'),
    paymentLinkId: text(s.payment_link_id, 'payment_link_id'),
    url: text(s.url, 'url'),
    amount: money(s.amount, text(s.currency, 'currency')),
    reference: text(s.reference, 'reference'),
    status: text(s.status, 'status') as PaymentRequest['status'],
    expiresAt: date(s.expires_at, 'expires_at'),
    paidAt: dateOrNull(s.paid_at, 'paid_at'),
    depositId: textOrNull(s.deposit_id, 'deposit_id'),
    createdAt: date(s.created_at, 'created_at'),
  };
}

function recipient(s: Obj): RecipientEventValue {
  const type = text(s.type, 'type');
  const correction = obj(s.correction, 'correction');
  const missing = Array.isArray(s.missing_fields) ? (s.missing_fields as string[]) : fail('missing_fields');
  const channels = Array.isArray(s.channels) ? (s.channels as string[]) : fail('channels');
  return {
    id: text(s.id, 'id'),
    type,
    country: textOrNull(s.country, 'country'),
    currency: textOrNull(s.currency, 'currency'),
    name: textOrNull(s.name, 'name'),
    kind: textOrNull(s.kind, 'kind'),
    externalId: textOrNull(s.external_id, 'external_id'),
    details: { ...obj(s[type], type) },
    status: text(s.status, 'status'),
    missingFields: missing,
    channels,
    createdAt: date(s.created_at, 'created_at'),
    updatedAt: date(s.updated_at, 'updated_at'),
    correction: {
      source: text(correction.source, 'correction.source') as RecipientEventValue['correction']['source'],
      changeCode: text(correction.change_code, 'correction.change_code'),
      payoutId: text(correction.payout_id, 'correction.payout_id'),
    },
  };
}

/**
 * The domain object Surface A's object `snapshot` was rendered from, or null unless `render` (Surface A's, keys
 * in jsonb order: src/wire/events.ts `surfaceAObject`) gives it back byte for byte; absent keys read as null.
 */
export function invertSurfaceAObject(snapshot: Obj, render: (o: EventObject) => Obj): EventObject | null {
  let o: EventObject;
  try {
    o = inverse(snapshot);
  } catch (err) {
    if (err instanceof NotInvertible) return null;
    throw err;
  }
  return JSON.stringify(render(o)) === JSON.stringify(snapshot) ? o : null;
}

function inverse(s: Obj): EventObject {
  switch (s.object) {
    case 'payout': {
      const { notification: n, ...rest } = s;
      const value = payout(rest);
      return n === undefined ? { object: 'payout', value } : { object: 'payout', value, notification: notification(obj(n, 'notification')) };
    }
    case 'deposit':
      return { object: 'deposit', value: deposit(s) };
    case 'disbursement':
      return { object: 'disbursement', value: disbursement(s) };
    case 'payment_request':
      return { object: 'payment_request', value: paymentRequest(s) };
    case 'recipient':
      return { object: 'recipient', value: recipient(s) };
    default:
      return fail(`object ${String(s.object)}`);
  }
}
