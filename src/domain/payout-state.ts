/**
 * The payout state machine (spec "States and transitions", Payout status; README "Payout states").
 * Pure: the workflow and the activities consult it; an illegal move is a bug, refused loudly.
 *
 * | from           | to             | trigger                                              | money            | event                 |
 * |----------------|----------------|------------------------------------------------------|------------------|-----------------------|
 * | (none)         | submitted      | POST /payouts accepted                               | hold             | payout.submitted      |
 * | (none)         | pending        | created inside a disbursement launch, not yet started| (batch hold)     | -                     |
 * | pending        | submitted      | its turn in the batch                                | -                | payout.submitted      |
 * | pending        | canceled       | batch canceled before the item started               | release          | payout.canceled       |
 * | submitted      | delivering     | handed to the rail (first attempt)                   | -                | -                     |
 * | submitted      | awaiting_claim | claim link sent (claim_link channel)                 | -                | payout.awaiting_claim |
 * | awaiting_claim | claimed        | recipient claimed and chose a method                 | -                | payout.claimed        |
 * | awaiting_claim | failed         | 30 days without a claim (claim_expired)              | release          | payout.failed         |
 * | awaiting_claim | canceled       | canceled before claim                                | release          | payout.canceled       |
 * | claimed        | delivering     | delivery to the chosen method starts                 | -                | -                     |
 * | delivering     | succeeded      | rail confirmed delivery                              | settle           | payout.succeeded      |
 * | delivering     | failed         | final rail failure (after retries for retryable ones)| release          | payout.failed         |
 * | succeeded      | refunded       | provider returned the funds (refunded_by_provider)   | refund           | payout.refunded       |
 *
 * Terminal: failed, refunded, canceled.
 */
export const PAYOUT_STATUSES = [
  'pending',
  'submitted',
  'delivering',
  'awaiting_claim',
  'claimed',
  'succeeded',
  'failed',
  'refunded',
  'canceled',
] as const;

/** Spec PayoutStatus. */
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** Allowed next states of each state. */
export const PAYOUT_TRANSITIONS: Readonly<Record<PayoutStatus, readonly PayoutStatus[]>> = {
  pending: ['submitted', 'canceled'],
  submitted: ['delivering', 'awaiting_claim', 'failed'],
  delivering: ['succeeded', 'failed'],
  awaiting_claim: ['claimed', 'failed', 'canceled'],
  claimed: ['delivering', 'failed'],
  succeeded: ['refunded'],
  failed: [],
  refunded: [],
  canceled: [],
};

/** States no transition leaves. */
export const TERMINAL_PAYOUT_STATUSES: readonly PayoutStatus[] = ['failed', 'refunded', 'canceled'];

/** Whether `from -> to` is a legal payout transition. */
export function canTransition(from: PayoutStatus, to: PayoutStatus): boolean {
  return PAYOUT_TRANSITIONS[from].includes(to);
}

/**
 * Whether a payout in `current` has already passed through `target`: `current` is reachable from
 * `target` by one or more moves of {@link PAYOUT_TRANSITIONS} (a DAG, so a legal move from
 * `current` to `target` and this never both hold). Used to recognise a replayed transition: a
 * workflow task that was lost after its local activities committed runs them again.
 */
export function hasPassed(current: PayoutStatus, target: PayoutStatus): boolean {
  const seen = new Set<PayoutStatus>();
  const queue: PayoutStatus[] = [...PAYOUT_TRANSITIONS[target]];
  while (queue.length) {
    const s = queue.shift() as PayoutStatus;
    if (s === current) return true;
    if (seen.has(s)) continue;
    seen.add(s);
    queue.push(...PAYOUT_TRANSITIONS[s]);
  }
  return false;
}

/** Spec payout failure codes (field failure.code). */
export const PAYOUT_FAILURE_CODES = [
  'invalid_destination',
  'recipient_rejected_by_provider',
  'limit_exceeded',
  'provider_timeout',
  'provider_declined',
  'refunded_by_provider',
  'claim_expired',
] as const;
export type PayoutFailureCode = (typeof PAYOUT_FAILURE_CODES)[number];

/** Failure codes worth another attempt (the rail may succeed later); the rest are final. */
export const RETRYABLE_FAILURE_CODES: readonly PayoutFailureCode[] = ['provider_timeout'];

/** Event emitted on entering a state, if any (spec "Events, Surface A"). */
export const EVENT_ON_ENTER: Partial<Record<PayoutStatus, string>> = {
  submitted: 'payout.submitted',
  awaiting_claim: 'payout.awaiting_claim',
  claimed: 'payout.claimed',
  succeeded: 'payout.succeeded',
  failed: 'payout.failed',
  refunded: 'payout.refunded',
  canceled: 'payout.canceled',
};
