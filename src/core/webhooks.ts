/**
 * Webhook delivery (spec "Events"; docs/webhooks.md "Retries"): one delivery per (event, endpoint), each with
 * its workflow; the one writer of `webhook_deliveries` and `webhook_attempts`. Signature `t` is the attempt's time.
 */
import { type Selectable, sql } from 'kysely';
import { parseDuration } from '../domain/durations';
import { newId } from '../domain/ids';
import { endpointWantsEvent, surfaceAEventType, surfaceARetrySchedule, type WebhookRetrySchedule } from '../domain/webhook-events';
import type { Db, DbOrTx, Environment } from '../db/schema';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../db/tables/webhooks';
import { surfaceCEventType } from '../domain/surface-c';
import { surfaceCEnvelope } from '../wire/surface-c-envelope';
import type { Core } from './context';
import { guardedPost, RefusedDestinationError } from './net-guard';
import { recordWebhookAttempt, webhookDeliveriesFailed } from './metrics/registry';
import { surfaceAEnvelope } from '../wire/surface-a/event-envelopes';
import { readStoredEvent, surfaceBSelectors } from '../wire/events';
import { parseEventObject } from '../domain/event-objects';
import { SURFACE_A_SIGNATURE_HEADER, signSurfaceA, surfaceBSignatureHeaders } from './webhook-signature';
import { surfaceBEventType, surfaceBRetrySchedule } from '../domain/surface-b';
import { surfaceBEnvelope } from '../wire/surface-b-envelope';
import { enqueueWorkflowStart, flushWorkflowStart } from './workflow-starts';
import { markEventsDispatched } from './events';
import { keyringFor, openSecret, webhookSecretAad } from './secrets';
import { asDate } from './webhook-endpoints';
import { WEBHOOK_DELIVERY_WORKFLOW_TYPE } from '../../workflows/webhook-delivery.contract';

export {
  createWebhookEndpoint,
  type CreatedWebhookEndpoint,
  DEFAULT_SECRET_OVERLAP,
  deleteWebhookEndpoint,
  isLoopbackHost,
  listWebhookEndpoints,
  MAX_SECRET_OVERLAP_MS,
  MAX_WEBHOOK_EVENTS,
  MAX_WEBHOOK_URL_LENGTH,
  type RotatedWebhookEndpoint,
  rotateWebhookSecret,
  validateEventPatterns,
  validateWebhookUrl,
  type WebhookEndpoint,
  type WebhookSurface,
} from './webhook-endpoints';

/** Workflow type of one delivery (workflows/webhook-delivery.contract.ts). */
export const WEBHOOK_DELIVERY_WORKFLOW = WEBHOOK_DELIVERY_WORKFLOW_TYPE;
export const DISPATCH_BATCH = 200;

/** Surface A's retry schedule, first delay `WEBHOOK_RETRY_INITIAL`. */
export function webhookRetrySchedule(core: Core): WebhookRetrySchedule {
  return surfaceARetrySchedule(parseDuration(core.config.WEBHOOK_RETRY_INITIAL));
}

/** The name under which `surface` receives a core event type, or null (Surface C renames payout events). */
export function surfaceEventName(surface: string, type: string, data?: Record<string, unknown>): string | null {
  if (surface === 'A') return surfaceAEventType(type);
  if (surface === 'B') return surfaceBEventType(type, data);
  if (surface === 'C') return surfaceCEventType(type);
  return null;
}

/** Whether an endpoint of `surface` is sent events of this core type. */
export function surfaceReceives(surface: string, type: string): boolean {
  return surfaceEventName(surface, type) !== null;
}

