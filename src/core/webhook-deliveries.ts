/** Webhook deliveries read back and re-sent (docs/webhooks.md "Resend and catch-up"); the event keeps its id. */
import { fieldError, fieldValidationError, notFound } from '../domain/errors';
import type { WebhookDelivery, WebhookDeliveryAttempt, WebhookDeliveryStatus, WebhookResend } from '../domain/webhooks';
import { surfaceAEventType } from '../domain/webhook-events';
import { surfaceCEventType } from '../domain/surface-c';
import type { Environment } from '../db/schema';
import type { Caller, Core } from './context';
import { eventWindow } from './event-log';
import { paginate, type Page } from './paging';
import { surfaceBEventType, surfaceBRetrySchedule } from '../domain/surface-b';
import { reopenDeliveries, WEBHOOK_DELIVERY_WORKFLOW, webhookRetrySchedule, type WebhookSurface } from './webhooks';
import { enqueueWorkflowStart, flushWorkflowStart, type PendingStart } from './workflow-starts';
import { scoped } from './tenancy';

export type { WebhookDelivery, WebhookDeliveryAttempt, WebhookResend } from '../domain/webhooks';

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const MAX_RESEND_BATCH = 1000;

const asDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));

function eventName(surface: string, type: string, data: Record<string, unknown>): string {
  const name = surface === 'B' ? surfaceBEventType(type, data) : surface === 'C' ? surfaceCEventType(type) : surfaceAEventType(type);
  return name ?? type;
}

async function liveEndpoint(core: Core, caller: Caller, endpointId: string, surface: WebhookSurface) {
  const ep = await scoped(core.db, caller)
    .selectFrom('webhook_endpoints')
    .select(['id', 'surface'])
    .where('id', '=', endpointId)
    .where('surface', '=', surface)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!ep) throw notFound('webhook endpoint', endpointId);
  return ep;
}

async function render(core: Core, surface: string, rows: DeliveryRow[]): Promise<WebhookDelivery[]> {
  const ids = rows.map((r) => r.id);
  const attempts = ids.length
    ? await core.db
        .selectFrom('webhook_attempts')
        .select(['delivery_id', 'status_code', 'error', 'duration_ms', 'created_at'])
        .where('delivery_id', 'in', ids)
        .orderBy('created_at')
        .orderBy('run')
        .orderBy('number')
        .execute()
    : [];
  const by = new Map<string, WebhookDeliveryAttempt[]>();
  for (const a of attempts) {
    const list = by.get(a.delivery_id) ?? [];
    list.push({ number: list.length + 1, attemptedAt: asDate(a.created_at), httpStatus: a.status_code, error: a.error, durationMs: a.duration_ms });
    by.set(a.delivery_id, list);
  }
  return rows.map((r) => ({
    id: r.id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    eventType: eventName(surface, r.type, r.data),
    status: r.status,
    attempts: by.get(r.id) ?? [],
    createdAt: asDate(r.created_at),
    completedAt: r.completed_at ? asDate(r.completed_at) : null,
  }));
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  type: string;
  data: Record<string, unknown>;
  status: WebhookDeliveryStatus;
  created_at: unknown;
  completed_at: unknown;
}

function deliveryQuery(core: Core, endpointId: string) {
  return core.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.id as id', 'd.endpoint_id', 'd.event_id', 'e.type', 'e.data', 'd.status', 'd.created_at', 'd.completed_at'])
    .where('d.endpoint_id', '=', endpointId);
}

/** An endpoint's deliveries with their attempts, newest first. 404 not_found for an endpoint not the caller's; 400 on `cursor`. */
export async function listWebhookDeliveries(
  core: Core,
  caller: Caller,
  endpointId: string,
  page: { limit: number; cursor?: string; status?: WebhookDeliveryStatus },
  surface: WebhookSurface = 'A',
): Promise<Page<WebhookDelivery>> {
  await liveEndpoint(core, caller, endpointId, surface);
  let q = deliveryQuery(core, endpointId);
  if (page.status) q = q.where('d.status', '=', page.status);
  const { rows, nextCursor } = await paginate(q, 'd.id', page);
  return { data: await render(core, surface, rows as DeliveryRow[]), nextCursor };
}

