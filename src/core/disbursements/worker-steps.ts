/**
 * The worker-side steps of a disbursement run, called by activities/disbursements.ts (claim,
 * finalize, projection status) and by the relay (recovery of lost runs).
 */
import { sql } from 'kysely';
import { assertCanApply, completionStatus, DISBURSEMENT_EVENT_ON_ENTER, type DisbursementStatus } from '../../domain/disbursement-state';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { type ClaimedItem, claimedItemArgs, type ClaimResult, type ClaimStartResult, type FinalizeResult } from '../../../workflows/disbursement.contract';
import type { KeywordAttributes } from '../../temporal/client';
import { isDisbursementRunRunning } from '../../temporal/disbursement-gateway';
import { startRecordedWorkflow } from '../../temporal/starts';
import { taskQueueFor } from '../../temporal/task-queues';
import type { Caller, Core } from '../context';
import { emitEvent, eventRow, eventWritten, insertNewEventRowsJson } from '../events';
import { InsufficientFundsError, post } from '../ledger';
import { type PayoutRow, payoutStart, payoutValues, type PreparedPayout, preparePayout } from '../payouts';
import { insertPayoutRowsJson, payoutEventInput } from '../payouts/transitions';
import { itemRequest } from './review';
import { itemAggregates, loadDisbursement } from './read';
import { signalWithStart } from './run-control';
import { markItemsLaunched, updateDisbursement, updateDisbursementItem } from './disbursement-store';
import { disbursementFinishedEvent } from '../../domain/domain-events';

/** Result of {@link claimItems} (defined by the disbursement workflow's contract). */
export type { ClaimResult };

/** Payout statuses that occupy a slot of the window (on a rail; a claim link awaiting its recipient does not). */
const WINDOW_STATUSES = ['pending', 'submitted', 'claimed', 'delivering'] as const;

/** Rows as one jsonb parameter (bigints as decimal strings, dates as ISO 8601). */
const jsonRows = (rows: unknown[]) => JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

function claimedItem(core: Core, row: Parameters<typeof payoutStart>[0], itemId: string): ClaimedItem {
  const s = payoutStart(row);
  return {
    itemId,
    payoutId: row.id,
    workflowType: s.workflowType,
    taskQueue: taskQueueFor(core.config, s.workflowType),
    args: s.args,
    searchAttributes: s.searchAttributes,
  };
}

/**
 * Claim `claimSeq` of a disbursement's workflow: up to `limit` pending items become submitted payouts
 * (funding 'batch', in three statements), never more than `window` in flight (`{full: true}`);
 * paused -> `{paused: true}`. An item that can no longer be paid fails with that error's code and
 * its hold share is released. Idempotent: a retried claim returns the same items.
 */
