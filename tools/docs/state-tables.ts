/**
 * Generates the state tables of docs/states.md from the transition tables of the code, so the
 * documentation cannot drift from what the service does:
 *
 * | section (marker)          | generated from                                                                 |
 * |---------------------------|--------------------------------------------------------------------------------|
 * | `payout`                  | src/domain/payout-state.ts PAYOUT_TRANSITIONS, EVENT_ON_ENTER, PAYOUT_MONEY_ON_ENTER |
 * | `disbursement-a`          | src/domain/disbursement-state.ts ALLOWED, DISBURSEMENT_EVENT_ON_ENTER          |
 * | `disbursement-b`          | src/core/claim-flow/status.ts claimStatusOf over PAYOUT_TRANSITIONS; src/core/webhooks-surface-b.ts surfaceBEventType |
 * | `payout-c`                | src/domain/surface-c.ts surfaceCPayoutStatus, surfaceCEventType                |
 * | `payment-request`         | src/domain/funding.ts PAYMENT_REQUEST_TRANSITIONS, PAYMENT_REQUEST_EVENT_ON_ENTER |
 * | `deposit`                 | src/domain/funding.ts DEPOSIT_TRANSITIONS, DEPOSIT_EVENT_ON_ENTER; src/domain/webhook-events.ts surfaceAEventType |
 *
 * What the code tables do not say (what triggers a move) is written here, keyed by the move; a move
 * of the code without a description, or a description of a move the code does not have, throws,
 * so a new transition cannot ship undocumented.
 *
 * `npx tsx tools/docs/state-tables.ts` rewrites docs/states.md between its markers
 * (`<!-- BEGIN GENERATED: <section> -->` ... `<!-- END GENERATED: <section> -->`);
 * `--check` exits 1 when the file differs. test/unit/docs-states.test.ts runs the same comparison.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { claimStatusOf, CLAIM_STATUSES, type ClaimStatus } from '../../src/core/claim-flow/status';
import { surfaceBEventType } from '../../src/core/webhooks-surface-b';
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
    'accepted: `POST /payouts`, `POST /withdrawals`, a Surface C payout, a Surface B disbursement; a Surface A disbursement item when its run claims it',
  '(none)->pending': "accepted above the creating key's `approval_threshold` (attempts 0); waits for a decision",
  'pending->submitted': '`POST /payouts/{id}/approve` by another key without a policy (the workflow\'s `approve` Update)',
  'pending->canceled':
    '`POST /payouts/{id}/reject`, or no decision within `PAYOUT_APPROVAL_TIMEOUT` (default `P7D`); also the `cancel` Update (Surface B `DELETE` of a claim link still awaiting approval)',
  'submitted->delivering': 'handed to the rail (first attempt)',
  'submitted->awaiting_claim': 'claim link opened (`claim_link` channel; 30-day window)',
  'submitted->failed': 'allowed by the table; no code path takes it today',
  'awaiting_claim->claimed':
    'the recipient chose a method on the claim page `/c/{token}` (sandbox: `POST /sandbox/payouts/{id}/claim`): the `claim` Update',
  'awaiting_claim->failed': 'no claim within the window: failure `claim_expired`',
  'awaiting_claim->canceled':
    'Surface B `DELETE /disbursements/{id}` before the claim started (the `cancel` Update); Surfaces A and C have no cancel operation',
  'claimed->delivering': 'delivery to the chosen method starts',
  'claimed->failed': 'allowed by the table; no code path takes it today',
  'delivering->succeeded': 'the rail confirmed arrival',
  'delivering->failed': 'final rail failure, or the 3rd retryable one (`provider_timeout`)',
  'succeeded->refunded': 'the provider returned the funds (`refunded_by_provider`)',
};

/** Money of entering `to`; `entry` for the acceptance rows (the hold). */
function payoutMoney(to: PayoutStatus, entry: boolean): string {
  if (entry) return '`payout:{id}:hold` available → held (none for a disbursement item: its disbursement holds the batch)';
  const m = PAYOUT_MONEY_ON_ENTER[to];
  return m ? `\`payout:{id}:${m.name}\` ${m.from} → ${m.to}` : '-';
}