/** One delivery of a live endpoint of the caller (404 not_found, param `deliveryId`, otherwise). */
export async function getWebhookDelivery(core: Core, caller: Caller, endpointId: string, deliveryId: string, surface: WebhookSurface = 'A'): Promise<WebhookDelivery> {
  await liveEndpoint(core, caller, endpointId, surface);
  const row = await deliveryQuery(core, endpointId).where('d.id', '=', deliveryId).executeTakeFirst();
  if (!row) throw fieldError(404, 'not_found', 'deliveryId', `No webhook delivery with id '${deliveryId}'`);
  return (await render(core, surface, [row as DeliveryRow]))[0];
}

/** Reopens deliveries and records a new run for each in one transaction; starts them after commit. */
async function reopen(core: Core, surface: string, deliveryIds: string[], scope: { businessId: string; environment: Environment }): Promise<void> {
  if (deliveryIds.length === 0) return;
  const schedule = surface === 'B' ? surfaceBRetrySchedule() : webhookRetrySchedule(core);
  const starts: PendingStart[] = [];
  await core.db.transaction().execute(async (tx) => {
    for (let i = 0; i < deliveryIds.length; i += 500) {
      const rows = await reopenDeliveries(tx, deliveryIds.slice(i, i + 500));
      for (const r of rows) {
        const start: PendingStart = {
          workflowId: `${r.id}.r${r.retry_count}`,
          workflowType: WEBHOOK_DELIVERY_WORKFLOW,
          args: [{ deliveryId: r.id, schedule }],
          searchAttributes: { BusinessId: scope.businessId, Environment: scope.environment },
        };
        await enqueueWorkflowStart(tx, start);
        starts.push(start);
      }
    }
  });
  for (const s of starts) {
    try {
      await flushWorkflowStart(core, s.workflowId, s);
    } catch (err) {
      core.log.warn({ err, workflowId: s.workflowId }, 'webhook re-send start failed; the workflow-start sweep retries it');
    }
  }
}

/** Re-sends one delivery now, whatever its status; returns it `pending`. 404 not_found (`id`, `deliveryId`). */
export async function retryWebhookDelivery(core: Core, caller: Caller, endpointId: string, deliveryId: string, surface: WebhookSurface = 'A'): Promise<WebhookDelivery> {
  await getWebhookDelivery(core, caller, endpointId, deliveryId, surface);
  await reopen(core, surface, [deliveryId], caller);
  return getWebhookDelivery(core, caller, endpointId, deliveryId, surface);
}

/**
 * Re-sends every event of `[createdAfter, createdBefore)` (ISO 8601) this endpoint never acknowledged, oldest first,
 * {@link MAX_RESEND_BATCH} per call. 400 validation_error (`createdAfter`, `createdBefore`); 404 not_found.
 */
export async function resendWebhookEvents(
  core: Core,
  caller: Caller,
  endpointId: string,
  range: { createdAfter?: string; createdBefore?: string },
  surface: WebhookSurface = 'A',
): Promise<WebhookResend> {
  if (range.createdAfter === undefined) throw fieldValidationError('createdAfter', (name) => `${name} is required: the start of the range to re-send`);
  await liveEndpoint(core, caller, endpointId, surface);
  const { after, before } = eventWindow(core, range);
  let q = core.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.id', 'e.id as event_id', 'e.created_at'])
    .where('d.endpoint_id', '=', endpointId)
    .where('d.status', '!=', 'succeeded')
    .where('e.created_at', '>=', after);
  if (before) q = q.where('e.created_at', '<', before);
  const rows = await q.orderBy('e.created_at').orderBy('e.id').limit(MAX_RESEND_BATCH + 1).execute();
  const more = rows.length > MAX_RESEND_BATCH;
  const batch = more ? rows.slice(0, MAX_RESEND_BATCH) : rows;
  await reopen(core, surface, batch.map((r) => r.id), caller);
  return {
    endpointId,
    resent: batch.length,
    deliveryIds: batch.map((r) => r.id),
    nextCreatedAfter: more ? asDate(rows[MAX_RESEND_BATCH].created_at) : null,
  };
}
