/** Surface B's webhooks (spec "Events, Surface B"; docs/surface-b.md "Webhooks"): names, envelope, schedule. No I/O. */
import { validationError } from '../domain/errors';
import { formatAmount, parseAmount, USDC } from '../domain/money';
import { matchesEventPattern, type OutboxEvent, type WebhookRetrySchedule } from '../domain/webhook-events';

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
  'deposit.received',
  'deposit.credited',
] as const;
export type SurfaceBEventType = (typeof SURFACE_B_EVENT_TYPES)[number];
export const SURFACE_B_EVENT_WILDCARDS = ['*', 'disbursement.*', 'deposit.*'] as const;

/** Whether `pattern` is a Surface B event type or wildcard. */
export function isSurfaceBEventPattern(pattern: string): boolean {
  return (SURFACE_B_EVENT_TYPES as readonly string[]).includes(pattern) || (SURFACE_B_EVENT_WILDCARDS as readonly string[]).includes(pattern);
}

type Snapshot = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : null);

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
  { core: 'deposit.received', type: 'deposit.received', claimLinkOnly: false },
  { core: 'deposit.credited', type: 'deposit.credited', claimLinkOnly: false },
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
