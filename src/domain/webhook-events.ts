/** Webhook event types and subscription patterns (spec "Events"). Pure. */
import type { EventObject } from './event-objects';

/** Surface A event types: the spec's table plus our extensions (docs/webhooks.md, docs/notifications.md "Events"). */
export const SURFACE_A_EVENT_TYPES = [
  'payout.submitted',
  'payout.awaiting_claim',
  'payout.claimed',
  'payout.succeeded',
  'payout.failed',
  'payout.refunded',
  'payout.canceled',
  'payout.payee_confirmation_required',
  'payout.notification_delivered',
  'payout.notification_failed',
  'payout.screening_review',
  'payout.screening_released',
  'disbursement.awaiting_approval',
  'disbursement.launched',
  'disbursement.completed',
  'disbursement.completed_with_failures',
  'deposit.received',
  'deposit.refunded',
  'deposit.disputed',
  'deposit.dispute_closed',
  'payment_request.paid',
  'payment_request.expired',
  'recipient.updated',
] as const;

/** Core types renamed for Surface A: it gets `deposit.credited` as `deposit.received`, never the core's `deposit.received`. */
const SURFACE_A_RENAMES: Readonly<Record<string, string | null>> = {
  'deposit.received': null,
  'deposit.credited': 'deposit.received',
};

/** Surface A type of a core event, or null when Surface A does not receive it. */
export function surfaceAEventType(coreType: string): string | null {
  const type = Object.hasOwn(SURFACE_A_RENAMES, coreType) ? SURFACE_A_RENAMES[coreType] : coreType;
  return type !== null && (SURFACE_A_EVENT_TYPES as readonly string[]).includes(type) ? type : null;
}

/** Core types whose Surface A name matches `pattern` (all when undefined): the `GET /events?type=` filter. */
export function surfaceACoreTypes(pattern?: string): string[] {
  const candidates = [...new Set([...SURFACE_A_EVENT_TYPES, ...Object.keys(SURFACE_A_RENAMES)])];
  return candidates.filter((t) => {
    const name = surfaceAEventType(t);
    return name !== null && (pattern === undefined || matchesEventPattern(pattern, name));
  });
}

export type SurfaceAEventType = (typeof SURFACE_A_EVENT_TYPES)[number];

export const SURFACE_A_EVENT_WILDCARDS = ['*', 'payout.*', 'disbursement.*', 'deposit.*', 'payment_request.*', 'recipient.*'] as const;

const KNOWN = new Set<string>(SURFACE_A_EVENT_TYPES);
const WILDCARDS = new Set<string>(SURFACE_A_EVENT_WILDCARDS);

export function isValidEventPattern(pattern: string): boolean {
  return KNOWN.has(pattern) || WILDCARDS.has(pattern);
}

/** `*` covers everything, `payout.*` every `payout.<x>`; anything else must be equal. */
export function matchesEventPattern(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) {
    const prefix = pattern.slice(0, -1); // keeps the dot: 'payout.'
    return type.startsWith(prefix) && type.length > prefix.length;
  }
  return pattern === type;
}

export function endpointWantsEvent(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => matchesEventPattern(p, type));
}

/** A delivery's retry schedule in ms, waited out on the business's clock (docs/webhooks.md "Retries"). */
export interface WebhookRetrySchedule {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  /** From the first attempt; after it the delivery is given up. */
  windowMs: number;
  attemptTimeoutMs: number;
  /** Unset = unlimited within the window (Surface A); Surface B: 5. */
  maximumAttempts?: number;
  /** Fixed delays after failed attempts 1..n (Surface B); replace the exponential shape. */
  delaysMs?: readonly number[];
}

/** Delay in ms after failed attempt `attempt` (1-based), or null when none follows; the window is the caller's to check. */
export function webhookRetryDelayMs(schedule: WebhookRetrySchedule, attempt: number): number | null {
  if (!(attempt >= 1)) return null;
  if (schedule.maximumAttempts !== undefined && attempt >= schedule.maximumAttempts) return null;
  if (schedule.delaysMs) return attempt <= schedule.delaysMs.length ? schedule.delaysMs[attempt - 1] : null;
  return Math.min(schedule.maximumIntervalMs, Math.round(schedule.initialIntervalMs * schedule.backoffCoefficient ** (attempt - 1)));
}

/** 24 hours (spec "Limits"). */
export const SURFACE_A_RETRY_WINDOW_MS = 24 * 3600 * 1000;

/** Surface A's schedule: doubling from `initialIntervalMs`, capped at 1 hour, unlimited attempts within 24 hours. */
export function surfaceARetrySchedule(initialIntervalMs: number): WebhookRetrySchedule {
  return {
    initialIntervalMs,
    backoffCoefficient: 2,
    maximumIntervalMs: 3600 * 1000,
    windowMs: SURFACE_A_RETRY_WINDOW_MS,
    attemptTimeoutMs: 15_000,
  };
}

/** An outbox event for the envelopes: `object` the domain object (null: a legacy row), `data` Surface A's object (docs/webhooks.md "Event data"). */
export interface OutboxEvent {
  id: string;
  /** The core event type (`payout.succeeded`); Surface A's name where it differs. */
  type: string;
  createdAt: Date;
  object: EventObject | null;
  data: Record<string, unknown>;
}
