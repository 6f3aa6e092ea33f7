/**
 * Webhook event types and subscription patterns (spec "Events"). Pure: the API, the dispatcher and
 * the delivery workflow import it.
 */

/**
 * Every event type a Surface A endpoint can subscribe to: the spec's table "Events, Surface A" plus
 * our extensions `payout.canceled` (a payout canceled before it started or before its claim),
 * `payment_request.expired` (a request reached `expires_at` unpaid; docs/getting-paid.md "Events")
 * `recipient.updated` (a saved recipient's bank details were corrected by the bank, an ACH
 * notification of change; docs/rails.md "ACH"), and `payout.notification_delivered` /
 * `payout.notification_failed` (a claim-link payout's recipient message was delivered, or finally
 * failed; docs/notifications.md "Events").
 */
export const SURFACE_A_EVENT_TYPES = [
  'payout.submitted',
  'payout.awaiting_claim',
  'payout.claimed',
  'payout.succeeded',
  'payout.failed',
  'payout.refunded',
  'payout.canceled',
  'payout.notification_delivered',
  'payout.notification_failed',
  'disbursement.awaiting_approval',
  'disbursement.launched',
  'disbursement.completed',
  'disbursement.completed_with_failures',
  'deposit.received',
  'payment_request.paid',
  'payment_request.expired',
  'recipient.updated',
] as const;

/**
 * Core event types whose Surface A name differs (docs/getting-paid.md "Events"). The core follows
 * a deposit's lifecycle with `deposit.received` (money reached the account, not yet credited) and
 * `deposit.credited` (the balance was credited). Surface A's `deposit.received` means "a deposit
 * credited the balance", so Surface A is sent the core's `deposit.credited` under the name
 * `deposit.received`, and never the core's `deposit.received`. Surface B keeps both names.
 */
const SURFACE_A_RENAMES: Readonly<Record<string, string | null>> = {
  'deposit.received': null,
  'deposit.credited': 'deposit.received',
};

/** The Surface A event type under which a core event is delivered, or null when Surface A does not receive it. */
export function surfaceAEventType(coreType: string): string | null {
  const type = Object.hasOwn(SURFACE_A_RENAMES, coreType) ? SURFACE_A_RENAMES[coreType] : coreType;
  return type !== null && (SURFACE_A_EVENT_TYPES as readonly string[]).includes(type) ? type : null;
}

/**
 * The core event types Surface A receives whose Surface A name matches `pattern` (every one when
 * `pattern` is undefined): the set `GET /events?type=` filters the outbox with (docs/webhooks.md).
 */
export function surfaceACoreTypes(pattern?: string): string[] {
  const candidates = [...new Set([...SURFACE_A_EVENT_TYPES, ...Object.keys(SURFACE_A_RENAMES)])];
  return candidates.filter((t) => {
    const name = surfaceAEventType(t);
    return name !== null && (pattern === undefined || matchesEventPattern(pattern, name));
  });
}

/** A Surface A event type, e.g. `payout.succeeded`. */
export type SurfaceAEventType = (typeof SURFACE_A_EVENT_TYPES)[number];

/**
 * Wildcards an endpoint may subscribe with (spec "Registration and delivery": a wildcard suffix such
 * as `payout.*`): one per resource family, or `*` for every event.
 */
export const SURFACE_A_EVENT_WILDCARDS = ['*', 'payout.*', 'disbursement.*', 'deposit.*', 'payment_request.*', 'recipient.*'] as const;

const KNOWN = new Set<string>(SURFACE_A_EVENT_TYPES);
const WILDCARDS = new Set<string>(SURFACE_A_EVENT_WILDCARDS);

/** Whether `pattern` is a known Surface A event type or one of {@link SURFACE_A_EVENT_WILDCARDS}. */
export function isValidEventPattern(pattern: string): boolean {
  return KNOWN.has(pattern) || WILDCARDS.has(pattern);
}

/**
 * Whether one subscription pattern covers an event type: `*` covers everything, `payout.*` covers
 * every `payout.<x>` (not `payout` itself, not `payouts.x`), anything else must be equal.
 */
export function matchesEventPattern(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) {
    const prefix = pattern.slice(0, -1); // keeps the dot: 'payout.'
    return type.startsWith(prefix) && type.length > prefix.length;
  }
  return pattern === type;
}

/** Whether any of an endpoint's subscription patterns covers `type`. */
export function endpointWantsEvent(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => matchesEventPattern(p, type));
}

/**
 * A webhook delivery's retry schedule, all in milliseconds. Carried in the delivery workflow's input
 * (workflows cannot read the environment); the workflow waits out each delay on the business's
 * clock (docs/webhooks.md "Retries"), so a sandbox test clock moves the schedule forward.
 */
export interface WebhookRetrySchedule {
  /** Delay before the second attempt. */
  initialIntervalMs: number;
  /** Each delay is the previous one times this. */
  backoffCoefficient: number;
  /** Cap of one delay. */
  maximumIntervalMs: number;
  /** Total time from the first attempt after which no attempt is made (the delivery is given up). */
  windowMs: number;
  /** Limit of one attempt (startToClose); the HTTP call itself times out earlier (10 s). */
  attemptTimeoutMs: number;
  /** At most this many attempts (Surface B: 5); unset = unlimited within the window (Surface A). */
  maximumAttempts?: number;
  /** Fixed delays after failed attempts 1..n (Surface B); when set, they replace the exponential shape. */
  delaysMs?: readonly number[];
}

/**
 * The delay before the attempt after failed attempt `attempt` (1-based), in ms, or null when no
 * attempt follows: `maximumAttempts` reached, or the fixed delays spent. Exponential schedules:
 * `initialIntervalMs * backoffCoefficient^(attempt-1)`, capped at `maximumIntervalMs`. The window
 * is the caller's to check (it depends on when the first attempt was made).
 */
export function webhookRetryDelayMs(schedule: WebhookRetrySchedule, attempt: number): number | null {
  if (!(attempt >= 1)) return null;
  if (schedule.maximumAttempts !== undefined && attempt >= schedule.maximumAttempts) return null;
  if (schedule.delaysMs) return attempt <= schedule.delaysMs.length ? schedule.delaysMs[attempt - 1] : null;
  return Math.min(schedule.maximumIntervalMs, Math.round(schedule.initialIntervalMs * schedule.backoffCoefficient ** (attempt - 1)));
}

/** Surface A's retry window: 24 hours (spec "Limits", Webhook retry window). */
export const SURFACE_A_RETRY_WINDOW_MS = 24 * 3600 * 1000;

/**
 * Surface A's schedule (spec "Registration and delivery": "retried with backoff for 24 hours"):
 * exponential backoff from `initialIntervalMs`, doubling, capped at 1 hour, attempts unlimited
 * within the 24-hour window, 15 s per attempt.
 */
export function surfaceARetrySchedule(initialIntervalMs: number): WebhookRetrySchedule {
  return {
    initialIntervalMs,
    backoffCoefficient: 2,
    maximumIntervalMs: 3600 * 1000,
    windowMs: SURFACE_A_RETRY_WINDOW_MS,
    attemptTimeoutMs: 15_000,
  };
}
