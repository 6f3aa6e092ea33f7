/**
 * Payout transitions, called by the payout activities: each is one transaction (projection, money,
 * event; the row lock plus one statement), idempotent and guarded by the transition table
 * (src/domain/payout-state.ts).
 */
import { type RawBuilder, sql, type Updateable } from 'kysely';
import type { PayoutsTable } from '../../db/tables/payouts';
import type { DbOrTx } from '../../db/schema';
import { randomToken } from '../../domain/ids';
import {
  canTransition,
  EVENT_ON_ENTER,
  hasPassed,
  PAYOUT_MONEY_ON_ENTER,
  PAYOUT_STATUSES,
  type PayoutFailureCode,
  type PayoutStatus,
} from '../../domain/payout-state';
import type { AttemptResult } from '../../../workflows/payout.contract';
import type { Core } from '../context';
import { columnList, columnsAndValues } from '../sql-rows';
import { type EventInput, eventInsertQuery, eventWritten } from '../events';
import { InsufficientFundsError, type Posting, postingCtes, resolvePostingOutcome } from '../ledger';
import type { PayoutRow, PayoutAttemptRow } from './rows';
import { payoutFromRow } from './read';
import { payoutStatusEvent } from '../../domain/domain-events';

/** A move the transition table does not allow (a bug in the caller; activities do not retry it). */
export class IllegalPayoutTransitionError extends Error {
  constructor(
    readonly payoutId: string,
    readonly from: string,
    readonly to: PayoutStatus,
  ) {
    super(`payout ${payoutId}: illegal transition ${from} -> ${to}`);
    this.name = 'IllegalPayoutTransitionError';
  }
}

/** The result of one finished delivery attempt (defined by the payout workflow's contract). */
export type { AttemptResult };

/** What a transition may also set on the payout (all optional). */
export interface TransitionPatch {
  /** failure code/message (-> failed, -> refunded), with retryable and rail reason code (docs/rails.md). */
  failure?: { code: PayoutFailureCode; message: string; retryable?: boolean; railReasonCode?: string | null };
  /** -> succeeded: when the rail booked it (ISO 8601; default now). */
  deliveredAt?: string;
  providerReference?: string | null;
  /** Claim link token and expiry (-> awaiting_claim). */
  claim?: { token: string; expiresAt: Date };
  /** The method the recipient chose (-> claimed). */
  claimMethod?: string;
  /** Finishes this attempt in the same transaction. */
  attempt?: AttemptResult & { number: number };
  /** Apply the move only from these states; from any other the row is returned unchanged. */
  onlyFrom?: readonly PayoutStatus[];
}

/** Ledger movement applied on entering a state (src/domain/payout-state.ts, shown in docs/states.md). */
const MONEY_ON_ENTER = PAYOUT_MONEY_ON_ENTER;

/** The event of entering `status` (EVENT_ON_ENTER[status], dedupe `payout:{id}:{status}`), or null for a silent state. */
export function payoutEventInput(core: Core, row: PayoutRow, status: PayoutStatus): EventInput | null {
  const type = EVENT_ON_ENTER[status];
  if (!type) return null;
  return payoutStatusEvent({ businessId: row.business_id, environment: row.environment }, type, payoutFromRow(row, core.config.publicUrl), status);
}

/** The statement that finishes attempt `number` with `r` (a finished attempt keeps its first result). */
function finishAttemptQuery(tx: DbOrTx, payoutId: string, number: number, r: AttemptResult, now: Date) {
  return tx
    .insertInto('payout_attempts')
    .values({
      payout_id: payoutId,
      number,
      status: r.status,
      provider_reference: r.providerReference ?? null,
      error_code: r.errorCode ?? null,
      error_message: r.errorMessage ?? null,
      started_at: now,
      completed_at: now,
    })
    .onConflict((oc) =>
      oc
        .columns(['payout_id', 'number'])
        .doUpdateSet((eb) => ({
          status: eb.ref('excluded.status'),
          provider_reference: sql<string | null>`coalesce(excluded.provider_reference, payout_attempts.provider_reference)`,
          error_code: eb.ref('excluded.error_code'),
          error_message: eb.ref('excluded.error_message'),
          completed_at: eb.ref('excluded.completed_at'),
        }))
        .where('payout_attempts.status', '=', 'processing'),
    );
}

