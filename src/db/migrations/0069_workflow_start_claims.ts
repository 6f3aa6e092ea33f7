import type { Kysely } from 'kysely';

/**
 * `workflow_starts.claimed_until`: the lease of the process that is making a recorded start
 * (src/core/workflow-starts.ts, docs/architecture.md "Outboxes"). A row whose lease has not run out
 * is left alone by every other process's sweep; a row whose claimer died is swept once the lease
 * ends. Null: never claimed (swept once older than the relay's grace period).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('workflow_starts').addColumn('claimed_until', 'timestamptz').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('workflow_starts').dropColumn('claimed_until').execute();
}