export async function claimItems(
  core: Core,
  input: { disbursementId: string; claimSeq: number; limit: number; window?: number },
): Promise<ClaimResult> {
  const { disbursementId, claimSeq } = input;
  const head = await core.db.selectFrom('disbursements').selectAll().where('id', '=', disbursementId).executeTakeFirst();
  if (!head) return { paused: false, more: false, items: [] };
  let limit = Math.max(1, input.limit);
  /** The window, not `limit`, bounds this claim: once it is filled the window is full. */
  let windowBound = false;
  // A retried claim (same number) returns what it claimed, whatever the window says now.
  const retried =
    input.window !== undefined &&
    (await core.db
      .selectFrom('disbursement_items')
      .select('id')
      .where('disbursement_id', '=', disbursementId)
      .where('claim_seq', '=', claimSeq)
      .limit(1)
      .executeTakeFirst()) !== undefined;
  if (input.window !== undefined && !retried) {
    const { n } = await core.db
      .selectFrom('payouts')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('disbursement_id', '=', disbursementId)
      .where('status', 'in', WINDOW_STATUSES)
      .executeTakeFirstOrThrow();
    const free = input.window - Number(n);
    if (free <= limit) windowBound = true;
    limit = Math.min(limit, free);
    if (limit <= 0) return { paused: head.status === 'paused', more: true, full: true, items: [] };
  }
  const caller: Caller = {
    businessId: head.business_id,
    environment: head.environment,
    keyId: head.launched_by_key_id ?? head.created_by_key_id,
    role: 'member',
    policy: null,
  };
  const candidates = await core.db
    .selectFrom('disbursement_items')
    .selectAll()
    .where('disbursement_id', '=', disbursementId)
    .where('status', '=', 'pending')
    .orderBy('seq')
    .limit(limit)
    .execute();
  // Prepare outside the transaction (read-only; PGlite has one connection).
  const prepared = new Map<string, PreparedPayout | ApiError>();
  for (const it of candidates) {
    try {
      prepared.set(it.id, await preparePayout(core, caller, itemRequest(it)));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      prepared.set(it.id, err);
    }
  }

  return core.db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('disbursements').selectAll().where('id', '=', disbursementId).forUpdate().executeTakeFirstOrThrow();
    const already = await tx
      .selectFrom('disbursement_items as i')
      .innerJoin('payouts as p', 'p.id', 'i.payout_id')
      .select(['i.id as item_id', 'p.id', 'p.business_id', 'p.environment', 'p.status', 'p.channel', 'p.disbursement_id'])
      .where('i.disbursement_id', '=', disbursementId)
      .where('i.claim_seq', '=', claimSeq)
      .where('i.status', '=', 'launched')
      .orderBy('i.seq')
      .execute();
    const pendingLeft = async () =>
      !!(await tx
        .selectFrom('disbursement_items')
        .select('id')
        .where('disbursement_id', '=', disbursementId)
        .where('status', '=', 'pending')
        .limit(1)
        .executeTakeFirst());
    if (already.length > 0) {
      return { paused: false, more: await pendingLeft(), items: already.map((a) => claimedItem(core, { ...a, status: 'submitted' }, a.item_id)) };
    }
    if (row.status === 'paused') return { paused: true, more: true, items: [] };
    if (row.status !== 'processing') return { paused: false, more: false, items: [] };

    const ids = candidates.map((c) => c.id);
    const locked = ids.length
      ? await tx
          .selectFrom('disbursement_items')
          .selectAll()
          .where('id', 'in', ids)
          .where('status', '=', 'pending')
          .orderBy('seq')
          .forUpdate()
          .execute()
      : [];
    const now = core.now();
    const claimed: ClaimedItem[] = [];
    /** Items that get their payout in this claim (inserted together below). */
    const launched: { item: (typeof locked)[number]; prepared: PreparedPayout; payoutId: string }[] = [];
    // Payouts these items already have (one query): never a second payout for an attempt, nor any
    // payout once one succeeded or is still in flight.
    const priorRows = locked.length
      ? await sql<{ item_id: string; attempt: number | null; status: string }>`
          select disbursement_item_id as item_id, disbursement_attempt as attempt, status from payouts
          where disbursement_item_id in (${sql.join(locked.map((l) => l.id))})`.execute(tx)
      : { rows: [] };
    const blocked = new Set(
      priorRows.rows
        .filter((p) => p.status !== 'failed' && p.status !== 'canceled')
        .map((p) => p.item_id)
        .concat(priorRows.rows.filter((p) => p.attempt !== null && locked.some((l) => l.id === p.item_id && l.attempt === p.attempt)).map((p) => p.item_id)),
    );
    for (const it of locked) {
      const p = prepared.get(it.id);
      const attempt = it.attempt;
      const held = it.debit_total ?? 0n;
      const fail = async (code: string, message: string) => {
        if (held > 0n) {
          await post(tx, {
            businessId: row.business_id,
            environment: row.environment,
            key: `disbursement_item:${it.id}:attempt:${attempt}:release`,
            from: 'held',
            to: 'available',
            amount: held,
          });
        }
        await updateDisbursementItem(tx, it.id, { status: 'failed', failure_code: code, failure_message: message, claim_seq: claimSeq, updated_at: now });
      };
      if (!p || p instanceof ApiError) {
        await fail(p?.code ?? 'internal_error', p?.message ?? 'The item could not be prepared');
        continue;
      }
      if (blocked.has(it.id)) {
        await fail('duplicate_attempt', `Item ${it.id} already has a payout for attempt ${attempt} or one that did not fail`);
        continue;
      }
      const diff = p.price.debitTotal - held;
      try {
        if (diff !== 0n) {
          await post(tx, {
            businessId: row.business_id,
            environment: row.environment,
            key: `disbursement_item:${it.id}:attempt:${attempt}:${diff > 0n ? 'topup' : 'excess'}`,
            from: diff > 0n ? 'available' : 'held',
            to: diff > 0n ? 'held' : 'available',
            amount: diff > 0n ? diff : -diff,
          });
        }
      } catch (err) {
        if (!(err instanceof InsufficientFundsError)) throw err;
        await fail('insufficient_balance', 'The fee of this item rose since review and the balance does not cover the difference');
        continue;
      }
      launched.push({ item: it, prepared: p, payoutId: newId('po') });
    }
    if (launched.length) {
      // Three statements whatever the claim's size (docs/benchmarks.md "2026-11-26 (evening)", item 3), rows as
      // one jsonb parameter each; the payout columns are insertPayout's, so the others keep their defaults.
      const rows = launched.map(({ item, prepared: p, payoutId }) => {
        const values = payoutValues(caller, p, { id: payoutId, status: 'submitted', now, disbursementId, disbursementItemId: item.id });
        // The attempt is part of the row (unique per item and attempt: never a second payout for it).
        return { ...values, recipient_details: p.recipientDetails, disbursement_attempt: item.attempt } as unknown as PayoutRow & Record<string, unknown>;
      });
      await insertPayoutRowsJson(tx, jsonRows(rows), Object.keys(rows[0]!));
      const events = rows.map((r) => payoutEventInput(core, { ...r, claim_started_at: null, cancel_requested_at: null, claim_batch_id: null }, 'submitted')!);
      const eventRows = events.map((e) => eventRow(e));
      const writtenKeys = await insertNewEventRowsJson(tx, Object.keys(eventRows[0]!), jsonRows(eventRows));
      for (const e of events) if (writtenKeys.has(e.dedupeKey)) eventWritten(e);
      await markItemsLaunched(
        tx,
        launched.map((l) => ({ itemId: l.item.id, payoutId: l.payoutId })),
        claimSeq,
        now,
      );
      for (const r of rows) claimed.push(claimedItem(core, r, r.disbursement_item_id!));
    }
    // The claim filled the window: say so, so the workflow waits for payouts to finish instead of
    // asking again at once for nothing (an empty claim costs an activity and a transaction).
    const filled = windowBound && claimed.length >= limit;
    return { paused: false, more: await pendingLeft(), ...(filled ? { full: true } : {}), items: claimed };
  });
}