/** Raises the payout's attempt_count to at least `number` (alone, for an attempt that is retried). */
async function raiseAttemptCount(tx: DbOrTx, payoutId: string, number: number): Promise<void> {
  await tx
    .updateTable('payouts')
    .set((eb) => ({ attempt_count: eb.fn('greatest', [eb.ref('attempt_count'), eb.val(number)]) }))
    .where('id', '=', payoutId)
    .where('attempt_count', '<', number)
    .execute();
}

/**
 * Moves a payout to `to` in one transaction (spec "Payout status"): a row already at or past `to`, or
 * not in `patch.onlyFrom`, is returned unchanged; a move the table forbids throws
 * {@link IllegalPayoutTransitionError}; else updates the row, posts the table's movement (keys
 * `payout:{id}:<movement>`), emits EVENT_ON_ENTER[to] and returns the updated row.
 */
export async function transitionPayout(core: Core, payoutId: string, to: PayoutStatus, patch: TransitionPatch = {}): Promise<PayoutRow> {
  return core.db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('payouts').selectAll().where('id', '=', payoutId).forUpdate().executeTakeFirst();
    if (!row) throw new Error(`payout ${payoutId} does not exist`);
    if (row.status === to) return row;
    if (patch.onlyFrom && !patch.onlyFrom.includes(row.status as PayoutStatus)) return row;
    // Already past `to` (a replayed move of a lost workflow task): unchanged; the caller follows the row.
    if ((PAYOUT_STATUSES as readonly string[]).includes(row.status) && hasPassed(row.status as PayoutStatus, to)) return row;
    if (!(PAYOUT_STATUSES as readonly string[]).includes(row.status) || !canTransition(row.status as PayoutStatus, to)) {
      throw new IllegalPayoutTransitionError(payoutId, row.status, to);
    }
    const now = core.now();
    const set: Updateable<PayoutsTable> = { status: to, updated_at: now };
    if (patch.attempt && row.attempt_count < patch.attempt.number) set.attempt_count = patch.attempt.number;
    if (patch.failure) {
      set.failure_code = patch.failure.code;
      set.failure_message = patch.failure.message;
      set.failure_retryable = patch.failure.retryable ?? null;
      set.failure_rail_reason_code = patch.failure.railReasonCode ?? null;
    }
    if (patch.providerReference !== undefined) set.provider_reference = patch.providerReference;
    if (patch.claim) {
      set.claim_token = patch.claim.token;
      set.claim_expires_at = patch.claim.expiresAt;
    }
    if (to === 'claimed') {
      set.claimed_at = now;
      set.claim_method = patch.claimMethod ?? null;
    }
    if (to === 'succeeded') {
      const booked = patch.deliveredAt ? new Date(patch.deliveredAt) : null;
      set.delivered_at = booked && !Number.isNaN(booked.getTime()) ? booked : now;
      set.confirmed_received_at = set.delivered_at;
    }
    if (to === 'refunded') set.confirmed_received_at = null;
    if (to === 'submitted' && row.attempt_count < 1) set.attempt_count = 1;

    // One statement: attempt, projection, event and money movement (docs/benchmarks.md).
    const event = payoutEventInput(core, { ...row, ...set } as PayoutRow, to);
    const money = MONEY_ON_ENTER[to];
    const posting: Posting | null = money
      ? { businessId: row.business_id, environment: row.environment, key: `payout:${payoutId}:${money.name}`, from: money.from, to: money.to, amount: row.debit_total }
      : null;
    const ctes: RawBuilder<unknown>[] = [sql`payout as (${tx.updateTable('payouts').set(set).where('id', '=', payoutId).returningAll()})`];
    if (patch.attempt) ctes.push(sql`attempt as (${finishAttemptQuery(tx, payoutId, patch.attempt.number, patch.attempt, now)})`);
    if (event) ctes.push(sql`event as (${eventInsertQuery(tx, event)})`);
    if (posting) ctes.push(postingCtes(posting));
    const r = await sql<PayoutRow & { event_written: number; posted: number; moved: number }>`with ${sql.join(ctes, sql`, `)}
      select payout.*,
        ${event ? sql`(select count(*) from event)::int` : sql`0`} as event_written,
        ${posting ? sql`(select count(*) from posting)::int` : sql`0`} as posted,
        ${posting ? sql`(select count(*) from balance)::int` : sql`0`} as moved
      from payout`.execute(tx);
    const { event_written: eventWrittenCount, posted, moved, ...updated } = r.rows[0]!;
    if (posting && (await resolvePostingOutcome(tx, posting, posted, moved)) === 'unapplied') throw new InsufficientFundsError(posting.from, posting.amount);
    if (event && eventWrittenCount > 0) eventWritten(event);
    return updated as PayoutRow;
  });
}