/** Relay task: turns up to {@link DISPATCH_BATCH} undispatched events into deliveries and their workflow starts. Returns events handled. */
export async function dispatchWebhookEvents(core: Core): Promise<number> {
  const schedule = webhookRetrySchedule(core);
  const started: string[] = [];
  const handled = await core.db.transaction().execute(async (tx) => {
    const events = await tx
      .selectFrom('events')
      .select(['id', 'business_id', 'environment', 'type', 'data', 'data_format'])
      .where('dispatched_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .limit(DISPATCH_BATCH)
      .forUpdate()
      .skipLocked()
      .execute();
    if (events.length === 0) return 0;

    const businessIds = [...new Set(events.map((e) => e.business_id))];
    const endpoints = await tx
      .selectFrom('webhook_endpoints')
      .select(['id', 'business_id', 'environment', 'surface', 'events'])
      .where('business_id', 'in', businessIds)
      .where('deleted_at', 'is', null)
      .execute();

    const deliveries: { id: string; business_id: string; environment: Environment; event_id: string; endpoint_id: string }[] = [];
    const surfaceBDeliveries = new Set<string>();
    for (const e of events) {
      const selectors = surfaceBSelectors({ object: e.data_format === 'domain' ? parseEventObject(e.data) : null, data: e.data });
      for (const ep of endpoints) {
        if (ep.business_id !== e.business_id || ep.environment !== e.environment) continue;
        const name = surfaceEventName(ep.surface, e.type, selectors);
        if (name === null || !endpointWantsEvent(ep.events, name)) continue;
        const id = newId('whd');
        if (ep.surface === 'B') surfaceBDeliveries.add(id);
        deliveries.push({ id, business_id: e.business_id, environment: e.environment, event_id: e.id, endpoint_id: ep.id });
      }
    }

    for (let i = 0; i < deliveries.length; i += 500) {
      const inserted = await tx
        .insertInto('webhook_deliveries')
        .values(
          deliveries.slice(i, i + 500).map((d) => ({ ...d, status: 'pending' as const, attempt_count: 0, last_status_code: null, completed_at: null })),
        )
        .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doNothing())
        .returning(['id', 'business_id', 'environment'])
        .execute();
      for (const d of inserted) {
        await enqueueWorkflowStart(tx, {
          workflowId: d.id,
          workflowType: WEBHOOK_DELIVERY_WORKFLOW,
          args: [{ deliveryId: d.id, schedule: surfaceBDeliveries.has(d.id) ? surfaceBRetrySchedule() : schedule }],
          searchAttributes: { BusinessId: d.business_id, Environment: d.environment },
        });
        started.push(d.id);
      }
    }

    await markEventsDispatched(
      tx,
      events.map((e) => e.id),
      core.now(),
    );
    return events.length;
  });

  for (const id of started) {
    try {
      await flushWorkflowStart(core, id);
    } catch (err) {
      core.log.warn({ err, deliveryId: id }, 'webhook delivery start failed; the workflow-start sweep retries it');
    }
  }
  return handled;
}

export const WEBHOOK_USER_AGENT = 'payouts-webhooks/1.0';
/** Milliseconds an endpoint has to answer (spec "Limits": 2xx within 10 seconds). */
export const WEBHOOK_HTTP_TIMEOUT_MS = 10_000;

/** What one delivery attempt came to. `failed` is the only outcome to retry. */
export type WebhookAttemptOutcome =
  | { result: 'succeeded'; statusCode: number }
  | { result: 'already_completed'; status: 'succeeded' | 'failed' }
  | { result: 'endpoint_deleted' }
  | { result: 'not_found' }
  | { result: 'failed'; statusCode: number | null; error: string; surface: string };

