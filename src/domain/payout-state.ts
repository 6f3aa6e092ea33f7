/**
 * The payout state machine (spec "States and transitions"); docs/states.md "Payout" is generated from
 * these tables. An illegal move is a bug, refused loudly. Pure.
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

export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export const PAYOUT_TRANSITIONS: Readonly<Record<PayoutStatus, readonly PayoutStatus[]>> = {
  pending: ['submitted', 'canceled'],
  submitted: ['delivering', 'awaiting_claim', 'failed', 'canceled'],
  delivering: ['succeeded', 'failed'],
  awaiting_claim: ['claimed', 'failed', 'canceled'],
  claimed: ['delivering', 'failed'],
  succeeded: ['refunded'],
  failed: [],
  refunded: [],
  canceled: [],
};

export const TERMINAL_PAYOUT_STATUSES: readonly PayoutStatus[] = ['failed', 'refunded', 'canceled'];

export function canTransition(from: PayoutStatus, to: PayoutStatus): boolean {
  return PAYOUT_TRANSITIONS[from].includes(to);
}

/** Whether `current` is reachable from `target` (recognises a replayed transition). */
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

export const PAYOUT_FAILURE_CODES = [
  'invalid_destination',
  'recipient_rejected_by_provider',
  'limit_exceeded',
  'provider_timeout',
  'provider_declined',
  'refunded_by_provider',
  'claim_expired',
  'screening_rejected',
  'payee_not_confirmed',
] as const;
export type PayoutFailureCode = (typeof PAYOUT_FAILURE_CODES)[number];

/** Failure codes worth another attempt; the rest are final. */
export const RETRYABLE_FAILURE_CODES: readonly PayoutFailureCode[] = ['provider_timeout'];

export const EVENT_ON_ENTER: Partial<Record<PayoutStatus, string>> = {
  submitted: 'payout.submitted',
  awaiting_claim: 'payout.awaiting_claim',
  claimed: 'payout.claimed',
  succeeded: 'payout.succeeded',
  failed: 'payout.failed',
  refunded: 'payout.refunded',
  canceled: 'payout.canceled',
};

export type PayoutMoneyAccount = 'available' | 'held' | 'sent';

/**
 * Ledger movement of debit_total on entering a state (posting key `payout:{id}:<name>`). The hold is
 * taken at acceptance, or by the disbursement at launch for its items.
 */
export const PAYOUT_MONEY_ON_ENTER: Readonly<Partial<Record<PayoutStatus, { name: string; from: PayoutMoneyAccount; to: PayoutMoneyAccount }>>> = {
  succeeded: { name: 'settle', from: 'held', to: 'sent' },
  failed: { name: 'release', from: 'held', to: 'available' },
  canceled: { name: 'release', from: 'held', to: 'available' },
  refunded: { name: 'refund', from: 'sent', to: 'available' },
};

/** Claim window of a claim link in ms (spec "Limits": claim-link arrival maximum 30 days). */
export const CLAIM_WINDOW_MS = 30 * 24 * 3600 * 1000;
