import { type RawBuilder, sql } from 'kysely';
import type { KeywordAttributes } from '../temporal/client';
import { startRecordedWorkflow } from '../temporal/starts';
import type { DbOrTx } from '../db/schema';
import type { Core } from './context';
import { columnsAndValues } from './sql-rows';

/**
 * The outbox of workflow starts. A transaction that accepts work (a payout, a launch) also writes
 * the start it needs; after commit the caller starts it at once, and the worker's relay starts any
 * left behind by a process that died in between. So there is never accepted work without its
 * workflow (docs/architecture.md "Money rules", rule 5), and a start is never lost.
 */
export interface PendingStart {
  workflowId: string;
  workflowType: string;
  args: unknown[];
  searchAttributes: KeywordAttributes;
}

/** Records a start inside the caller's transaction (idempotent on the workflow id). */
export async function enqueueWorkflowStart(tx: DbOrTx, start: PendingStart): Promise<void> {
  await tx
    .insertInto('workflow_starts')
    .values(workflowStartValues(start))
    .onConflict((oc) => oc.column('workflow_id').doNothing())
    .execute();
}

/** The `workflow_starts` row of `start` (for {@link workflowStartInsertSelect}). */
export function workflowStartValues(start: PendingStart) {
  return {
    workflow_id: start.workflowId,
    workflow_type: start.workflowType,
    args: JSON.stringify(start.args) as any,
    search_attributes: JSON.stringify(start.searchAttributes) as any,
  };
}

/**
 * The body of a CTE inserting the start row `values` ({@link workflowStartValues}) `select`ed with
 * `gate` appended (`from balance` in the one-statement payout accept, src/core/payouts/accept.ts),
 * idempotent on the workflow id, returning `workflow_id`.
 */
export function workflowStartInsertSelect(values: ReturnType<typeof workflowStartValues>, gate: RawBuilder<unknown>): RawBuilder<unknown> {
  const { columns, values: vals } = columnsAndValues(values);
  return sql`insert into workflow_starts (${columns}) select ${vals}${gate} on conflict (workflow_id) do nothing returning workflow_id`;
}

/**
 * Records many starts in one statement: `json` is a JSON array of complete `workflow_starts` rows
 * (expanded by jsonb_populate_recordset; Surface B's batch, src/core/claim-flow/batch.ts). A
 * workflow id already recorded is skipped.
 */
export async function insertWorkflowStartRowsJson(tx: DbOrTx, json: string): Promise<void> {
  await sql`insert into workflow_starts select * from jsonb_populate_recordset(null::workflow_starts, ${json}::jsonb) on conflict (workflow_id) do nothing`.execute(tx);
}

/**
 * Starts the recorded workflow now (after commit) and marks it started. Safe to call twice.
 * `recorded`: the start as the caller just wrote it (saves reading it back); without it the row is
 * read, and nothing happens if it is already marked started. Returns whether a start was made
 * (false: no unstarted row). Throws what the Temporal start throws (the row stays for the relay).
 *
 * The marks are written in batches ({@link markStarted}): one UPDATE for the starts of the last
 * few milliseconds instead of one per start. A mark lost with its process costs only a second,
 * idempotent start by the relay's sweep.
 */
export async function flushWorkflowStart(core: Core, workflowId: string, recorded?: PendingStart): Promise<boolean> {
  let start: PendingStart | undefined = recorded;
  if (!start) {
    const row = await core.db
      .selectFrom('workflow_starts')
      .selectAll()
      .where('workflow_id', '=', workflowId)
      .where('started_at', 'is', null)
      .executeTakeFirst();
    if (!row) return false;
    start = { workflowId: row.workflow_id, workflowType: row.workflow_type, args: row.args, searchAttributes: row.search_attributes };
  }
  await startRecordedWorkflow(core.temporal, core.config, start.workflowType, {
    workflowId: start.workflowId,
    args: start.args,
    searchAttributes: start.searchAttributes,
  });
  markStarted(core, workflowId);
  return true;
}

/**
 * The starts handed off by {@link handOffWorkflowStart}, per Core (one per process, several in
 * tests): a FIFO queue and the number being made now.
 */
interface Starter {
  queue: PendingStart[];
  inFlight: number;
  /** Resolvers of {@link drainWorkflowStarts} waiting for the queue to empty. */
  drained: Array<() => void>;
}
const starters = new WeakMap<Core, Starter>();
/**
 * How many handed-off starts one process makes at once (each is one gRPC call to the Temporal
 * frontend), and the most it queues; past that a start is left to the relay's sweep, which makes
 * it within seconds (docs/benchmarks.md "2026-11-26 (evening)").
 */
export const STARTER_CONCURRENCY = 32;
export const STARTER_QUEUE_MAX = 20_000;

/**
 * Hands a start already recorded in the outbox (committed) to this process's starter and returns
 * at once: the caller answers its request without waiting for Temporal. The starter makes it
 * within milliseconds ({@link flushWorkflowStart}, at most {@link STARTER_CONCURRENCY} at once, in
 * the order handed off); if the start fails (Temporal unreachable), or the process dies first, or
 * the queue is full, the relay's sweep ({@link sweepWorkflowStarts}) makes it, so a committed
 * start is never lost. An Update or Signal sent before the start is made finds no workflow: the
 * caller makes the start first ({@link ensureWorkflowStarted}). Never throws.
 */
