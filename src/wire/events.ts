/**
 * An event's object as Surface A renders it, from either stored form, keys in jsonb order so the
 * bytes do not depend on the form (docs/webhooks.md "Event data"); every envelope is built from it.
 */
import { type EventDataFormat, type EventObject, parseEventObject, type RecipientEventValue } from '../domain/event-objects';
import type { OutboxEvent } from '../domain/webhook-events';
import { renderDeposit, renderDepositCardFacts } from './surface-a/deposits';
import { renderPayoutNotification } from './surface-a/notifications';
import { renderDisbursement } from './surface-a/disbursements';
import { renderPaymentRequest } from './surface-a/payment-links';
import { renderPayout } from './surface-a/payouts';
import { renderRecipientObject } from './surface-a/recipients';

const utf8 = new TextEncoder();

function compareJsonbKeys(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  if (x.length !== y.length) return x.length - y.length;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}

/** `v` with every object's keys in jsonb order (arrays keep their order). */
export function jsonbOrder(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(jsonbOrder);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .sort(compareJsonbKeys)
        .map((k) => [k, jsonbOrder(o[k])]),
    );
  }
  return v;
}

/** The Surface A snapshot of an event's stored `data` (Surface A's object, as its events carry it). */
export function surfaceASnapshot(format: EventDataFormat | string, data: Record<string, unknown>): Record<string, unknown> {
  if (format !== 'domain') return data;
  return surfaceAObject(parseEventObject(data));
}

/** Surface A's object of a domain event object, keys in jsonb order. */
export function surfaceAObject(o: EventObject): Record<string, unknown> {
  return jsonbOrder(render(o)) as Record<string, unknown>;
}

/** A stored `events` row as the envelopes take it: the domain object (null for a legacy row) and Surface A's object. */
export function readStoredEvent(row: { id: string; type: string; createdAt: Date; format: EventDataFormat | string; data: Record<string, unknown> }): OutboxEvent {
  const object = row.format === 'domain' ? parseEventObject(row.data) : null;
  return { id: row.id, type: row.type, createdAt: row.createdAt, object, data: object ? surfaceAObject(object) : row.data };
}

/** What Surface B's event rules read (`channel`, `failure.code`), from the domain object or a legacy row's data. */
export function surfaceBSelectors(e: Pick<OutboxEvent, 'object' | 'data'>): Record<string, unknown> {
  const o = e.object;
  if (!o) return e.data;
  if (o.object !== 'payout') return {};
  return { channel: o.value.channel, failure: o.value.failure ? { code: o.value.failure.code } : null };
}

function render(o: EventObject): object {
  switch (o.object) {
    case 'deposit':
      return o.refund || o.dispute ? { ...renderDeposit(o.value), ...renderDepositCardFacts(o) } : renderDeposit(o.value);
    case 'payment_request':
      return renderPaymentRequest(o.value);
    case 'disbursement':
      return renderDisbursement(o.value);
    case 'recipient':
      return renderRecipientEvent(o.value);
    case 'payout':
      return o.notification ? { ...renderPayout(o.value), notification: renderPayoutNotification(o.notification) } : renderPayout(o.value);
  }
}

function renderRecipientEvent(r: RecipientEventValue): object {
  const { source, changeCode, payoutId } = r.correction;
  return { ...renderRecipientObject(r), correction: { source, change_code: changeCode, payout_id: payoutId } };
}