/** The payout section: statuses and every move of PAYOUT_TRANSITIONS. */
export function payoutSection(): string {
  const entries: PayoutStatus[] = ['submitted', 'pending'];
  const moves = [
    ...entries.map((to) => `${NONE}->${to}`),
    ...PAYOUT_STATUSES.flatMap((from) => PAYOUT_TRANSITIONS[from].map((to) => `${from}->${to}`)),
  ];
  assertCovered('payout', moves, Object.keys(PAYOUT_TRIGGERS));
  const rows = moves.map((m) => {
    const [from, to] = m.split('->') as [string, PayoutStatus];
    const event = EVENT_ON_ENTER[to];
    return [from === NONE ? NONE : code(from), code(to), PAYOUT_TRIGGERS[m], payoutMoney(to, from === NONE), event ? code(event) : '-'];
  });
  return [
    `Statuses: ${PAYOUT_STATUSES.map(code).join(', ')}. Terminal: ${TERMINAL_PAYOUT_STATUSES.map(code).join(', ')}.`,
    '',
    table(['from', 'to', 'trigger', 'money (the payout\'s debit_total)', 'event'], rows),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Surface A disbursement

/** Each operation of ALLOWED: its endpoint, the resulting status, and what else happens or refuses. */
const DISBURSEMENT_OPERATIONS: Record<DisbursementOperation, { endpoint: string; to: string; notes: string }> = {
  import: {
    endpoint: '`POST /disbursements/{id}/items/import`',
    to: '`draft` / `needs_review` / `ready`, recomputed from the items',
    notes: 'new `revision_id`',
  },
  edit_item: {
    endpoint: '`PATCH /disbursements/{id}/items/{item_id}`',
    to: 'drafting: recomputed; `awaiting_approval`, `approved`: `awaiting_approval` if a money-critical field changed, else unchanged',
    notes: 'money-critical change: new `revision_id`',
  },
  correct_item: {
    endpoint: '`PATCH /disbursements/{id}/items/{item_id}` of a failed item (correction mode)',
    to: 'unchanged',
    notes: 'failed items only (else 409 `invalid_state`); money-critical change: new `revision_id`, approved before retry-failed',
  },
  submit: {
    endpoint: '`POST /disbursements/{id}/submit-for-approval`',
    to: '`awaiting_approval` (`approved` when the business requires 0 approvals)',
    notes: '`draft`: 409 `invalid_state` (no items); `needs_review`: 409 `items_need_review`',
  },
  approve: {
    endpoint: '`POST /disbursements/{id}/approvals/{revision_id}/approve`',
    to: '`approved` once the current revision has `approvals_required` approvals; launched: unchanged (approves a correction revision)',
    notes: '403 `self_approval_forbidden` (the submitter), 409 `stale_revision`, 409 `items_need_review`',
  },
  reject: {
    endpoint: '`POST /disbursements/{id}/approvals/{revision_id}/reject`',
    to: '`needs_review` / `ready`',
    notes: 'new `revision_id`; the reason is kept in `rejection`',
  },
  launch: {
    endpoint: '`POST /disbursements/{id}/launch`',
    to: '`processing`',
    notes:
      'batch total held, workflow started; `needs_review`: 409 `items_need_review`; approvals outstanding (`ready` with approvals required, `awaiting_approval`): 409 `approval_required`; 402 `insufficient_balance`; 403 `policy_exceeded`',
  },
  pause: { endpoint: '`POST /disbursements/{id}/pause`', to: '`paused`', notes: 'no new item starts; items in flight finish' },
  resume: { endpoint: '`POST /disbursements/{id}/resume`', to: '`processing`', notes: '' },
  retry_failed: {
    endpoint: '`POST /disbursements/{id}/items/retry-failed`',
    to: '`processing` (`paused` stays `paused`)',
    notes:
      'retries items failed with a retryable code (`provider_timeout`) or corrected; each re-held; 409 `invalid_state` when none qualifies; 409 `approval_required`; 402 `insufficient_balance`',
  },
  complete: {
    endpoint: 'the disbursement workflow, when every item is final',
    to: '`completed` / `completed_with_failures`',
    notes: '',
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
  const rows: string[][] = [
    [
      '(none)',
      '`POST /disbursements`',
      '`draft` (no items) / `needs_review` / `ready`',
      '-',
      'every item reviewed',
    ],
  ];
  for (const op of ops) {
    const d = DISBURSEMENT_OPERATIONS[op];
    const events = (DISBURSEMENT_OPERATION_EVENTS[op] ?? []).map((s) => DISBURSEMENT_EVENT_ON_ENTER[s]).filter((e): e is string => !!e);
    // submit emits its event also when it goes straight to approved (docs/getting-paid.md).
    rows.push([ALLOWED[op].map(code).join(', '), d.endpoint, d.to, events.length ? events.map(code).join(' / ') : '-', d.notes || '-']);
  }
  const evented = new Set(Object.values(DISBURSEMENT_OPERATION_EVENTS).flat());
  const unplaced = (Object.keys(DISBURSEMENT_EVENT_ON_ENTER) as (keyof typeof DISBURSEMENT_EVENT_ON_ENTER)[]).filter((s) => !evented.has(s));
  if (unplaced.length) throw new Error(`disbursement events of ${unplaced.join(', ')} are not placed on an operation in tools/docs/state-tables.ts`);
  return [
    `Statuses: ${DISBURSEMENT_STATUSES.map(code).join(', ')}.`,
    '',
    table(['accepted in', 'operation', 'to', 'event', 'also / refused with'], rows),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Surface B disbursement (a view of the claim-link payout)

/** The facts of a payout that decide its Surface B status. */
interface Facts {
  status: PayoutStatus;
  claimStarted: boolean;
  failure: string | null;
}

const FAILURES = ['claim_expired', 'other'] as const;

/** Every combination of facts a payout in `status` can show (for the status view). */
function factsOf(status: PayoutStatus): Facts[] {
  const failures: (string | null)[] = status === 'failed' ? [...FAILURES] : [null];
  return [false, true].flatMap((claimStarted) => failures.map((failure) => ({ status, claimStarted, failure })));
}

const claimOf = (f: Facts): ClaimStatus =>
  claimStatusOf({ status: f.status, claim_started_at: f.claimStarted ? new Date(0) : null, failure_code: f.failure === 'other' ? 'provider_declined' : f.failure });

/** Human description of the payout facts that give Surface B status `s`. */
function claimCondition(s: ClaimStatus): string {
  const parts: string[] = [];
  for (const status of PAYOUT_STATUSES) {
    const all = factsOf(status);
    const hits = all.filter((f) => claimOf(f) === s);
    if (!hits.length) continue;
    if (hits.length === all.length) {
      parts.push(code(status));
      continue;
    }
    const byClaim = new Set(hits.map((h) => h.claimStarted));
    const byFailure = new Set(hits.map((h) => h.failure));
    const qual: string[] = [];
    if (byClaim.size === 1) qual.push(byClaim.has(true) ? 'claim started' : 'claim not started');
    if (byFailure.size === 1 && status === 'failed') qual.push(byFailure.has('claim_expired') ? 'failure `claim_expired`' : 'any other failure');
    parts.push(`${code(status)} (${qual.join(', ')})`);
  }
  return parts.join(', ');
}

/** The Surface B status changes that core moves produce, with their Surface B events. */
function claimMoves(): string[][] {
  const out = new Map<string, { trigger: Set<string>; event: Set<string> }>();
  const add = (from: ClaimStatus, to: ClaimStatus, trigger: string, event: string | null) => {
    if (from === to) return;
    const k = `${from}->${to}`;
    const e = out.get(k) ?? { trigger: new Set<string>(), event: new Set<string>() };
    e.trigger.add(trigger);
    if (event) e.event.add(event);
    out.set(k, e);
  };
  // The claim page's first step: awaiting_claim with the claim started (core event payout.claim_started).
  add('pending', 'claimed', 'the recipient pressed "Claim this payment" (`POST /c/{token}/start`)', surfaceBEventType('payout.claim_started', { channel: 'claim_link' }));
  for (const from of PAYOUT_STATUSES) {
    for (const to of PAYOUT_TRANSITIONS[from]) {
      if (from === 'submitted' && to === 'delivering') continue; // direct channels only, never a claim link
      // The claim start (claim_started_at) is set while awaiting_claim and stays set.
      for (const claimStarted of from === 'awaiting_claim' ? [false, true] : [false]) {
        if (to === 'canceled' && claimStarted) continue; // a cancel needs claim_started_at null (src/core/claim-flow/claim-cancel.ts)
        const failure = to === 'failed' ? (from === 'awaiting_claim' ? 'claim_expired' : 'other') : null;
        const fromB = claimOf({ status: from, claimStarted, failure: null });
        const toB = claimOf({ status: to, claimStarted, failure });
        const event = EVENT_ON_ENTER[to];
        const failureObj = failure ? { code: failure === 'other' ? 'provider_declined' : failure } : null;
        const bEvent = event ? surfaceBEventType(event, { channel: 'claim_link', failure: failureObj }) : null;
        add(fromB, toB, `core ${code(from)} → ${code(to)}`, bEvent);
      }
    }
  }
  return [...out.entries()].map(([k, v]) => {
    const [from, to] = k.split('->');
    return [code(from), code(to), [...v.trigger].join('; '), v.event.size ? [...v.event].map(code).join(' / ') : '-'];
  });
}

/** The Surface B disbursement section. */
export function disbursementBSection(): string {
  const statusRows = CLAIM_STATUSES.map((s) => [code(s), claimCondition(s)]);
  return [
    'A Surface B disbursement is a claim-link payout; its status is computed from the payout (`claimStatusOf`):',
    '',
    table(['Surface B status', 'core payout'], statusRows),
    '',
    table(['from', 'to', 'trigger', 'Surface B event'], claimMoves()),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Surface C payout (a view of the payout)

/** The Surface C payout section: statuses as a view of the core's, and the events renamed. */
export function payoutCSection(): string {
  const rows = SURFACE_C_PAYOUT_STATUSES.map((s) => [code(s), PAYOUT_STATUSES.filter((p) => surfaceCPayoutStatus(p) === s).map(code).join(', ')]);
  const coreEvents = [...new Set([...Object.values(EVENT_ON_ENTER), 'payout.notification_sent'])];
  const eventRows = coreEvents
    .map((e) => [code(e), surfaceCEventType(e)] as const)
    .filter((r): r is readonly [string, NonNullable<ReturnType<typeof surfaceCEventType>>] => r[1] !== null)
    .map(([core, c]) => [core, code(c)]);
  return [table(['Surface C status', 'core payout statuses'], rows), '', table(['core event', 'Surface C event'], eventRows)].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Payment request and deposit

const PAYMENT_REQUEST_TRIGGERS: Record<string, string> = {
  '(none)->open': '`POST /payment-requests`',
  'open->paid': 'exactly one deposit matched it (amount, currency, timing, owner; docs/getting-paid.md "Matching")',
  'open->expired': "its workflow's timer reached `expires_at` without a match",
};

const DEPOSIT_TRIGGERS: Record<string, string> = {
  '(none)->received': 'money reached the account (sandbox: `POST /sandbox/deposits`; Surface B: crypto, card top-up)',
  'received->credited': "the deposit workflow's credit step: net amount posted, matching run",
};

const DEPOSIT_MONEY: Record<string, string> = {
  '(none)->received': '-',
  'received->credited': '`deposit:{id}:credit` external → available (net of fees)',
};

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

/** Every generated section, by marker name. */
export function generatedSections(): Record<string, string> {
  return {
    payout: payoutSection(),
    'disbursement-a': disbursementASection(),
    'disbursement-b': disbursementBSection(),
    'payout-c': payoutCSection(),
    'payment-request': paymentRequestSection(),
    deposit: depositSection(),
  };
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
      console.error('docs/states.md is out of date: run `npx tsx tools/docs/state-tables.ts`');
      process.exit(1);
    }
  } else if (next !== doc) {
    writeFileSync(STATES_DOC, next);
    console.log('docs/states.md updated');
  } else {
    console.log('docs/states.md is up to date');
  }
}
