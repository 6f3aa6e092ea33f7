/**
 * Generates the state tables of docs/states.md from the transition tables of the code, so the
 * documentation cannot drift from what the service does:
 *
 * | section (marker)  | generated from                                                                        |
 * |-------------------|---------------------------------------------------------------------------------------|
 * | `payout`          | src/domain/payout-state.ts PAYOUT_TRANSITIONS, EVENT_ON_ENTER, PAYOUT_MONEY_ON_ENTER; src/domain/webhook-events.ts surfaceAEventType |
 * | `disbursement-a`  | src/domain/disbursement-state.ts ALLOWED, DISBURSEMENT_EVENT_ON_ENTER                 |
 * | `disbursement-b`  | the payout tables through src/core/claim-flow/status.ts claimStatusOf and src/domain/surface-b.ts surfaceBEventType |
 * | `payout-c`        | the payout tables through src/domain/surface-c.ts surfaceCPayoutStatus, surfaceCEventType |
 * | `payment-request` | src/domain/funding.ts PAYMENT_REQUEST_TRANSITIONS, PAYMENT_REQUEST_EVENT_ON_ENTER      |
 * | `deposit`         | src/domain/funding.ts DEPOSIT_TRANSITIONS, DEPOSIT_EVENT_ON_ENTER; surfaceAEventType, surfaceBEventType |
 *
 * What the code tables do not say (what triggers a move) is written here, keyed by the move; a move
 * of the code without a description, or a description of a move the code does not have, throws,
 * so a new transition cannot ship undocumented.
 *
 * `npm run docs:states` (`tsx tools/docs/state-tables.ts`) rewrites docs/states.md between its
 * markers (`<!-- BEGIN GENERATED: <section> (...) -->` ... `<!-- END GENERATED: <section> -->`) and
 * leaves the prose around them alone; `--check` writes nothing and exits 1 when the file differs.
 * test/unit/docs-states.test.ts runs the same comparison.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CLAIM_STATUSES, type ClaimStatus, claimStatusOf } from '../../src/core/claim-flow/status';
import { surfaceBEventType } from '../../src/domain/surface-b';
import {
  ALLOWED,
  DISBURSEMENT_EVENT_ON_ENTER,
  DISBURSEMENT_STATUSES,
  type DisbursementOperation,
} from '../../src/domain/disbursement-state';
import {
  DEPOSIT_EVENT_ON_ENTER,
  DEPOSIT_INITIAL_STATUS,
  DEPOSIT_STATUSES,
  DEPOSIT_TRANSITIONS,
  PAYMENT_REQUEST_EVENT_ON_ENTER,
  PAYMENT_REQUEST_INITIAL_STATUS,
  PAYMENT_REQUEST_STATUSES,
  PAYMENT_REQUEST_TRANSITIONS,
} from '../../src/domain/funding';
import {
  EVENT_ON_ENTER,
  PAYOUT_MONEY_ON_ENTER,
  PAYOUT_STATUSES,
  PAYOUT_TRANSITIONS,
  type PayoutStatus,
  TERMINAL_PAYOUT_STATUSES,
} from '../../src/domain/payout-state';
import { SURFACE_C_PAYOUT_STATUSES, surfaceCEventType, surfaceCPayoutStatus } from '../../src/domain/surface-c';
import { surfaceAEventType } from '../../src/domain/webhook-events';

/** The generated document. */
export const STATES_DOC = fileURLToPath(new URL('../../docs/states.md', import.meta.url));

const NONE = '(none)';
const code = (s: string) => `\`${s}\``;
const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
const table = (head: readonly string[], rows: readonly (readonly string[])[]) =>
  [row(head), row(head.map(() => '---')), ...rows.map(row)].join('\n');

