import { sql } from 'kysely';
import type { KeywordAttributes } from '../temporal/client';
import { startRecordedWorkflow } from '../temporal/starts';
import type { DbOrTx } from '../db/schema';
import type { Core } from './context';

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

/** The `workflow_starts` row of `start` (for a caller that writes it in a statement of its own; insert with `on conflict (workflow_id) do nothing`). */
export function workflowStartValues(start: PendingStart) {
  return {
    workflow_id: start.workflowId,
    workflow_type: start.workflowType,
    args: JSON.stringify(start.args) as any,
    search_attributes: JSON.stringify(start.searchAttributes) as any,
  };
}

/**
 * Starts the recorded workflow now (after commit) and marks it started. Safe to call twice.
 * `recorded`: the start as the caller just wrote it (saves reading it back); without it the row is
 * read, and nothing happens if it is already marked started.
 *
 * The marks are written in batches ({@link markStarted}): one UPDATE for the starts of the last
 * few milliseconds instead of one per start. A mark lost with its process costs only a second,
 * idempotent start by the relay's sweep.
 */
export async function flushWorkflowStart(core: Core, workflowId: string, recorded?: PendingStart): Promise<void> {
  let start: PendingStart | undefined = recorded;
  if (!start) {
    const row = await core.db
      .selectFrom('workflow_starts')
      .selectAll()
      .where('workflow_id', '=', workflowId)
      .where('started_at', 'is', null)
      .executeTakeFirst();
    if (!row) return;
    start = { workflowId: row.workflow_id, workflowType: row.workflow_type, args: row.args, searchAttributes: row.search_attributes };
  }
  await startRecordedWorkflow(core.temporal, core.config, start.workflowType, {
    workflowId: start.workflowId,
    args: start.args,
    searchAttributes: start.searchAttributes,
  });
  markStarted(core, workflowId);
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
