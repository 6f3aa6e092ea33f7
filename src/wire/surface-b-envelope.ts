/** Surface B's webhook and events-API envelope of a core event (spec "Envelope and events, Surface B"; docs/surface-b.md "Webhooks"). Pure. */
import { formatAmount, parseAmount, USDC } from '../domain/money';
import { surfaceBEventType, type SurfaceBEventType } from '../domain/surface-b';
import type { OutboxEvent } from '../domain/webhook-events';

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
  'deposit.received': 'received',
  'deposit.credited': 'credited',
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

/** The Surface B envelope of an outbox event, or null when Surface B does not receive it. */
export function surfaceBEnvelope(event: OutboxEvent): SurfaceBEnvelope | null {
  const type = surfaceBEventType(event.type, event.data);
  if (!type) return null;
  const d = event.data;
  if (type.startsWith('deposit.')) {
    const credited = str(d.credited_amount);
    return {
      id: event.id,
      type,
      createdAt: event.createdAt.toISOString(),
      data: {
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
      },
    };
  }
  const recipient = (d.recipient ?? {}) as Snapshot;
  const claim = (d.claim ?? {}) as Snapshot;
  return {
    id: event.id,
    type,
    createdAt: event.createdAt.toISOString(),
    data: {
      id: String(d.id),
      status: STATUS_OF[type],
      recipientPhone: recipient.type === 'phone' ? str(recipient.number) : null,
      amountUsd: str(d.source_amount),
      reference: str(d.reference),
      payoutMethod: str(claim.method),
      deliveredAt: str(d.delivered_at),
      recipientEmail: recipient.type === 'email' ? str(recipient.address) : null,
      ...(type.startsWith('disbursement.notification_') ? { notification: notificationOf(d.notification) } : {}),
    },
  };
}

function notificationOf(n: unknown): Snapshot | null {
  if (!n || typeof n !== 'object') return null;
  const x = n as Snapshot;
  return { channel: str(x.channel), destination: str(x.destination), status: str(x.status), deliveredAt: str(x.delivered_at), failureCode: str(x.failure_code), error: str(x.error) };
}