/** Checks that `described` covers exactly the moves in `moves` (both as `from->to` keys). */
function assertCovered(what: string, moves: readonly string[], described: readonly string[]): void {
  const missing = moves.filter((m) => !described.includes(m));
  const extra = described.filter((d) => !moves.includes(d));
  if (missing.length || extra.length) {
    throw new Error(
      `${what}: the code and tools/docs/state-tables.ts disagree.` +
        (missing.length ? ` Moves without a description (add them): ${missing.join(', ')}.` : '') +
        (extra.length ? ` Descriptions of moves the code does not have (remove them): ${extra.join(', ')}.` : ''),
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Payout

/** What triggers each payout move (`from->to`), entries from `(none)` included. */
const PAYOUT_TRIGGERS: Record<string, string> = {
  '(none)->submitted':
    'accepted: `POST /payouts`, `POST /withdrawals`, a Surface B disbursement, a Surface C payout; a Surface A disbursement item when the disbursement\'s run starts it',
  '(none)->pending':
    "accepted above the creating key's `approval_threshold` (docs/getting-paid.md \"Key policies\"); no attempt yet, waits for a decision",
  'pending->submitted': 'another key approves it (`POST /payouts/{id}/approve`: the workflow\'s `approve` Update)',
  'pending->canceled':
    'another key rejects it (`POST /payouts/{id}/reject`), or no decision within `PAYOUT_APPROVAL_TIMEOUT`; or a Surface B `DELETE /disbursements/{id}` of a claim link (the `cancel` Update)',
  'submitted->delivering': 'handed to the rail (first attempt; direct channels)',
  'submitted->awaiting_claim': 'claim link opened (`claim_link` channel; 30-day window)',
  'submitted->failed': 'the checks before the rail refused it: a sanctions screening rejected by operators or a confirmed match (`screening_rejected`; docs/screening.md)',
  'submitted->canceled': 'Verification of Payee answered a close match or no match, and the business canceled or did not confirm in time (`payee_not_confirmed`; docs/payee-verification.md)',
  'awaiting_claim->claimed':
    'the recipient chose a method on the claim page `/c/{token}` (sandbox: `POST /sandbox/payouts/{id}/claim`): the `claim` Update',
  'awaiting_claim->failed': 'no claim within the window: failure `claim_expired`',
  'awaiting_claim->canceled':
    'Surface B `DELETE /disbursements/{id}` before the recipient started the claim (the `cancel` Update); Surfaces A and C have no cancel operation',
  'claimed->delivering': 'delivery to the chosen method starts',
  'claimed->failed': 'allowed by the table (a failure before delivery starts); no path of today\'s workflow takes it',
  'delivering->succeeded': 'the rail confirmed arrival (a bank file rail: the booking, `delivered_at` = its time; docs/rails.md)',
  'delivering->failed':
    'final rail failure, the 3rd retryable one (`provider_timeout`), or a bank rejection (`failure.rail_reason_code`; docs/rails.md)',
  'succeeded->refunded': 'the provider returned the funds (`refunded_by_provider`; a bank return, docs/rails.md)',
};

/** Money of entering `to`; `entry` for the acceptance rows (the hold). */
function payoutMoney(to: PayoutStatus, entry: boolean): string {
  if (entry && to === 'submitted') {
    return "`payout:{id}:hold` available → held; none for a batch's payout (a Surface A disbursement or a Surface B batch holds the batch total, and each of its payouts settles or releases its own debit_total from it)";
  }
  if (entry) return '`payout:{id}:hold` available → held';
  const m = PAYOUT_MONEY_ON_ENTER[to];
  return m ? `\`payout:{id}:${m.name}\` ${m.from} → ${m.to}` : '-';
}

/** The statuses a payout is created in. */
const PAYOUT_ENTRY_STATUSES: readonly PayoutStatus[] = ['submitted', 'pending'];

/** Every payout move as `from->to`: the two entries, then PAYOUT_TRANSITIONS in status order. */
function payoutMoves(): string[] {
  return [
    ...PAYOUT_ENTRY_STATUSES.map((to) => `${NONE}->${to}`),
    ...PAYOUT_STATUSES.flatMap((from) => PAYOUT_TRANSITIONS[from].map((to) => `${from}->${to}`)),
  ];
}

/** The payout section: statuses and every move of PAYOUT_TRANSITIONS. */
export function payoutSection(): string {
  const moves = payoutMoves();
  assertCovered('payout', moves, Object.keys(PAYOUT_TRIGGERS));
  const rows = moves.map((m) => {
    const [from, to] = m.split('->') as [string, PayoutStatus];
    const core = EVENT_ON_ENTER[to];
    const a = core ? surfaceAEventType(core) : null;
    return [from === NONE ? NONE : code(from), code(to), PAYOUT_TRIGGERS[m]!, payoutMoney(to, from === NONE), a ? code(a) : '-'];
  });
  return [
    `Statuses: ${PAYOUT_STATUSES.map(code).join(', ')}. Terminal: ${TERMINAL_PAYOUT_STATUSES.map(code).join(', ')}.`,
    '',
    table(['from', 'to', 'trigger', "money (the payout's debit_total)", 'event (Surface A)'], rows),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Surface A disbursement

/** Each operation of ALLOWED: its endpoint, the resulting status, its money, and what else happens or refuses. */
const DISBURSEMENT_OPERATIONS: Record<DisbursementOperation, { endpoint: string; to: string; money: string; notes: string }> = {
  import: {
    endpoint: '`POST /disbursements/{id}/items/import`',
    to: '`draft` / `needs_review` / `ready`, recomputed from the items',
    money: '-',
    notes: 'new `revision_id`',
  },
  edit_item: {
    endpoint: '`PATCH /disbursements/{id}/items/{item_id}`',
    to: 'drafting: recomputed; `awaiting_approval`, `approved`: `awaiting_approval` if a money-critical field changed, else unchanged',
    money: '-',
    notes: 'money-critical change: new `revision_id`',
  },
  correct_item: {
    endpoint: '`PATCH /disbursements/{id}/items/{item_id}` of a failed item (correction mode)',
    to: 'unchanged',
    money: '-',
    notes: 'failed items only (else 409 `invalid_state`); money-critical change: new `revision_id`, to be approved before retry-failed',
  },
  submit: {
    endpoint: '`POST /disbursements/{id}/submit-for-approval`',
    to: '`awaiting_approval` (`approved` when the business requires 0 approvals)',
    money: '-',
    notes: 'the event also when it goes straight to `approved`; `draft`: 409 `invalid_state` (no items); `needs_review`: 409 `items_need_review`',
  },
  approve: {
    endpoint: '`POST /disbursements/{id}/approvals/{revision_id}/approve`',
    to: '`approved` once the current revision has `approvals_required` approvals; launched: unchanged (approves a correction revision)',
    money: '-',
    notes: '403 `self_approval_forbidden` (the submitter), 409 `stale_revision`, 409 `items_need_review`',
  },
  reject: {
    endpoint: '`POST /disbursements/{id}/approvals/{revision_id}/reject`',
    to: '`needs_review` / `ready`',
    money: '-',
    notes: 'new `revision_id`; the reason is kept in `rejection`',
  },
  launch: {
    endpoint: '`POST /disbursements/{id}/launch`',
    to: '`processing`',
    money: "`disbursement:{id}:hold:{revision_id}` available → held: the ready items' debit totals",
    notes:
      'workflow started; `needs_review`: 409 `items_need_review`; approvals outstanding (`ready` with approvals required, `awaiting_approval`): 409 `approval_required`; 402 `insufficient_balance`; 403 `policy_exceeded`',
  },
  pause: { endpoint: '`POST /disbursements/{id}/pause`', to: '`paused`', money: '-', notes: 'no new item starts; items in flight finish' },
  resume: { endpoint: '`POST /disbursements/{id}/resume`', to: '`processing`', money: '-', notes: '-' },
  retry_failed: {
    endpoint: '`POST /disbursements/{id}/items/retry-failed`',
    to: '`processing` (`paused` stays `paused`)',
    money: '`disbursement_item:{item_id}:retry:{attempt}:hold` available → held, per retried item',
    notes:
      'retries items failed with a retryable code (`provider_timeout`) or corrected; 409 `invalid_state` when none qualifies; 409 `approval_required`; 402 `insufficient_balance`',
  },
  complete: {
    endpoint: 'the disbursement workflow, when every item is final',
    to: '`completed` / `completed_with_failures`',
    money: "- (each item's payout settled or released its own share)",
    notes: '-',
  },
};

/** Events an operation can emit: those of the statuses it can lead to. */
const DISBURSEMENT_OPERATION_EVENTS: Partial<Record<DisbursementOperation, readonly (keyof typeof DISBURSEMENT_EVENT_ON_ENTER)[]>> = {
  submit: ['awaiting_approval'],
  launch: ['processing'],
  complete: ['completed', 'completed_with_failures'],
};

/** The Surface A disbursement section: one row per operation of ALLOWED. */
export function disbursementASection(): string {
  const ops = Object.keys(ALLOWED) as DisbursementOperation[];
  assertCovered('disbursement operations', ops, Object.keys(DISBURSEMENT_OPERATIONS));
  const rows: string[][] = [[NONE, '`POST /disbursements`', '`draft` (no items) / `needs_review` / `ready`', '-', '-', 'every item reviewed']];
  for (const op of ops) {
    const d = DISBURSEMENT_OPERATIONS[op];
    const events = (DISBURSEMENT_OPERATION_EVENTS[op] ?? []).map((s): string | undefined => (DISBURSEMENT_EVENT_ON_ENTER as Partial<Record<string, string>>)[s]).filter((e): e is string => !!e);
    rows.push([ALLOWED[op].map(code).join(', '), d.endpoint, d.to, d.money, events.length ? events.map(code).join(' / ') : '-', d.notes]);
  }
  const evented = new Set(Object.values(DISBURSEMENT_OPERATION_EVENTS).flat());
  const unplaced = (Object.keys(DISBURSEMENT_EVENT_ON_ENTER) as (keyof typeof DISBURSEMENT_EVENT_ON_ENTER)[]).filter((s) => !evented.has(s));
  if (unplaced.length) throw new Error(`disbursement events of ${unplaced.join(', ')} are not placed on an operation in tools/docs/state-tables.ts`);
  return [
    `Statuses: ${DISBURSEMENT_STATUSES.map(code).join(', ')}. Final until a retry-failed: ${['completed', 'completed_with_failures'].map(code).join(', ')}.`,
    '',
    table(['accepted in', 'operation', 'to', 'money', 'event', 'also / refused with'], rows),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Views of a claim-link payout: Surface B disbursement, Surface C payout

/** How a failed payout failed, as far as the views care. */
type FailureKind = 'claim_expired' | 'other';

/** One step of a claim-link payout in the core: a status move, or a fact that changes without one. */
interface CoreStep {
  from: PayoutStatus | null;
  to: PayoutStatus;
  /** `claim_started_at` before and after the step (set on the claim page, never cleared). */
  claimStarted: [boolean, boolean];
  failure: FailureKind | null;
  /** Core event written by the step, if any. */
  event: string | null;
  trigger: string;
  money: string;
}

/** The payout facts a view reads. */
const factsOf = (status: PayoutStatus, claimStarted: boolean, failure: FailureKind | null) => ({
  status,
  claimStartedAt: claimStarted ? new Date(0) : null,
  failureCode: failure === 'other' ? 'provider_declined' : failure,
});

/**
 * Every step a claim-link payout can take: its entries, each move of PAYOUT_TRANSITIONS but the
 * direct channels' `submitted -> delivering` (once with and once without the claim started, where
 * both can happen), and the steps that change no status (claim started, notification sent,
 * delivered, failed).
 */
function claimLinkSteps(entryMoney: string): CoreStep[] {
  const steps: CoreStep[] = PAYOUT_ENTRY_STATUSES.map((to) => ({
    from: null,
    to,
    claimStarted: [false, false],
    failure: null,
    event: EVENT_ON_ENTER[to] ?? null,
    trigger: `core ${NONE} → ${code(to)}`,
    money: entryMoney,
  }));
  for (const from of PAYOUT_STATUSES) {
    for (const to of PAYOUT_TRANSITIONS[from]) {
      if (from === 'submitted' && to === 'delivering') continue; // direct channels only, never a claim link
      for (const started of from === 'awaiting_claim' ? [false, true] : [false]) {
        // A cancel needs claim_started_at null (src/core/claim-flow/claim-start-or-cancel.ts).
        if (to === 'canceled' && started) continue;
        const m = PAYOUT_MONEY_ON_ENTER[to];
        steps.push({
          from,
          to,
          claimStarted: [started, started],
          failure: to === 'failed' ? (from === 'awaiting_claim' ? 'claim_expired' : 'other') : null,
          event: EVENT_ON_ENTER[to] ?? null,
          trigger: `core ${code(from)} → ${code(to)}${PAYOUT_TRIGGERS[`${from}->${to}`]?.startsWith('allowed by the table') ? ' (no code path takes it today)' : ''}`,
          money: m ? `\`payout:{id}:${m.name}\` ${m.from} → ${m.to}` : '-',
        });
      }
    }
  }
  steps.push(
    {
      from: 'awaiting_claim',
      to: 'awaiting_claim',
      claimStarted: [false, true],
      failure: null,
      event: 'payout.claim_started',
      trigger: 'the recipient pressed "Claim this payment" (`POST /c/{token}/start`)',
      money: '-',
    },
    {
      from: 'awaiting_claim',
      to: 'awaiting_claim',
      claimStarted: [false, false],
      failure: null,
      event: 'payout.notification_sent',
      trigger: 'the recipient was notified (Surface C `notification`)',
      money: '-',
    },
    {
      from: 'awaiting_claim',
      to: 'awaiting_claim',
      claimStarted: [false, false],
      failure: null,
      event: 'payout.notification_delivered',
      trigger: 'the provider reported the message delivered (docs/notifications.md)',
      money: '-',
    },
    {
      from: 'awaiting_claim',
      to: 'awaiting_claim',
      claimStarted: [false, false],
      failure: null,
      event: 'payout.notification_failed',
      trigger: 'the message finally failed: refused, undelivered, opted out (docs/notifications.md)',
      money: '-',
    },
  );
  return steps;
}

/**
 * A view's transition table from {@link claimLinkSteps}: one row per (from, to, event) of the
 * view; a step that leaves the view's status unchanged is shown only when it writes an event the
 * surface receives. Also returns the view's terminal statuses (no row leaves them).
 */
function viewTable<S extends string>(
  statuses: readonly S[],
  entryMoney: string,
  viewOf: (f: ReturnType<typeof factsOf>) => S,
  eventOf: (core: string, f: ReturnType<typeof factsOf>) => string | null,
): { rows: string[][]; terminal: S[] } {
  const out = new Map<string, { from: string; to: string; event: string | null; trigger: Set<string>; money: Set<string> }>();
  const leaves = new Set<string>();
  for (const st of claimLinkSteps(entryMoney)) {
    const after = factsOf(st.to, st.claimStarted[1], st.failure);
    const from = st.from === null ? NONE : viewOf(factsOf(st.from, st.claimStarted[0], null));
    const to = viewOf(after);
    const event = st.event ? eventOf(st.event, after) : null;
    if (from === to && !event) continue;
    if (from !== to) leaves.add(from);
    const k = `${from}->${to}->${event}`;
    const r = out.get(k) ?? { from, to, event, trigger: new Set<string>(), money: new Set<string>() };
    r.trigger.add(st.trigger);
    r.money.add(st.money);
    out.set(k, r);
  }
  const rank = (s: string) => (s === NONE ? -1 : statuses.indexOf(s as S));
  const sorted = [...out.values()].sort((a, b) => rank(a.from) - rank(b.from) || rank(a.to) - rank(b.to));
  const rows = sorted.map((r) => [
    r.from === NONE ? NONE : code(r.from),
    r.from === r.to ? `${code(r.to)} (unchanged)` : code(r.to),
    [...r.trigger].join('; '),
    [...r.money].join('; '),
    r.event ? code(r.event) : '-',
  ]);
  return { rows, terminal: statuses.filter((s) => !leaves.has(s)) };
}

/** Human description of the payout facts that give view status `s` (every combination a status can show). */
function viewCondition<S extends string>(s: S, viewOf: (f: ReturnType<typeof factsOf>) => S): string {
  const parts: string[] = [];
  for (const status of PAYOUT_STATUSES) {
    const all = [false, true].flatMap((started) =>
      (status === 'failed' ? (['claim_expired', 'other'] as const) : [null]).map((failure) => ({ started, failure })),
    );
    const hits = all.filter((c) => viewOf(factsOf(status, c.started, c.failure)) === s);
    if (!hits.length) continue;
    if (hits.length === all.length) {
      parts.push(code(status));
      continue;
    }
    const qual: string[] = [];
    const byClaim = new Set(hits.map((h) => h.started));
    const byFailure = new Set(hits.map((h) => h.failure));
    if (byClaim.size === 1) qual.push(byClaim.has(true) ? 'claim started' : 'claim not started');
    if (byFailure.size === 1 && status === 'failed') qual.push(byFailure.has('claim_expired') ? 'failure `claim_expired`' : 'any other failure');
    parts.push(`${code(status)} (${qual.join(', ')})`);
  }
  return parts.join(', ');
}

const VIEW_HEAD = ['from', 'to', 'trigger', "money (the payout's debit_total)"];

/** The Surface B disbursement section: its statuses as a view of the payout, and its moves and events. */
export function disbursementBSection(): string {
  const viewOf = (f: ReturnType<typeof factsOf>): ClaimStatus => claimStatusOf(f);
  const eventOf = (core: string, f: ReturnType<typeof factsOf>) =>
    surfaceBEventType(core, { channel: 'claim_link', failure: f.failureCode ? { code: f.failureCode } : null });
  const { rows, terminal } = viewTable(
    CLAIM_STATUSES,
    '`payout:{id}:hold` available → held (a batch: one `claim_batch:{id}:hold` for all its payouts)',
    viewOf,
    eventOf,
  );
  return [
    `Statuses: ${CLAIM_STATUSES.map(code).join(', ')}. Terminal: ${terminal.map(code).join(', ')}.`,
    '',
    table(['Surface B status', 'core payout'], CLAIM_STATUSES.map((s) => [code(s), viewCondition(s, viewOf)])),
    '',
    table([...VIEW_HEAD, 'Surface B event'], rows),
  ].join('\n');
}

/** The Surface C payout section: its statuses as a view of the payout, and its moves and events. */
export function payoutCSection(): string {
  const viewOf = (f: ReturnType<typeof factsOf>) => surfaceCPayoutStatus(f.status);
  const { rows, terminal } = viewTable(SURFACE_C_PAYOUT_STATUSES, '`payout:{id}:hold` available → held', viewOf, (core) => surfaceCEventType(core));
  return [
    `Statuses: ${SURFACE_C_PAYOUT_STATUSES.map(code).join(', ')}. Terminal: ${terminal.map(code).join(', ')}.`,
    '',
    table(['Surface C status', 'core payout'], SURFACE_C_PAYOUT_STATUSES.map((s) => [code(s), viewCondition(s, viewOf)])),
    '',
    table([...VIEW_HEAD, 'Surface C event'], rows),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Payment request and deposit

const PAYMENT_REQUEST_TRIGGERS: Record<string, string> = {
  '(none)->open': '`POST /payment-requests`',
  'open->paid': 'exactly one deposit matched it (amount, currency, timing, owner; docs/getting-paid.md "Matching"), or a card payment made on its page was credited ("Card payments")',
  'open->expired': "its workflow's timer reached `expires_at` without a match",
};

const DEPOSIT_TRIGGERS: Record<string, string> = {
  '(none)->received': 'money reached the account (sandbox: `POST /sandbox/deposits`; Surface B: crypto, card top-up; live: a card payment paid at the card processor)',
  'received->credited': "the deposit workflow's credit step: net amount posted, matching run (on-chain: started at `finalized`)",
  'received->dropped': 'the Solana watcher: the on-chain transaction disappeared before finality (or finalized failed); never credited',
};

const DEPOSIT_MONEY: Record<string, string> = {
  '(none)->received': '-',
  'received->credited':
    '`deposit:{id}:credit` external → available (net of fees); card: also `deposit:{id}:card_fee` external → card_fees (the processing fee) and, live, `deposit:{id}:reserve` available → reserve (the rolling reserve)',
  'received->dropped': '-',
};

/** `(none)->initial` then every `from->to` of a transition table, in status order. */
function simpleMoves<S extends string>(initial: S, statuses: readonly S[], transitions: Readonly<Record<S, readonly S[]>>): string[] {
  return [`${NONE}->${initial}`, ...statuses.flatMap((from) => transitions[from].map((to) => `${from}->${to}`))];
}

/** The payment request section. */
export function paymentRequestSection(): string {
  const moves = simpleMoves(PAYMENT_REQUEST_INITIAL_STATUS, PAYMENT_REQUEST_STATUSES, PAYMENT_REQUEST_TRANSITIONS);
  assertCovered('payment request', moves, Object.keys(PAYMENT_REQUEST_TRIGGERS));
  const rows = moves.map((m) => {
    const [from, to] = m.split('->') as [string, keyof typeof PAYMENT_REQUEST_EVENT_ON_ENTER];
    const ev = PAYMENT_REQUEST_EVENT_ON_ENTER[to];
    return [from === NONE ? NONE : code(from), code(to), PAYMENT_REQUEST_TRIGGERS[m], ev ? code(ev) : '-'];
  });
  return [`Statuses: ${PAYMENT_REQUEST_STATUSES.map(code).join(', ')}.`, '', table(['from', 'to', 'trigger', 'event (Surface A)'], rows)].join('\n');
}

/** The deposit section. */
export function depositSection(): string {
  const moves = simpleMoves(DEPOSIT_INITIAL_STATUS, DEPOSIT_STATUSES, DEPOSIT_TRANSITIONS);
  assertCovered('deposit', moves, Object.keys(DEPOSIT_TRIGGERS));
  const rows = moves.map((m) => {
    const [from, to] = m.split('->') as [string, keyof typeof DEPOSIT_EVENT_ON_ENTER];
    const core = DEPOSIT_EVENT_ON_ENTER[to];
    const a = surfaceAEventType(core);
    const b = surfaceBEventType(core, null);
    return [from === NONE ? NONE : code(from), code(to), DEPOSIT_TRIGGERS[m], DEPOSIT_MONEY[m], code(core), a ? code(a) : '-', b ? code(b) : '-'];
  });
  return [
    `Statuses: ${DEPOSIT_STATUSES.map(code).join(', ')}.`,
    '',
    table(['from', 'to', 'trigger', 'money', 'core event', 'Surface A event', 'Surface B event'], rows),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------

/** The generator of each section, by marker name (in document order). */
export const SECTIONS: Readonly<Record<string, () => string>> = {
  payout: payoutSection,
  'disbursement-a': disbursementASection,
  'disbursement-b': disbursementBSection,
  'payout-c': payoutCSection,
  'payment-request': paymentRequestSection,
  deposit: depositSection,
};

/** Every generated section, by marker name. Throws when a move of the code has no trigger text (or the other way round). */
export function generatedSections(): Record<string, string> {
  return Object.fromEntries(Object.entries(SECTIONS).map(([name, make]) => [name, make()]));
}

/** `doc` with each section replaced between its markers; throws when a marker is missing. */
export function fillMarkers(doc: string, sections: Record<string, string>): string {
  let out = doc;
  for (const [name, body] of Object.entries(sections)) {
    const begin = `<!-- BEGIN GENERATED: ${name} (tools/docs/state-tables.ts; do not edit by hand) -->`;
    const end = `<!-- END GENERATED: ${name} -->`;
    const i = out.indexOf(begin);
    const j = out.indexOf(end);
    if (i < 0 || j < i) throw new Error(`docs/states.md: markers of section "${name}" missing (${begin} ... ${end})`);
    out = `${out.slice(0, i + begin.length)}\n${body}\n${out.slice(j)}`;
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const doc = readFileSync(STATES_DOC, 'utf8');
  const next = fillMarkers(doc, generatedSections());
  if (process.argv.includes('--check')) {
    if (next !== doc) {
      console.error('docs/states.md is out of date: run `npm run docs:states`');
      process.exit(1);
    }
    console.log('docs/states.md is up to date');
  } else if (next !== doc) {
    writeFileSync(STATES_DOC, next);
    console.log('docs/states.md updated');
  } else {
    console.log('docs/states.md is up to date');
  }
}
