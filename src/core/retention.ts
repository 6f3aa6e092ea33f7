/**
 * Data retention (docs/operations.md "Data retention" lists what is kept how long): rows past
 * retention are deleted in bounded batches, each a short transaction; idempotent. Each table's
 * owner module deletes its own rows; expired `idempotency_keys` are deleted here.
 */
import { sql } from 'kysely';
import { parseDuration } from '../domain/durations';
import { startRetentionWorkflow } from '../temporal/retention-gateway';
import type { Core } from './context';
import { purgeDispatchedEvents } from './events';
import { purgeCompletedDeliveries } from './webhooks';
import { purgeStartedWorkflowStarts } from './workflow-starts';

export const RETENTION_BATCH = 1000;
/** The workflow calls again while a table had more. */
export const RETENTION_BATCHES_PER_CALL = 20;
export const EVENT_RETENTION_MS = 30 * 24 * 3600 * 1000;
export const WORKFLOW_START_RETENTION_MS = 7 * 24 * 3600 * 1000;

export interface RetentionSweepResult {
  deleted: Record<'events' | 'webhook_deliveries' | 'webhook_attempts' | 'workflow_starts' | 'idempotency_keys', number>;
  more: boolean;
}

async function purgeExpiredIdempotencyKeys(core: Core, now: Date, limit: number): Promise<number> {
  const r = await sql<{ n: string }>`
    with gone as (
      delete from idempotency_keys where ctid in (select ctid from idempotency_keys where expires_at < ${now} limit ${limit})
      returning 1
    ) select count(*)::text as n from gone`.execute(core.db);
  return Number(r.rows[0]?.n ?? 0);
}

export async function sweepRetention(core: Core): Promise<RetentionSweepResult> {
  const now = core.now();
  const eventsCutoff = new Date(now.getTime() - EVENT_RETENTION_MS);
  const startsCutoff = new Date(now.getTime() - WORKFLOW_START_RETENTION_MS);
  const deleted: RetentionSweepResult['deleted'] = { events: 0, webhook_deliveries: 0, webhook_attempts: 0, workflow_starts: 0, idempotency_keys: 0 };
  let more = false;
  const drain = async (fn: () => Promise<number>): Promise<number> => {
    let total = 0;
    for (let i = 0; i < RETENTION_BATCHES_PER_CALL; i++) {
      const n = await fn();
      total += n;
      if (n < RETENTION_BATCH) return total;
    }
    more = true;
    return total;
  };
  // Deliveries (and their attempts) before events, so no delivery outlives its event.
  deleted.webhook_deliveries = await drain(async () => {
    const r = await purgeCompletedDeliveries(core.db, eventsCutoff, RETENTION_BATCH);
    deleted.webhook_attempts += r.attempts;
    return r.deliveries;
  });
  deleted.events = await drain(() => purgeDispatchedEvents(core.db, eventsCutoff, RETENTION_BATCH));
  deleted.workflow_starts = await drain(() => purgeStartedWorkflowStarts(core.db, startsCutoff, RETENTION_BATCH));
  deleted.idempotency_keys = await drain(() => purgeExpiredIdempotencyKeys(core, now, RETENTION_BATCH));
  if (Object.values(deleted).some((n) => n > 0)) core.log.info({ deleted, more }, 'retention sweep');
  return { deleted, more };
}

/** Starts the retention loop (idempotent). Throws when Temporal cannot be reached. */
export async function startRetention(core: Core): Promise<void> {
  await startRetentionWorkflow(core.temporal, core.config, { intervalMs: parseDuration(core.config.RETENTION_INTERVAL) });
}
