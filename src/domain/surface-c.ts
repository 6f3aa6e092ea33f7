/** Surface C's view of core payouts and events (docs/states.md "Surface C payout", spec "Events, Surface C"). Pure. */
import type { PayoutStatus } from './payout-state';
import { matchesEventPattern } from './webhook-events';

export const SURFACE_C_PAYOUT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'canceled'] as const;
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

/** Unknown values pass through unchanged. */
export function surfaceCPayoutStatus(status: string): SurfaceCPayoutStatus {
  return STATUS[status as PayoutStatus] ?? (status as SurfaceCPayoutStatus);
}

export function coreStatusesOf(status: SurfaceCPayoutStatus): PayoutStatus[] {
  return (Object.keys(STATUS) as PayoutStatus[]).filter((s) => STATUS[s] === status);
}

export const SURFACE_C_EVENT_TYPES = [
  'payout.created',
  'payout.notification_sent',
  'payout.notification_delivered',
  'payout.notification_failed',
  'payout.completed',
  'payout.failed',
  'payout.screening_review',
  'payout.screening_released',
] as const;
export type SurfaceCEventType = (typeof SURFACE_C_EVENT_TYPES)[number];
export const SURFACE_C_EVENT_WILDCARDS = ['*', 'payout.*'] as const;

const EVENTS: Record<string, SurfaceCEventType> = {
  'payout.submitted': 'payout.created',
  'payout.notification_sent': 'payout.notification_sent',
  'payout.notification_delivered': 'payout.notification_delivered',
  'payout.notification_failed': 'payout.notification_failed',
  'payout.succeeded': 'payout.completed',
  'payout.failed': 'payout.failed',
  'payout.refunded': 'payout.failed',
  'payout.screening_review': 'payout.screening_review',
  'payout.screening_released': 'payout.screening_released',
};

/** Surface C name of a core event type, or null when Surface C does not receive it. */
export function surfaceCEventType(coreType: string): SurfaceCEventType | null {
  return Object.hasOwn(EVENTS, coreType) ? EVENTS[coreType] : null;
}

/** Core types whose Surface C name matches `pattern` (all when undefined): the `GET /events?type=` filter. */
export function surfaceCCoreTypes(pattern?: string): string[] {
  return Object.keys(EVENTS).filter((t) => pattern === undefined || matchesEventPattern(pattern, EVENTS[t]));
}

export function isSurfaceCEventPattern(pattern: string): boolean {
  return (SURFACE_C_EVENT_TYPES as readonly string[]).includes(pattern) || (SURFACE_C_EVENT_WILDCARDS as readonly string[]).includes(pattern);
}