export function handOffWorkflowStart(core: Core, start: PendingStart): void {
  let s = starters.get(core);
  if (!s) {
    s = { queue: [], inFlight: 0, drained: [] };
    starters.set(core, s);
  }
  if (s.queue.length >= STARTER_QUEUE_MAX) {
    core.log.warn({ workflowId: start.workflowId }, 'workflow start queue full; the relay makes this start');
    return;
  }
  s.queue.push(start);
  pumpStarts(core, s);
}

function pumpStarts(core: Core, s: Starter): void {
  while (s.inFlight < STARTER_CONCURRENCY && s.queue.length > 0) {
    const start = s.queue.shift()!;
    s.inFlight++;
    flushWorkflowStart(core, start.workflowId, start)
      .catch((err: unknown) => core.log.warn({ err, workflowId: start.workflowId }, 'workflow start deferred to the relay'))
      .finally(() => {
        s.inFlight--;
        if (s.inFlight === 0 && s.queue.length === 0) for (const resolve of s.drained.splice(0)) resolve();
        pumpStarts(core, s);
      });
  }
}

/**
 * Resolves once every start handed off in this process has been made or given up (left to the
 * relay), or after `timeoutMs`: called before a process or test closes its Temporal connection.
 */
export async function drainWorkflowStarts(core: Core, timeoutMs = 5000): Promise<void> {
  const s = starters.get(core);
  if (!s || (s.inFlight === 0 && s.queue.length === 0)) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    new Promise<void>((resolve) => s.drained.push(resolve)),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * Makes the recorded start of `workflowId` if it has not been made (its outbox row is not marked
 * started): for a caller whose Update or Signal found no workflow, since a start handed off by
 * {@link handOffWorkflowStart} may still be queued, or left to the relay. Returns true when a
 * start was made (the caller then sends its message again), false when the row is marked started
 * or absent (the workflow ran and closed, or was never recorded). Throws what the start throws.
 */
export async function ensureWorkflowStarted(core: Core, workflowId: string): Promise<boolean> {
  return flushWorkflowStart(core, workflowId);
}

/** Starts waiting to be marked, per Core (one per process, several in tests). */
const pendingMarks = new WeakMap<Core, { ids: Set<string>; timer: ReturnType<typeof setTimeout> | null }>();
/** How long a mark waits for others to join its UPDATE, and the most one UPDATE carries. */
const MARK_DELAY_MS = 20;
const MARK_BATCH = 500;

/**
 * Queues `workflowId` to be marked started; the queue is written by one
 * `UPDATE workflow_starts SET started_at … WHERE workflow_id IN (…)` after {@link MARK_DELAY_MS}
 * or at {@link MARK_BATCH} ids. A failed write is logged and left to the relay.
 */
function markStarted(core: Core, workflowId: string): void {
  let q = pendingMarks.get(core);
  if (!q) {
    q = { ids: new Set(), timer: null };
    pendingMarks.set(core, q);
  }
  q.ids.add(workflowId);
  const flush = () => {
    q.timer = null;
    const ids = [...q.ids];
    q.ids.clear();
    void core.db
      .updateTable('workflow_starts')
      .set({ started_at: core.now() })
      .where('workflow_id', 'in', ids)
      .where('started_at', 'is', null)
      .execute()
      .catch((err: unknown) => core.log.warn({ err, count: ids.length }, 'workflow starts not marked; the relay marks them'));
  };
  if (q.ids.size >= MARK_BATCH) {
    if (q.timer) clearTimeout(q.timer);
    flush();
  } else if (!q.timer) {
    q.timer = setTimeout(flush, MARK_DELAY_MS);
    q.timer.unref?.();
  }
}

/**
 * Starts every recorded workflow older than `olderThanMs` that was never marked started (the
 * process that wrote it died before starting it). Returns how many were started.
 */
export async function sweepWorkflowStarts(core: Core, olderThanMs = 2000, limit = 500): Promise<number> {
  const rows = await core.db
    .selectFrom('workflow_starts')
    .select('workflow_id')
    .where('started_at', 'is', null)
    .where(sql<boolean>`created_at < now() - ${`${olderThanMs} milliseconds`}::interval`)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  for (const r of rows) await flushWorkflowStart(core, r.workflow_id);
  return rows.length;
}

/**
 * Deletes up to `limit` workflow-start rows started before `cutoff` (data retention,
 * src/core/retention.ts). A row not yet started is the relay's work and is never deleted.
 */
export async function purgeStartedWorkflowStarts(db: DbOrTx, cutoff: Date, limit: number): Promise<number> {
  const r = await db
    .deleteFrom('workflow_starts')
    .where('workflow_id', 'in', (eb) => eb.selectFrom('workflow_starts').select('workflow_id').where('started_at', '<', cutoff).limit(limit))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
