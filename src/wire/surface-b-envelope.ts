/** Surface B's webhook and events-API envelope of a core event (spec "Envelope and events, Surface B"; docs/surface-b.md "Webhooks"). Pure. */
import { formatAmount, parseAmount, USDC } from '../domain/money';
import { surfaceBEventType, type SurfaceBEventType } from '../domain/surface-b';
import type { Deposit } from '../domain/deposits';
import type { DepositDisputeFact, DepositRefundFact, EventObject } from '../domain/event-objects';
import type { PayoutNotification } from '../domain/notifications';
import type { Payout } from '../domain/payouts';
import type { OutboxEvent } from '../domain/webhook-events';
import { surfaceBSelectors } from './events';

type Snapshot = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : null);

const STATUS_OF: Record<SurfaceBEventType, string> = {
  'disbursement.created': 'pending',
  'disbursement.claimed': 'claimed',
  'disbursement.delivered': 'delivered',
  'disbursement.failed': 'failed',
  'disbursement.expired': 'expired',
  'disbursement.cancelled': 'cancelled',
  'disbursement.notification_delivered': 'pending',
  'disbursement.notification_failed': 'pending',
  'disbursement.under_review': 'claimed',
  'disbursement.review_released': 'claimed',
  'deposit.received': 'received',
  'deposit.credited': 'credited',
  'deposit.refunded': 'credited',
  'deposit.disputed': 'credited',
  'deposit.dispute_closed': 'credited',
};

/** Spec "Envelope and events, Surface B". */
export interface SurfaceBEnvelope {
  id: string;
  type: SurfaceBEventType;
  createdAt: string;
  data: {
    id: string;
    status: string;
    recipientPhone: string | null;
    amountUsd: string | null;
    reference: string | null;
    payoutMethod: string | null;
    deliveredAt: string | null;
  /** Extensions (docs/surface-b.md "Webhooks"). */
    [extra: string]: unknown;
  };
}

/** The Surface B envelope of an outbox event (from its domain object; a legacy row's from Surface A's object), or null. */
export function surfaceBEnvelope(event: OutboxEvent): SurfaceBEnvelope | null {
  const type = surfaceBEventType(event.type, surfaceBSelectors(event));
  if (!type) return null;
  const data = event.object ? dataOf(type, event.object) : legacyDataOf(type, event.data);
  return data && { id: event.id, type, createdAt: event.createdAt.toISOString(), data };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const detail = (p: Payout, type: string, key: string) => (p.recipient.type === type ? str(p.recipient.details[key]) : null);

function dataOf(type: SurfaceBEventType, o: EventObject): SurfaceBEnvelope['data'] | null {
  if (o.object === 'deposit') return { ...depositData(type, o.value), ...depositCardFacts(o) };
  if (o.object !== 'payout') return null;
  const p = o.value;
  return {
    id: p.id,
    status: STATUS_OF[type],
    recipientPhone: detail(p, 'phone', 'number'),
    amountUsd: formatAmount(p.source.minor, p.source.currency),
    reference: p.reference,
    payoutMethod: p.claim?.method ?? null,
    deliveredAt: iso(p.deliveredAt),
    recipientEmail: detail(p, 'email', 'address'),
    ...(type.startsWith('disbursement.notification_') ? { notification: o.notification ? notificationData(o.notification) : null } : {}),
  };
}

function depositData(type: SurfaceBEventType, d: Deposit): SurfaceBEnvelope['data'] {
  return {
    id: d.id,
    status: STATUS_OF[type],
    recipientPhone: null,
    amountUsd: formatAmount(d.credited.minor, USDC),
    reference: d.reference,
    payoutMethod: null,
    deliveredAt: null,
    currency: d.amount.currency,
    amount: formatAmount(d.amount.minor, d.amount.currency),
    source: d.source,
  };
}

/** `refund` / `dispute` of the card deposit events on Surface B (camelCase; `*Usd` in USD = USDC of the balance). */
function depositCardFacts(o: { refund?: DepositRefundFact; dispute?: DepositDisputeFact }): Snapshot {
  const out: Snapshot = {};
  if (o.refund) {
    const r = o.refund;
    out.refund = { id: r.id, status: r.status, amountUsd: formatAmount(r.amount, r.currency), debitedUsd: formatAmount(r.debited, USDC), createdAt: r.createdAt.toISOString() };
  }
  if (o.dispute) {
    const d = o.dispute;
    out.dispute = {
      id: d.id,
      status: d.status,
      reason: d.reason,
      amount: formatAmount(d.amount, d.currency),
      fee: formatAmount(d.fee, d.currency),
      currency: d.currency,
      withdrawnUsd: formatAmount(d.withdrawn, USDC),
      shortfallUsd: formatAmount(d.shortfall, USDC),
      reinstatedUsd: formatAmount(d.reinstated, USDC),
    };
  }
  return out;
}

function notificationData(n: PayoutNotification): Snapshot {
  return { channel: n.channel, destination: n.destination, status: n.status, deliveredAt: iso(n.deliveredAt), failureCode: n.failureCode, error: n.error };
}

function legacyDataOf(type: SurfaceBEventType, d: Snapshot): SurfaceBEnvelope['data'] {
  if (type.startsWith('deposit.')) {
    const credited = str(d.credited_amount);
    return {
      id: String(d.id),
      status: STATUS_OF[type],
      recipientPhone: null,
      amountUsd: credited ? formatAmount(parseAmount(credited, USDC, { allowZero: true }), USDC) : null,
      reference: str(d.reference),
      payoutMethod: null,
      deliveredAt: null,
      currency: str(d.currency),
      amount: str(d.amount),
      source: str(d.source),
    };
  }
  const recipient = (d.recipient ?? {}) as Snapshot;
  const claim = (d.claim ?? {}) as Snapshot;
  return {
    id: String(d.id),
    status: STATUS_OF[type],
    recipientPhone: recipient.type === 'phone' ? str(recipient.number) : null,
    amountUsd: str(d.source_amount),
    reference: str(d.reference),
    payoutMethod: str(claim.method),
    deliveredAt: str(d.delivered_at),
    recipientEmail: recipient.type === 'email' ? str(recipient.address) : null,
    ...(type.startsWith('disbursement.notification_') ? { notification: notificationOf(d.notification) } : {}),
  };
}

function notificationOf(n: unknown): Snapshot | null {
  if (!n || typeof n !== 'object') return null;
  const x = n as Snapshot;
  return { channel: str(x.channel), destination: str(x.destination), status: str(x.status), deliveredAt: str(x.delivered_at), failureCode: str(x.failure_code), error: str(x.error) };
}
