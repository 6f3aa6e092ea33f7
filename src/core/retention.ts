/**
 * Data retention (docs/operations.md "Data retention"): rows past their documented retention are
 * deleted in bounded batches (at most RETENTION_BATCH rows per statement, each a short
 * transaction on its own, so a table of millions of rows is trimmed without long locks). Run by
 * the durable retentionWorkflow (workflows/retention.ts) every RETENTION_INTERVAL. Idempotent: a
 * sweep that dies half-way is simply run again.
 *
 * | rows | kept | why |
 * |---|---|---|
 * | `events` dispatched | 30 days | the events API serves 30 days (docs/webhooks.md) |
 * | `webhook_deliveries` completed, with their `webhook_attempts` | 30 days | the deliveries API serves what the events API serves |
 * | `workflow_starts` started | 7 days | the outbox only needs rows not yet started; 7 days leave room to investigate |
 * | `idempotency_keys` | until `expires_at` | 30 days on Surfaces A and C, 24 hours on B (spec "Limits") |
 *
 * Each table's owner module (docs/architecture.md "Table owners") deletes its rows; this module
 * only schedules the batches.
 */
import { parseDuration } from '../domain/durations';
import { startRetentionWorkflow } from '../temporal/retention-gateway';
import type { Core } from './context';
import { purgeDispatchedEvents } from './events';
import { purgeExpiredIdempotencyRecords } from './idempotency-records';
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

/** One sweep (see the file header): up to RETENTION_BATCHES_PER_CALL batches per table. */
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
  deleted.idempotency_keys = await drain(() => purgeExpiredIdempotencyRecords(core.db, now, RETENTION_BATCH));
  if (Object.values(deleted).some((n) => n > 0)) core.log.info({ deleted, more }, 'retention sweep');
  return { deleted, more };
}

/** Starts the retention loop (idempotent). Throws when Temporal cannot be reached. */
export async function startRetention(core: Core): Promise<void> {
  await startRetentionWorkflow(core.temporal, core.config, { intervalMs: parseDuration(core.config.RETENTION_INTERVAL) });
}