/** Opens a claim-link payout's claim (submitted -> awaiting_claim, expiry now + `windowMs`); idempotent. */
export async function openClaim(core: Core, payoutId: string, windowMs: number): Promise<PayoutRow> {
  const row = await core.db.selectFrom('payouts').selectAll().where('id', '=', payoutId).executeTakeFirst();
  if (row && row.status === 'awaiting_claim') return row;
  return transitionPayout(core, payoutId, 'awaiting_claim', {
    claim: { token: row?.claim_token ?? randomToken(18), expiresAt: new Date(core.now().getTime() + windowMs) },
  });
}

/** Records that attempt `number` started (idempotent upsert) and raises attempt_count; returns the attempt row. */
export async function recordAttemptStart(core: Core, payoutId: string, number: number): Promise<PayoutAttemptRow> {
  const now = core.now();
  const r = await sql<PayoutAttemptRow>`
    with started as (
      insert into payout_attempts (payout_id, number, status, provider_reference, error_code, error_message, started_at, completed_at)
      values (${payoutId}, ${number}, 'processing', null, null, null, ${now}, null)
      on conflict (payout_id, number) do nothing
      returning *
    ), counted as (
      update payouts set attempt_count = ${number}, updated_at = ${now} where id = ${payoutId} and attempt_count < ${number}
    )
    select * from started
    union all
    select * from payout_attempts where payout_id = ${payoutId} and number = ${number} and not exists (select 1 from started)`.execute(core.db);
  const row = r.rows[0];
  if (!row) throw new Error(`payout ${payoutId}: attempt ${number} was not recorded`);
  return row;
}

/** The states a payout may enter `delivering` from (the transition table: submitted, claimed). */
const DELIVERING_FROM: readonly PayoutStatus[] = PAYOUT_STATUSES.filter((s) => canTransition(s, 'delivering'));

/**
 * `transitionPayout(…, 'delivering')` plus {@link recordAttemptStart} in one guarded UPDATE, for a
 * sandbox payout or one whose rail is in `liveRails`. Returns the moved row and the attempt's stored
 * provider reference, or null when nothing moved (the caller then takes the general path).
 */
export async function startDelivery(
  core: Core,
  payoutId: string,
  number: number,
  liveRails: readonly string[],
): Promise<{ payout: PayoutRow; existingProviderReference: string | null } | null> {
  if (EVENT_ON_ENTER.delivering || MONEY_ON_ENTER.delivering || DELIVERING_FROM.length === 0) return null;
  const now = core.now();
  const hasAdapter = liveRails.length > 0 ? sql`(environment = 'sandbox' or rail in (${sql.join([...liveRails])}))` : sql`environment = 'sandbox'`;
  const r = await sql<PayoutRow & { existing_provider_reference: string | null }>`
    with moved as (
      update payouts set status = 'delivering', updated_at = ${now}, attempt_count = greatest(attempt_count, ${number})
      where id = ${payoutId} and status in (${sql.join([...DELIVERING_FROM])}) and ${hasAdapter}
      returning *
    ), started as (
      insert into payout_attempts (payout_id, number, status, provider_reference, error_code, error_message, started_at, completed_at)
      select id, ${number}::int, 'processing', null::text, null::text, null::text, ${now}::timestamptz, null::timestamptz from moved
      on conflict (payout_id, number) do nothing
      returning provider_reference
    )
    select moved.*,
      (select provider_reference from payout_attempts where payout_id = ${payoutId} and number = ${number} and not exists (select 1 from started)) as existing_provider_reference
    from moved`.execute(core.db);
  const row = r.rows[0];
  if (!row) return null;
  const { existing_provider_reference: existingProviderReference, ...payout } = row;
  return { payout: payout as PayoutRow, existingProviderReference };
}