/** {@link claimItems}, then its items' workflows started (idempotent: a retried claim returns the same items); throws what a start throws. */
export async function claimAndStartItems(
  core: Core,
  input: { disbursementId: string; claimSeq: number; limit: number; window?: number },
): Promise<ClaimStartResult> {
  const { items, ...flags } = await claimItems(core, input);
  await Promise.all(
    items.map((item) =>
      startRecordedWorkflow(core.temporal, core.config, item.workflowType, {
        workflowId: item.payoutId,
        args: claimedItemArgs(item, true),
        searchAttributes: item.searchAttributes as KeywordAttributes,
      }),
    ),
  );
  return { ...flags, started: items.length };
}

/** Result of {@link finalizeDisbursement} (defined by the disbursement workflow's contract). */
export type { FinalizeResult };

/** When every item is final: completed or completed_with_failures with its event, under the disbursement's lock; else what is left. Idempotent. */
export async function finalizeDisbursement(core: Core, input: { disbursementId: string }): Promise<FinalizeResult> {
  return core.db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('disbursements').selectAll().where('id', '=', input.disbursementId).forUpdate().executeTakeFirstOrThrow();
    if (row.status === 'completed' || row.status === 'completed_with_failures') return { done: true, status: row.status };
    const agg = await itemAggregates(tx, row.id);
    if (agg.pending > 0 || agg.processing > 0 || agg.ready > 0) {
      return { done: false, paused: row.status === 'paused', pending: agg.pending, processing: agg.processing };
    }
    assertCanApply(row.status as DisbursementStatus, 'complete');
    const status = completionStatus(agg.failed + agg.refunded);
    const now = core.now();
    const updated = await updateDisbursement(tx, row.id, { status, completed_at: now, paused_at: null, updated_at: now });
    const d = await loadDisbursement(tx, updated);
    await emitEvent(tx, disbursementFinishedEvent({ businessId: row.business_id, environment: row.environment }, DISBURSEMENT_EVENT_ON_ENTER[status], d, status, row.retry_round));
    return { done: true, status };
  });
}

/**
 * Relay recovery: restarts by signal-with-start every `processing` disbursement idle `olderThanMs`
 * (default 30 s) whose workflow is not running. Idempotent; returns how many runs it started; one
 * disbursement's error is logged and does not stop the others.
 */
export async function recoverDisbursementRuns(core: Core, opts: { olderThanMs?: number } = {}): Promise<number> {
  const before = new Date(core.now().getTime() - (opts.olderThanMs ?? 30_000));
  const rows = await core.db
    .selectFrom('disbursements')
    .selectAll()
    .where('status', '=', 'processing')
    .where('updated_at', '<=', before)
    .execute();
  let started = 0;
  for (const row of rows) {
    try {
      if (await isDisbursementRunRunning(core.temporal, row.id)) continue;
      await signalWithStart(core, row, 'retryFailed');
      core.log.info({ disbursementId: row.id }, 'disbursement run restarted by the relay');
      started++;
    } catch (err) {
      core.log.warn({ err, disbursementId: row.id }, 'disbursement run recovery failed; retrying later');
    }
  }
  return started;
}

/** The projection's status of a disbursement (the workflow re-reads it while paused). */
export async function projectionStatus(core: Core, input: { disbursementId: string }): Promise<string> {
  const row = await core.db.selectFrom('disbursements').select('status').where('id', '=', input.disbursementId).executeTakeFirst();
  return row?.status ?? 'missing';
}