function describeFetchError(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${WEBHOOK_HTTP_TIMEOUT_MS / 1000} s`;
  const cause = e?.cause?.code ?? e?.cause?.message ?? (err as { code?: string })?.code;
  return cause ? `${e.message ?? 'request failed'} (${cause})` : (e?.message ?? String(err));
}

/**
 * One delivery attempt (`attempt` 1-based): POSTs the signed envelope (no redirects) and records it. Never throws
 * for an HTTP outcome: the caller retries on `failed`.
 */
export async function attemptWebhookDelivery(core: Core, deliveryId: string, attempt: number, run = ''): Promise<WebhookAttemptOutcome> {
  const row = await core.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.status',
      'e.id as event_id',
      'e.type',
      'e.created_at as event_created_at',
      'e.data',
      'e.data_format',
      'w.url',
      'w.surface',
      'w.id as endpoint_id',
      'w.secret',
      'w.previous_secret',
      'w.previous_secret_expires_at',
      'w.deleted_at',
      'w.environment as endpoint_environment',
    ])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
  if (!row) return { result: 'not_found' };
  if (row.status !== 'pending') return { result: 'already_completed', status: row.status };
  if (row.deleted_at) {
    await markWebhookDeliveryFailed(core, deliveryId);
    recordWebhookAttempt('endpoint_deleted');
    return { result: 'endpoint_deleted' };
  }

  const event = readStoredEvent({ id: row.event_id, type: row.type, createdAt: asDate(row.event_created_at), format: row.data_format, data: row.data });
  const rawBody = JSON.stringify(
    row.surface === 'C'
      ? surfaceCEnvelope(event)
      : row.surface === 'B'
        ? surfaceBEnvelope(event)
        : surfaceAEnvelope({ ...event, type: surfaceAEventType(row.type) ?? row.type }),
  );
  // Surface B: `sha256=<hex HMAC>` in X-Service-Signature, the replaced secret's in -Previous.
  const secrets = signingSecrets(core, { id: row.endpoint_id, secret: row.secret, previous_secret: row.previous_secret, previous_secret_expires_at: row.previous_secret_expires_at });
  const signature: Record<string, string> =
    row.surface === 'B'
      ? surfaceBSignatureHeaders(secrets, rawBody)
      : { [SURFACE_A_SIGNATURE_HEADER]: signSurfaceA(secrets, rawBody, Math.floor(core.now().getTime() / 1000)) };
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    'Service-Event-Id': row.event_id,
    ...signature,
  };

  let statusCode: number | null = null;
  let error: string | null = null;
  const started = performance.now();
  try {
  // Public addresses only, checked again now (a DNS answer can change).
    statusCode = await guardedPost(row.url, {
      environment: row.endpoint_environment,
      headers,
      body: rawBody,
      timeoutMs: WEBHOOK_HTTP_TIMEOUT_MS,
    });
    if (statusCode < 200 || statusCode > 299) error = `endpoint answered HTTP ${statusCode}`;
  } catch (err) {
    error = err instanceof RefusedDestinationError ? `endpoint address refused: ${err.reason}` : `endpoint unreachable: ${describeFetchError(err)}`;
  }
  const durationMs = Math.round(performance.now() - started);
  const ok = error === null;

  await core.db.transaction().execute(async (tx) => {
    await tx
      .insertInto('webhook_attempts')
      .values({ delivery_id: deliveryId, run, number: attempt, status_code: statusCode, error, duration_ms: durationMs })
      .onConflict((oc) =>
        oc.columns(['delivery_id', 'run', 'number']).doUpdateSet({ status_code: statusCode, error, duration_ms: durationMs }),
      )
      .execute();
    await tx
      .updateTable('webhook_deliveries')
      .set({
        attempt_count: sql<number>`greatest(attempt_count, ${attempt})`,
        last_status_code: statusCode,
        ...(ok ? { status: 'succeeded' as const, completed_at: core.now() } : {}),
      })
      .where('id', '=', deliveryId)
      .where('status', '=', 'pending')
      .execute();
  });
  recordWebhookAttempt(ok ? 'succeeded' : statusCode === null ? 'unreachable' : 'http_error');
  return ok ? { result: 'succeeded', statusCode: statusCode as number } : { result: 'failed', statusCode, error: error as string, surface: row.surface };
}

/** The plaintext secrets that sign a delivery now, from the endpoint's sealed ones: the current, then the replaced one during its overlap. */
export function signingSecrets(core: Core, row: Pick<Selectable<WebhookEndpointsTable>, 'id' | 'secret' | 'previous_secret' | 'previous_secret_expires_at'>): string[] {
  const ring = keyringFor(core.config);
  const aad = webhookSecretAad(row.id);
  const prev = row.previous_secret;
  const until = row.previous_secret_expires_at ? asDate(row.previous_secret_expires_at) : null;
  const current = openSecret(ring, row.secret, aad);
  return prev && until && until > core.now() ? [current, openSecret(ring, prev, aad)] : [current];
}

/** Gives a delivery up (`failed`, `completed_at`) unless already complete. Idempotent; counted once. */
export async function markWebhookDeliveryFailed(core: Core, deliveryId: string): Promise<void> {
  const r = await core.db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', completed_at: core.now() })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) > 0) webhookDeliveriesFailed.inc();
}

/** Deletes up to `limit` completed deliveries created before `cutoff`, with their attempts; never a pending one. */
export async function purgeCompletedDeliveries(db: Db, cutoff: Date, limit: number): Promise<{ deliveries: number; attempts: number }> {
  return db.transaction().execute(async (tx) => {
    const ids = (await tx.selectFrom('webhook_deliveries').select('id').where('created_at', '<', cutoff).where('status', '!=', 'pending').limit(limit).execute()).map((r) => r.id);
    if (ids.length === 0) return { deliveries: 0, attempts: 0 };
    const a = await tx.deleteFrom('webhook_attempts').where('delivery_id', 'in', ids).executeTakeFirst();
    const d = await tx.deleteFrom('webhook_deliveries').where('id', 'in', ids).executeTakeFirst();
    return { deliveries: Number(d.numDeletedRows), attempts: Number(a.numDeletedRows) };
  });
}

/** Reopens deliveries `ids` for a manual retry: `pending`, `retry_count` + 1. Returns the rows' new counts. */
export async function reopenDeliveries(db: DbOrTx, ids: string[]): Promise<Pick<Selectable<WebhookDeliveriesTable>, 'id' | 'retry_count'>[]> {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', completed_at: null, retry_count: sql<number>`retry_count + 1` })
    .where('id', 'in', ids)
    .returning(['id', 'retry_count'])
    .execute();
}
