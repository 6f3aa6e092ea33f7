/**
 * The payout state machine (spec "States and transitions", Payout status). Pure: the workflow and
 * the activities consult it; an illegal move is a bug, refused loudly.
 *
 * The tables below ARE the lifecycle: {@link PAYOUT_TRANSITIONS} (allowed moves),
 * {@link EVENT_ON_ENTER} (the event written on entering a state) and {@link PAYOUT_MONEY_ON_ENTER}
 * (the ledger movement of entering a state). docs/states.md "Payout" is generated from them
 * (`npm run docs:states`; test/unit/docs-states.test.ts fails when they disagree), with what
 * triggers each move. A payout is created `submitted` (POST /payouts, and every disbursement item
 * when the disbursement's run starts it) or `pending` (above its key's approval_threshold: it waits
 * for approval with its funds held). Terminal: failed, refunded, canceled.
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

/** A ledger account a payout's money moves between (src/core/ledger.ts `Account`). */
export type PayoutMoneyAccount = 'available' | 'held' | 'sent';

/**
 * Ledger movement of the payout's debit_total on entering a state (posting key
 * `payout:{id}:<name>`; src/core/payouts/transitions.ts applies it in the transition's statement).
 * The hold itself is taken at acceptance (`payout:{id}:hold`, available -> held, src/core/payouts/accept.ts),
 * except for disbursement items, whose disbursement holds the batch total at launch.
 */
export const PAYOUT_MONEY_ON_ENTER: Readonly<Partial<Record<PayoutStatus, { name: string; from: PayoutMoneyAccount; to: PayoutMoneyAccount }>>> = {
  succeeded: { name: 'settle', from: 'held', to: 'sent' },
  failed: { name: 'release', from: 'held', to: 'available' },
  canceled: { name: 'release', from: 'held', to: 'available' },
  refunded: { name: 'refund', from: 'sent', to: 'available' },
};
