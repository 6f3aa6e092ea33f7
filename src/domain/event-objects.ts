/** The domain object recorded with an event (`events.data_format = 'domain'`; docs/webhooks.md "Event data"). */
import type { Deposit } from './deposits';
import type { PayoutNotification } from './notifications';
import type { Disbursement } from './disbursements';
import type { PaymentRequest } from './payment-links';
import type { Payout } from './payouts';

export type EventDataFormat = 'surface_a' | 'domain';

/** `v` of every stored event object; the rule for raising it: docs/webhooks.md "Event data". */
export const EVENT_OBJECT_VERSION = 1;

/** The recipient `recipient.updated` records: details masked, with the bank's correction. */
export interface RecipientEventValue {
  id: string;
  type: string;
  country: string | null;
  currency: string | null;
  name: string | null;
  kind: string | null;
  externalId: string | null;
  details: Record<string, unknown>;
  status: string;
  missingFields: string[];
  channels: string[];
  createdAt: Date;
  updatedAt: Date;
  correction: { source: 'notification_of_change'; changeCode: string; payoutId: string };
}

/** A card refund of a deposit's top-up, as `deposit.refunded` records it (docs/getting-paid.md "Refunds"). */
export interface DepositRefundFact {
  id: string;
  status: 'pending' | 'succeeded' | 'failed';
  /** Returned to the card, minor units of `currency`. */
  amount: bigint;
  currency: string;
  /** Debited from the balance, micro-USDC. */
  debited: bigint;
  createdAt: Date;
}

/** A card dispute of a deposit's payment, as `deposit.disputed` / `deposit.dispute_closed` record it (docs/getting-paid.md "Disputes"). */
export interface DepositDisputeFact {
  id: string;
  /** The processor's status (`needs_response`, `under_review`, `won`, `lost`, ...). */
  status: string;
  reason: string | null;
  /** Disputed amount and dispute fee, minor units of `currency`. */
  amount: bigint;
  fee: bigint;
  currency: string;
  /** Micro-USDC taken from the balance (available and reserve) so far, and the part not covered. */
  withdrawn: bigint;
  shortfall: bigint;
  /** Micro-USDC given back (a won dispute). */
  reinstated: bigint;
}

/** The domain object an event is about, by kind; `payout.notification_*` add the notification, the card deposit events a refund or a dispute. */
export type EventObject =
  | { object: 'payment_request'; value: PaymentRequest }
  | { object: 'deposit'; value: Deposit; refund?: DepositRefundFact; dispute?: DepositDisputeFact }
  | { object: 'payout'; value: Payout; notification?: PayoutNotification }
  | { object: 'disbursement'; value: Disbursement }
  | { object: 'recipient'; value: RecipientEventValue };

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

/** The JSON form stored in `events.data`: `{v, object, ...fields}` (v = {@link EVENT_OBJECT_VERSION}), bigints and Dates tagged. */
export function eventObjectData(o: EventObject): Record<string, unknown> {
  const out = { v: EVENT_OBJECT_VERSION, object: o.object, ...(encode(o.value) as Record<string, unknown>) };
  if (o.object === 'deposit') return { ...out, ...(o.refund ? { refund: encode(o.refund) } : {}), ...(o.dispute ? { dispute: encode(o.dispute) } : {}) };
  return o.object === 'payout' && o.notification ? { ...out, notification: encode(o.notification) } : out;
}

/** The object stored by {@link eventObjectData}; throws Error on an unknown `object` or a version other than {@link EVENT_OBJECT_VERSION}. */
export function parseEventObject(data: Record<string, unknown>): EventObject {
  const { v = 1, object, ...fields } = data;
  if (v !== EVENT_OBJECT_VERSION) throw new Error(`event object version ${String(v)} is not ${EVENT_OBJECT_VERSION}`);
  const value = decode(fields);
  if (object === 'payment_request') return { object, value: value as PaymentRequest };
  if (object === 'deposit') {
    const { refund, dispute, ...deposit } = value as Deposit & { refund?: DepositRefundFact; dispute?: DepositDisputeFact };
    return { object, value: deposit, ...(refund ? { refund } : {}), ...(dispute ? { dispute } : {}) };
  }
  if (object === 'payout') {
    const { notification, ...payout } = value as Payout & { notification?: PayoutNotification };
    return notification ? { object, value: payout, notification } : { object, value: payout };
  }
  if (object === 'disbursement') return { object, value: value as Disbursement };
  if (object === 'recipient') return { object, value: value as RecipientEventValue };
  throw new Error(`unknown event object '${String(object)}'`);
}
