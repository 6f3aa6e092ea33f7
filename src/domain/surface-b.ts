/** Surface B's webhooks (spec "Events, Surface B"; docs/surface-b.md "Webhooks"): event names, subscription patterns, retry schedule, secrets. Pure; the envelope is src/wire/surface-b-envelope.ts. */
import { validationError } from './errors';
import { matchesEventPattern, type WebhookRetrySchedule } from './webhook-events';

/** Spec "Events, Surface B". */
export const SURFACE_B_EVENT_TYPES = [
  'disbursement.created',
  'disbursement.claimed',
  'disbursement.delivered',
  'disbursement.failed',
  'disbursement.expired',
  'disbursement.cancelled',
  'disbursement.notification_delivered',
  'disbursement.notification_failed',
  'disbursement.under_review',
  'disbursement.review_released',
  'deposit.received',
  'deposit.credited',
  'deposit.refunded',
  'deposit.disputed',
  'deposit.dispute_closed',
] as const;
export type SurfaceBEventType = (typeof SURFACE_B_EVENT_TYPES)[number];
export const SURFACE_B_EVENT_WILDCARDS = ['*', 'disbursement.*', 'deposit.*'] as const;

/** Whether `pattern` is a Surface B event type or wildcard. */
export function isSurfaceBEventPattern(pattern: string): boolean {
  return (SURFACE_B_EVENT_TYPES as readonly string[]).includes(pattern) || (SURFACE_B_EVENT_WILDCARDS as readonly string[]).includes(pattern);
}

type Snapshot = Record<string, unknown>;

/** One renaming rule (`claimExpired`: failure code must / must not be `claim_expired`); the events API's SQL uses the same rules. */
export interface SurfaceBEventRule {
  core: string;
  type: SurfaceBEventType;
  claimLinkOnly: boolean;
  claimExpired?: boolean;
}

/** First match wins. */
export const SURFACE_B_EVENT_RULES: readonly SurfaceBEventRule[] = [
  { core: 'payout.submitted', type: 'disbursement.created', claimLinkOnly: true },
  { core: 'payout.claim_started', type: 'disbursement.claimed', claimLinkOnly: false },
  { core: 'payout.succeeded', type: 'disbursement.delivered', claimLinkOnly: true },
  { core: 'payout.failed', type: 'disbursement.expired', claimLinkOnly: true, claimExpired: true },
  { core: 'payout.failed', type: 'disbursement.failed', claimLinkOnly: true, claimExpired: false },
  { core: 'payout.refunded', type: 'disbursement.failed', claimLinkOnly: true },
  { core: 'payout.canceled', type: 'disbursement.cancelled', claimLinkOnly: true },
  { core: 'payout.notification_delivered', type: 'disbursement.notification_delivered', claimLinkOnly: true },
  { core: 'payout.notification_failed', type: 'disbursement.notification_failed', claimLinkOnly: true },
  { core: 'payout.screening_review', type: 'disbursement.under_review', claimLinkOnly: true },
  { core: 'payout.screening_released', type: 'disbursement.review_released', claimLinkOnly: true },
  { core: 'deposit.received', type: 'deposit.received', claimLinkOnly: false },
  { core: 'deposit.credited', type: 'deposit.credited', claimLinkOnly: false },
  { core: 'deposit.refunded', type: 'deposit.refunded', claimLinkOnly: false },
  { core: 'deposit.disputed', type: 'deposit.disputed', claimLinkOnly: false },
  { core: 'deposit.dispute_closed', type: 'deposit.dispute_closed', claimLinkOnly: false },
];

function ruleMatches(rule: SurfaceBEventRule, coreType: string, data: Snapshot | null | undefined): boolean {
  if (rule.core !== coreType) return false;
  if (rule.claimLinkOnly && data?.channel !== 'claim_link') return false;
  if (rule.claimExpired !== undefined) {
    const failure = data?.failure as { code?: unknown } | null | undefined;
    if ((failure?.code === 'claim_expired') !== rule.claimExpired) return false;
  }
  return true;
}

/** The Surface B name of a core event, or null when Surface B does not receive it. */
export function surfaceBEventType(coreType: string, data: Snapshot | null | undefined): SurfaceBEventType | null {
  return SURFACE_B_EVENT_RULES.find((r) => ruleMatches(r, coreType, data))?.type ?? null;
}

export const surfaceBWants = (patterns: readonly string[], type: string) => patterns.some((p) => matchesEventPattern(p, type));

const MIN = 60_000;
/** Delays before attempts 2..5 (spec "Surface B delivery"): 5 min, 30 min, 2 h, 12 h. */
export const SURFACE_B_RETRY_DELAYS_MS: readonly number[] = [5 * MIN, 30 * MIN, 120 * MIN, 720 * MIN];
export const SURFACE_B_MAX_ATTEMPTS = SURFACE_B_RETRY_DELAYS_MS.length + 1;

/** Surface B's delivery schedule: five attempts at the fixed delays; 15 s per attempt. */
export function surfaceBRetrySchedule(): WebhookRetrySchedule {
  return {
    initialIntervalMs: SURFACE_B_RETRY_DELAYS_MS[0],
    backoffCoefficient: 6,
    maximumIntervalMs: SURFACE_B_RETRY_DELAYS_MS[SURFACE_B_RETRY_DELAYS_MS.length - 1],
    windowMs: 15 * 60 * MIN,
    attemptTimeoutMs: 15_000,
    maximumAttempts: SURFACE_B_MAX_ATTEMPTS,
    delaysMs: SURFACE_B_RETRY_DELAYS_MS,
  };
}

/** Delay after failed attempt `attempt` (1-based), null after the fifth (deliveries scheduled by RetryPolicy). */
export function surfaceBNextRetryDelayMs(attempt: number): number | null {
  return attempt >= 1 && attempt <= SURFACE_B_RETRY_DELAYS_MS.length ? SURFACE_B_RETRY_DELAYS_MS[attempt - 1] : null;
}

export const MIN_SURFACE_B_SECRET_LENGTH = 16;

export const MAX_SURFACE_B_SECRET_LENGTH = 256;

/** Checks a caller-chosen Surface B secret (16 to 256 characters); 400 validation_error, param `secret`. */
export function checkSurfaceBSecret(secret: string | undefined): string {
  if (secret === undefined || secret.length < MIN_SURFACE_B_SECRET_LENGTH || secret.length > MAX_SURFACE_B_SECRET_LENGTH) {
    throw validationError('secret', `secret must be ${MIN_SURFACE_B_SECRET_LENGTH} to ${MAX_SURFACE_B_SECRET_LENGTH} characters`);
  }
  return secret;
}
