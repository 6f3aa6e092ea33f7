/** The domain object recorded with an event (`events.data_format = 'domain'`; docs/webhooks.md "Event data"). */
import type { Deposit } from './deposits';
import type { PayoutNotification } from './notifications';
import type { Disbursement } from './disbursements';
import type { PaymentRequest } from './payment-links';
import type { Payout } from './payouts';

export type EventDataFormat = 'surface_a' | 'domain';

/**
 * A domain object an event is about, by kind. A payout's notification events
 * (`payout.notification_*`) carry the notification beside the payout.
 */
export type EventObject =
  | { object: 'payment_request'; value: PaymentRequest }
  | { object: 'deposit'; value: Deposit }
  | { object: 'payout'; value: Payout; notification?: PayoutNotification }
  | { object: 'disbursement'; value: Disbursement };

function encode(v: unknown): unknown {
  if (typeof v === 'bigint') return { $bigint: v.toString() };
  if (v instanceof Date) return { $date: v.toISOString() };
  if (Array.isArray(v)) return v.map(encode);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encode(x)]));
  return v;
}

function decode(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decode);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1 && keys[0] === '$bigint') return BigInt(String(o.$bigint));
    if (keys.length === 1 && keys[0] === '$date') return new Date(String(o.$date));
    return Object.fromEntries(keys.map((k) => [k, decode(o[k])]));
  }
  return v;
}

/** The JSON form stored in `events.data`: `{object, ...fields}`, bigints and Dates tagged. */
export function eventObjectData(o: EventObject): Record<string, unknown> {
  const out = { object: o.object, ...(encode(o.value) as Record<string, unknown>) };
  return o.object === 'payout' && o.notification ? { ...out, notification: encode(o.notification) } : out;
}

/** Throws Error on an unknown `object`. */
export function parseEventObject(data: Record<string, unknown>): EventObject {
  const { object, ...fields } = data;
  const value = decode(fields);
  if (object === 'payment_request') return { object, value: value as PaymentRequest };
  if (object === 'deposit') return { object, value: value as Deposit };
  if (object === 'payout') {
    const { notification, ...payout } = value as Payout & { notification?: PayoutNotification };
    return notification ? { object, value: payout, notification } : { object, value: payout };
  }
  if (object === 'disbursement') return { object, value: value as Disbursement };
  throw new Error(`unknown event object '${String(object)}'`);
}
