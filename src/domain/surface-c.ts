/**
 * Surface C's view of the core's payouts and events (docs/surface-c.md; spec "Events, Surface C"). Pure:
 * the webhook core (src/core/webhooks.ts) and the Surface C adapter (src/api/surface-c) import it.
 *
 * Payout status on Surface C (the spec shows none; chosen like Surface B's view of the same payout):
 * | Surface C   | core statuses                          | meaning                                   |
 * |-------------|----------------------------------------|-------------------------------------------|
 * | pending     | pending, submitted, awaiting_claim     | created; the recipient has not claimed    |
 * | processing  | claimed, delivering                    | claimed; being delivered                   |
 * | completed   | succeeded                              | delivered                                  |
 * | failed      | failed, refunded                       | not delivered, or returned: funds back     |
 * | canceled    | canceled                               | canceled before the claim; funds back      |
 *
 * Events (spec: payout.created, payout.notification_sent, payout.completed, payout.failed):
 * | Surface C event          | core event                          |
 * |--------------------------|-------------------------------------|
 * | payout.created           | payout.submitted                    |
 * | payout.notification_sent | payout.notification_sent            |
 * | payout.notification_delivered | payout.notification_delivered  |
 * | payout.notification_failed | payout.notification_failed        |
 * | payout.completed         | payout.succeeded                    |
 * | payout.failed            | payout.failed, payout.refunded      |
 */
import type { PayoutStatus } from './payout-state';
import { matchesEventPattern } from './webhook-events';

/** Surface C payout statuses. */
export const SURFACE_C_PAYOUT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'canceled'] as const;
/** One of {@link SURFACE_C_PAYOUT_STATUSES}. */
export type SurfaceCPayoutStatus = (typeof SURFACE_C_PAYOUT_STATUSES)[number];

const STATUS: Record<PayoutStatus, SurfaceCPayoutStatus> = {
  pending: 'pending',
  submitted: 'pending',
  awaiting_claim: 'pending',
  claimed: 'processing',
  delivering: 'processing',
  succeeded: 'completed',
  failed: 'failed',
  refunded: 'failed',
  canceled: 'canceled',
};

/** The Surface C status of a core payout status (unknown values pass through unchanged). */
export function surfaceCPayoutStatus(status: string): SurfaceCPayoutStatus {
  return STATUS[status as PayoutStatus] ?? (status as SurfaceCPayoutStatus);
}

/** The core payout statuses behind a Surface C status (for list filters). */
export function coreStatusesOf(status: SurfaceCPayoutStatus): PayoutStatus[] {
  return (Object.keys(STATUS) as PayoutStatus[]).filter((s) => STATUS[s] === status);
}

/** Surface C event types (spec "Events, Surface C"). */
export const SURFACE_C_EVENT_TYPES = [
  'payout.created',
  'payout.notification_sent',
  'payout.notification_delivered',
  'payout.notification_failed',
  'payout.completed',
  'payout.failed',
] as const;
/** One of {@link SURFACE_C_EVENT_TYPES}. */
export type SurfaceCEventType = (typeof SURFACE_C_EVENT_TYPES)[number];
/** Wildcards a Surface C endpoint may subscribe with. */
export const SURFACE_C_EVENT_WILDCARDS = ['*', 'payout.*'] as const;

const EVENTS: Record<string, SurfaceCEventType> = {
  'payout.submitted': 'payout.created',
  'payout.notification_sent': 'payout.notification_sent',
  'payout.notification_delivered': 'payout.notification_delivered',
  'payout.notification_failed': 'payout.notification_failed',
  'payout.succeeded': 'payout.completed',
  'payout.failed': 'payout.failed',
  'payout.refunded': 'payout.failed',
};

/** The Surface C name of a core event type, or null when Surface C endpoints do not receive it. */
export function surfaceCEventType(coreType: string): SurfaceCEventType | null {
  return Object.hasOwn(EVENTS, coreType) ? EVENTS[coreType] : null;
}

/**
 * The core event types Surface C receives whose Surface C name matches `pattern` (every one when
 * undefined): the set `GET /events?type=` on Surface C filters the outbox with (docs/webhooks.md).
 */
export function surfaceCCoreTypes(pattern?: string): string[] {
  return Object.keys(EVENTS).filter((t) => pattern === undefined || matchesEventPattern(pattern, EVENTS[t]));
}

/** Whether `pattern` is a Surface C event type or wildcard. */
export function isSurfaceCEventPattern(pattern: string): boolean {
  return (SURFACE_C_EVENT_TYPES as readonly string[]).includes(pattern) || (SURFACE_C_EVENT_WILDCARDS as readonly string[]).includes(pattern);
}

/** Surface C envelope (spec: `{type, data: {object: {id, status}}}` plus `id` and `created_at` for deduplication). */
export interface SurfaceCEnvelope {
  id: string;
  type: SurfaceCEventType;
  /** ISO 8601 UTC: when the event happened. */
  created_at: string;
  data: { object: { id: string; object: 'payout'; status: SurfaceCPayoutStatus } };
}

/**
 * The Surface C envelope of a core outbox event, or null when Surface C does not receive it. The
 * object is the payout's id and Surface C status (spec); `object: "payout"` names its kind.
 */
export function surfaceCEnvelope(event: { id: string; type: string; created_at: Date; data: Record<string, unknown> }): SurfaceCEnvelope | null {
  const type = surfaceCEventType(event.type);
  if (!type) return null;
  return {
    id: event.id,
    type,
    created_at: event.created_at.toISOString(),
    data: { object: { id: String(event.data.id), object: 'payout', status: surfaceCPayoutStatus(String(event.data.status)) } },
  };
}
