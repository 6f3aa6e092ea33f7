/**
 * The object recorded with an event (docs/webhooks.md "Event data"). The core records the domain
 * object in a JSON form (`events.data_format = 'domain'`): its fields as they are, `object` naming
 * its kind, a bigint (minor units) as `{"$bigint": "<digits>"}` and a Date as `{"$date": "<ISO
 * 8601>"}`; each surface renders its payload from it when the event is delivered or listed. Rows
 * written before migration 0066 hold Surface A's rendering (`data_format = 'surface_a'`).
 */
import type { Deposit } from './deposits';
import type { Disbursement } from './disbursements';
import type { PaymentRequest } from './payment-links';

/** How `events.data` is stored. */
export type EventDataFormat = 'surface_a' | 'domain';

/** A domain object an event is about, by kind. */
export type EventObject =
  | { object: 'payment_request'; value: PaymentRequest }
  | { object: 'deposit'; value: Deposit }
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

/** The JSON form of `o` stored in `events.data`: `{object, ...fields}`. */
export function eventObjectData(o: EventObject): Record<string, unknown> {
  return { object: o.object, ...(encode(o.value) as Record<string, unknown>) };
}

/** The domain object of a stored `domain` event; throws Error on an unknown `object`. */
export function parseEventObject(data: Record<string, unknown>): EventObject {
  const { object, ...fields } = data;
  const value = decode(fields);
  if (object === 'payment_request') return { object, value: value as PaymentRequest };
  if (object === 'deposit') return { object, value: value as Deposit };
  if (object === 'disbursement') return { object, value: value as Disbursement };
  throw new Error(`unknown event object '${String(object)}'`);
}