/** Stores the provider reference the rail gave attempt `number` (kept if one is already stored). */
export async function recordAttemptProviderReference(core: Core, payoutId: string, number: number, providerReference: string): Promise<void> {
  await core.db
    .updateTable('payout_attempts')
    .set({ provider_reference: providerReference })
    .where('payout_id', '=', payoutId)
    .where('number', '=', number)
    .where('provider_reference', 'is', null)
    .execute();
}

/** Records the result of a retried attempt `number` (idempotent: the first result is kept). */
export async function recordAttemptResult(core: Core, payoutId: string, number: number, result: AttemptResult): Promise<void> {
  await core.db.transaction().execute(async (tx) => {
    await finishAttemptQuery(tx, payoutId, number, result, core.now()).execute();
    await raiseAttemptCount(tx, payoutId, number);
  });
}

/** The body of a CTE inserting payout row `values` selected with `gate` appended, returning the row. */
export function payoutInsertSelect(values: Record<string, unknown>, gate: RawBuilder<unknown>): RawBuilder<unknown> {
  const { columns, values: vals } = columnsAndValues(values);
  return sql`insert into payouts (${columns}) select ${vals}${gate} returning *`;
}

/** Inserts a JSON array of payout rows in one statement (only `columns` if given); a duplicate fails it. */
export async function insertPayoutRowsJson(tx: DbOrTx, json: string, columns?: readonly string[]): Promise<void> {
  if (!columns) {
    await sql`insert into payouts select * from jsonb_populate_recordset(null::payouts, ${json}::jsonb)`.execute(tx);
    return;
  }
  const cols = columnList(columns);
  await sql`insert into payouts (${cols}) select ${cols} from jsonb_populate_recordset(null::payouts, ${json}::jsonb)`.execute(tx);
}

/** Sets `claim_started_at` on the awaiting payout with claim `token` (no start or cancel under way); row or undefined. */
export async function markClaimStarted(db: DbOrTx, token: string, now: Date): Promise<PayoutRow | undefined> {
  return db
    .updateTable('payouts')
    .set({ claim_started_at: now, updated_at: now })
    .where('claim_token', '=', token)
    .where('status', '=', 'awaiting_claim')
    .where('claim_started_at', 'is', null)
    .where('cancel_requested_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Marks a cancel of claim-link payout `id` under way; false once its claim started or it moved on. */
export async function markCancelRequested(db: DbOrTx, id: string, now: Date): Promise<boolean> {
  const marked = await db
    .updateTable('payouts')
    .set({ cancel_requested_at: now })
    .where('id', '=', id)
    .where('claim_started_at', 'is', null)
    .where('status', 'in', ['pending', 'submitted', 'awaiting_claim'])
    .executeTakeFirst();
  return Boolean(marked.numUpdatedRows);
}

/** Clears the cancel mark of payout `id` unless it was canceled (a cancel that did not happen). */
export async function clearCancelRequested(db: DbOrTx, id: string): Promise<void> {
  await db.updateTable('payouts').set({ cancel_requested_at: null }).where('id', '=', id).where('status', '!=', 'canceled').execute();
}

/** The payout holding Idempotency-Key `key` since `cutoff`; the same statement retires an older holder's key. */
export async function findOrRetirePayoutIdempotencyKey(
  db: DbOrTx,
  caller: { businessId: string; environment: PayoutRow['environment'] },
  key: string,
  cutoff: Date,
): Promise<PayoutRow | undefined> {
  return db
    .with('retired', (d) =>
      d
        .updateTable('payouts')
        .set({ idempotency_key: sql<string>`idempotency_key || '#retired:' || id` })
        .where('business_id', '=', caller.businessId)
        .where('environment', '=', caller.environment)
        .where('idempotency_key', '=', key)
        .where('created_at', '<', cutoff)
        .returning('id'),
    )
    .selectFrom('payouts')
    .selectAll()
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .where('idempotency_key', '=', key)
    .where('created_at', '>=', cutoff)
    .executeTakeFirst();
}
