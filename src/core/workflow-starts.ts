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
    .values({
      workflow_id: start.workflowId,
      workflow_type: start.workflowType,
      args: JSON.stringify(start.args) as any,
      search_attributes: JSON.stringify(start.searchAttributes) as any,
    })
    .onConflict((oc) => oc.column('workflow_id').doNothing())
    .execute();
}

/** Starts the recorded workflow now (after commit) and marks it started. Safe to call twice. */
export async function flushWorkflowStart(core: Core, workflowId: string): Promise<void> {
  const row = await core.db
    .selectFrom('workflow_starts')
    .selectAll()
    .where('workflow_id', '=', workflowId)
    .where('started_at', 'is', null)
    .executeTakeFirst();
  if (!row) return;
  await startRecordedWorkflow(core.temporal, core.config, row.workflow_type, {
    workflowId: row.workflow_id,
    args: row.args,
    searchAttributes: row.search_attributes,
  });
  await core.db
    .updateTable('workflow_starts')
    .set({ started_at: core.now() })
    .where('workflow_id', '=', workflowId)
    .execute();
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
