import { sql } from 'kysely';
import { paginate } from './paging';
import { parseDuration } from '../domain/durations';
import { fieldValidationError, notFound, validationError } from '../domain/errors';
import { newId, randomToken } from '../domain/ids';
import {
  endpointWantsEvent,
  isValidEventPattern,
  SURFACE_A_EVENT_TYPES,
  surfaceAEventType,
  surfaceARetrySchedule,
  type WebhookRetrySchedule,
} from '../domain/webhook-events';
import type { Db, Environment } from '../db/schema';
import { isSurfaceCEventPattern, SURFACE_C_EVENT_TYPES, SURFACE_C_EVENT_WILDCARDS, surfaceCEnvelope, surfaceCEventType } from '../domain/surface-c';
import type { Caller, Core } from './context';
import { checkWebhookDestination, guardedPost, RefusedDestinationError } from './net-guard';
import { recordWebhookAttempt, webhookDeliveriesFailed } from './metrics/registry';
import { surfaceAEnvelope } from './event-log';
import { surfaceASnapshot } from '../wire/events';
import { SURFACE_A_SIGNATURE_HEADER, signSurfaceA, surfaceBSignatureHeaders } from './webhook-signature';
import {
  checkSurfaceBSecret,
  isSurfaceBEventPattern,
  SURFACE_B_EVENT_TYPES,
  SURFACE_B_EVENT_WILDCARDS,
  surfaceBEnvelope,
  surfaceBEventType,
  surfaceBRetrySchedule,
} from './webhooks-surface-b';
import { enqueueWorkflowStart, flushWorkflowStart } from './workflow-starts';
import { keyringFor, openSecret, sealSecret, webhookSecretAad } from './secrets';
import { callerActor, recordAuditEvent } from './audit';
import { WEBHOOK_DELIVERY_WORKFLOW_TYPE } from '../../workflows/webhook-delivery.contract';

/**
 * Webhooks (spec "Events"; docs/architecture.md "Shape": durable webhook delivery schedules): endpoint
 * registration, the dispatcher that turns outbox events into one delivery per (event, endpoint)
 * with its own workflow, and one delivery attempt as the activity runs it.
 *
 * Choices where the spec is silent:
 * - URL: https only; http to a loopback host (localhost, 127.0.0.0/8, [::1]) is accepted in the
 *   sandbox for local receivers, refused on live. At most 2,048 characters. The host must be public
 *   (src/core/net-guard.ts: no private, link-local, metadata, ... address; loopback in the sandbox
 *   only), checked at registration and again at every delivery (docs/security.md).
 * - Events: known Surface A types (plus `payout.canceled`) or a family wildcard / `*`; an unknown
 *   name is 400 `events.<i>` rather than silently never matching. Duplicates are dropped. Surface C
 *   endpoints (surface 'C') subscribe to Surface C names and receive its envelope, signed the same
 *   way (src/domain/surface-c.ts).
 * - Delete is a soft delete (`deleted_at`): the endpoint disappears from the API at once, pending
 *   deliveries for it are marked failed at their next attempt, history is kept.
 * - An endpoint registered before an event is dispatched (normally within a relay tick) receives it.
 * - Delivery is at least once: a receiver that answered 2xx but whose acknowledgement we failed to
 *   record may see the event again; `Service-Event-Id` (= envelope id) lets it deduplicate.
 * - Redirects are not followed (a 3xx counts as a failed attempt); any non-2xx, timeout (10 s) or
 *   connection error is retried for 24 h with exponential backoff (initial WEBHOOK_RETRY_INITIAL,
 *   x2, capped at 1 h), then the delivery is `failed`.
 * - Envelope `created_at` is the event's time; the signature timestamp `t` is the attempt's time.
 */

// ---------------------------------------------------------------------------------------------
// Endpoints

/** A webhook endpoint in the core's (Surface A, snake_case) shape; never carries the secret. */
export interface WebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  /** Subscribed event types and wildcards, as registered. */
  events: string[];
  /** ISO 8601 UTC. */
  created_at: string;
}

/** The creation response: the endpoint plus its signing secret `whsec_…` (shown this once). */
export interface CreatedWebhookEndpoint extends WebhookEndpoint {
  secret: string;
}

/** Longest accepted endpoint URL, in characters. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** Most subscription patterns one endpoint may list. */
export const MAX_WEBHOOK_EVENTS = 50;

const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** Whether a URL hostname (as `new URL().hostname` gives it) is the loopback interface. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || LOOPBACK_V4.test(h) || h === '[::1]';
}

/**
 * Checks an endpoint URL (spec: "Register an HTTPS endpoint"): https, or http to a loopback host
 * (localhost, 127.0.0.0/8, [::1]) in the sandbox only, so integrators can test against a local
 * receiver. Throws 400 validation_error, param `url`. Returns the normalised URL.
 */
export function validateWebhookUrl(url: string, environment: Environment): string {
  if (url.length > MAX_WEBHOOK_URL_LENGTH) throw validationError('url', `url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw validationError('url', 'url must be an absolute https URL');
  }
  if (parsed.protocol === 'https:') return parsed.toString();
  if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) {
    if (environment === 'sandbox') return parsed.toString();
    throw validationError('url', 'url must use https; http is accepted only for a loopback host in the sandbox');
  }
  throw validationError(
    'url',
    environment === 'sandbox'
      ? 'url must use https (http is accepted only for localhost, 127.0.0.0/8 or [::1])'
      : 'url must use https',
  );
}

/**
 * Checks subscription patterns: a non-empty list of known Surface A event types or wildcards
 * (`payout.*`, `disbursement.*`, `deposit.*`, `payment_request.*`, `recipient.*`, `*`). Throws 400
 * validation_error with param `events` or `events.<i>`. Returns them without duplicates, in order.
 */
export function validateEventPatterns(events: readonly string[], surface: WebhookSurface = 'A'): string[] {
  if (events.length === 0) throw validationError('events', 'events must list at least one event type');
  if (events.length > MAX_WEBHOOK_EVENTS) throw validationError('events', `events may list at most ${MAX_WEBHOOK_EVENTS} entries`);
  const valid = surface === 'C' ? isSurfaceCEventPattern : surface === 'B' ? isSurfaceBEventPattern : isValidEventPattern;
  const types =
    surface === 'C'
      ? [...SURFACE_C_EVENT_TYPES, ...SURFACE_C_EVENT_WILDCARDS]
      : surface === 'B'
        ? [...SURFACE_B_EVENT_TYPES, ...SURFACE_B_EVENT_WILDCARDS]
        : SURFACE_A_EVENT_TYPES;
  events.forEach((e, i) => {
    if (!valid(e)) {
      throw validationError(
        `events.${i}`,
        `'${e}' is not an event type; use one of ${types.join(', ')}, a wildcard such as payout.* or *`,
      );
    }
  });
  return [...new Set(events)];
}

/** Surfaces whose endpoints this module registers: A (Surface A types) and C (Surface C types, domain/surface-c.ts). */
export type WebhookSurface = 'A' | 'B' | 'C';

/** A timestamptz column as a Date (the table types declare `created_at` as a generated column type). */
const asDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));

function toEndpoint(row: { id: string; url: string; events: string[]; created_at: unknown }): WebhookEndpoint {
  return { id: row.id, object: 'webhook_endpoint', url: row.url, events: row.events, created_at: asDate(row.created_at).toISOString() };
}

/**
 * Registers a Surface A endpoint for the caller's business and environment (spec "POST /webhooks").
 * Returns it with a new secret `whsec_…`; the secret is stored (it signs every delivery) and never
 * returned again. 400 validation_error (`url`, `events`, `events.<i>`) as above.
 */
export async function createWebhookEndpoint(
  core: Core,
  caller: Caller,
  input: { url: string; events: string[]; secret?: string },
  surface: WebhookSurface = 'A',
): Promise<CreatedWebhookEndpoint> {
  const url = validateWebhookUrl(input.url, caller.environment);
  const events = validateEventPatterns(input.events, surface);
  // Surface B: the caller chooses the secret (spec "Registration and delivery").
  if (input.secret !== undefined) checkSurfaceBSecret(input.secret);
  try {
    await checkWebhookDestination(url, caller.environment);
  } catch (err) {
    if (err instanceof RefusedDestinationError) throw validationError('url', `url is refused: ${err.reason}; webhooks are delivered to public addresses only`);
    throw err;
  }
  const secret = input.secret ?? `whsec_${randomToken(24)}`;
  const id = newId('we');
  return core.db.transaction().execute(async (tx) => {
    const row = await tx
      .insertInto('webhook_endpoints')
      .values({
        id,
        business_id: caller.businessId,
        environment: caller.environment,
        surface,
        url,
        events: JSON.stringify(events) as any,
        // Encrypted at rest (src/core/secrets.ts); returned once in plain text below.
        secret: sealSecret(keyringFor(core.config), secret, webhookSecretAad(id)),
        deleted_at: null,
      })
      .returning(['id', 'url', 'events', 'created_at'])
      .executeTakeFirstOrThrow();
    const endpoint = toEndpoint(row);
    await recordAuditEvent(tx, { businessId: caller.businessId, environment: caller.environment, ...callerActor(caller), action: 'webhook_endpoint.created', objectType: 'webhook_endpoint', objectId: id, before: null, after: { ...endpoint, surface } }, core.now());
    return { ...endpoint, secret };
  });
}

/**
 * Lists the caller's live (not deleted) Surface A endpoints, newest first (spec "GET /webhooks",
 * List envelope; `limit` 1..200, opaque `cursor`). Secrets are never included.
 */
export async function listWebhookEndpoints(
  core: Core,
  caller: Caller,
  page: { limit: number; cursor?: string },
  surface: WebhookSurface = 'A',
): Promise<{ data: WebhookEndpoint[]; next_cursor: string | null }> {
  const q = core.db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'events', 'created_at'])
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .where('surface', '=', surface)
    .where('deleted_at', 'is', null);
  const { rows, next_cursor } = await paginate(q, 'id', page);
  return { data: rows.map(toEndpoint), next_cursor };
}

/**
 * Deletes an endpoint (spec "DELETE /webhooks/{id}"): it receives nothing more, and deliveries still
 * retrying for it are given up. 404 not_found when the id is not a live endpoint of the caller's
 * business and environment (another tenant's id included).
 */
export async function deleteWebhookEndpoint(core: Core, caller: Caller, id: string, surface: WebhookSurface = 'A'): Promise<void> {
  const now = core.now();
  await core.db.transaction().execute(async (tx) => {
    const row = await tx
      .updateTable('webhook_endpoints')
      .set({ deleted_at: now })
      .where('id', '=', id)
      .where('business_id', '=', caller.businessId)
      .where('environment', '=', caller.environment)
      .where('surface', '=', surface)
      .where('deleted_at', 'is', null)
      .returning(['id', 'url', 'events', 'created_at'])
      .executeTakeFirst();
    if (!row) throw notFound('webhook endpoint', id);
    await recordAuditEvent(
      tx,
      { businessId: caller.businessId, environment: caller.environment, ...callerActor(caller), action: 'webhook_endpoint.deleted', objectType: 'webhook_endpoint', objectId: id, before: { ...toEndpoint(row), surface }, after: { deleted_at: now.toISOString() } },
      now,
    );
  });
}

/** Default and longest overlap of a secret rotation, ISO 8601 (docs/webhooks.md "Secret rotation"). */
export const DEFAULT_SECRET_OVERLAP = 'PT24H';
export const MAX_SECRET_OVERLAP_MS = 7 * 86_400_000;

/** The rotation response: the endpoint, its new secret (shown this once) and when the old one stops signing. */
export interface RotatedWebhookSecret extends CreatedWebhookEndpoint {
  /** ISO 8601 UTC: until then every delivery carries a second signature made with the previous secret. */
  previous_secret_expires_at: string;
}

/** Surface B's rotation result: `previous_secret_expires_at` is null after a no-op rotation outside an overlap. */
export type RotatedSurfaceBSecret = Omit<RotatedWebhookSecret, 'previous_secret_expires_at'> & { previous_secret_expires_at: string | null };

/**
 * Rotates an endpoint's signing secret (docs/webhooks.md "Secret rotation"): a new secret signs
 * from now on (Surfaces A and C: a new `whsec_…`; Surface B: `input.secret`, chosen by the caller,
 * 16 to 256 characters); the replaced one keeps signing too, as a second signature (a second `v1`
 * on A and C, `X-Service-Signature-Previous` on B), for `expire_previous_in` (ISO 8601 duration,
 * default PT24H, at most P7D, PT0S ends it at once). A rotation during an overlap drops the older
 * previous secret. On Surface B a rotation to the secret already current changes nothing and
 * answers the endpoint as it stands (a retried call is safe). 400 validation_error
 * (`expire_previous_in`, `secret`), 404 not_found for an endpoint that is not the caller's or is deleted.
 */
export async function rotateWebhookSecret(core: Core, caller: Caller, id: string, input: { expire_previous_in?: string }, surface?: 'A' | 'C'): Promise<RotatedWebhookSecret>;
export async function rotateWebhookSecret(core: Core, caller: Caller, id: string, input: { expire_previous_in?: string; secret: string }, surface: 'B'): Promise<RotatedSurfaceBSecret>;
export async function rotateWebhookSecret(
  core: Core,
  caller: Caller,
  id: string,
  input: { expire_previous_in?: string; secret?: string },
  surface: WebhookSurface = 'A',
): Promise<RotatedSurfaceBSecret> {
  let overlapMs: number;
  try {
    overlapMs = parseDuration(input.expire_previous_in ?? DEFAULT_SECRET_OVERLAP);
  } catch {
    throw fieldValidationError('expirePreviousIn', (name) => `${name} must be an ISO 8601 duration such as PT24H`);
  }
  if (!/^P/i.test((input.expire_previous_in ?? DEFAULT_SECRET_OVERLAP).trim()) || overlapMs > MAX_SECRET_OVERLAP_MS) {
    throw fieldValidationError('expirePreviousIn', (name) => `${name} must be an ISO 8601 duration from PT0S to P7D`);
  }
  const secret = surface === 'B' ? checkSurfaceBSecret(input.secret) : `whsec_${randomToken(24)}`;
  const until = new Date(core.now().getTime() + overlapMs);
  const ring = keyringFor(core.config);
  // The stored secret is sealed with a random IV, so "already this secret" (Surface B) is decided
  // on the opened value; the UPDATE is conditional on the sealed value read, so a concurrent
  // rotation makes this one read again instead of overwriting it.
  for (;;) {
    const current = await core.db
      .selectFrom('webhook_endpoints')
      .select(['id', 'url', 'events', 'created_at', 'secret', 'previous_secret_expires_at'])
      .where('id', '=', id)
      .where('business_id', '=', caller.businessId)
      .where('environment', '=', caller.environment)
      .where('surface', '=', surface)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!current) throw notFound('webhook endpoint', id);
    if (openSecret(ring, current.secret, webhookSecretAad(id)) === secret) {
      // Surface B: already signing with this secret.
      const prev = current.previous_secret_expires_at ? asDate(current.previous_secret_expires_at) : null;
      return { ...toEndpoint(current), secret, previous_secret_expires_at: prev && prev > core.now() ? prev.toISOString() : null };
    }
    const row = await core.db.transaction().execute(async (tx) => {
      const updated = await tx
        .updateTable('webhook_endpoints')
        .set({ secret: sealSecret(ring, secret, webhookSecretAad(id)), previous_secret: sql<string>`secret`, previous_secret_expires_at: until })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .where('secret', '=', current.secret)
        .returning(['id', 'url', 'events', 'created_at'])
        .executeTakeFirst();
      if (updated) {
        const prev = current.previous_secret_expires_at ? asDate(current.previous_secret_expires_at) : null;
        await recordAuditEvent(
          tx,
          {
            businessId: caller.businessId,
            environment: caller.environment,
            ...callerActor(caller),
            action: 'webhook_endpoint.secret_rotated',
            objectType: 'webhook_endpoint',
            objectId: id,
            before: { previous_secret_expires_at: prev ? prev.toISOString() : null },
            after: { previous_secret_expires_at: until.toISOString() },
          },
          core.now(),
        );
      }
      return updated;
    });
    if (row) return { ...toEndpoint(row), secret, previous_secret_expires_at: until.toISOString() };
  }
}

// ---------------------------------------------------------------------------------------------
// Dispatch

/** Workflow type of one delivery (workflows/webhook-delivery.contract.ts). */
export const WEBHOOK_DELIVERY_WORKFLOW = WEBHOOK_DELIVERY_WORKFLOW_TYPE;
/** Events the dispatcher takes per transaction. */
export const DISPATCH_BATCH = 200;

/** Surface A's retry schedule with the configured first delay (`WEBHOOK_RETRY_INITIAL`). */
export function webhookRetrySchedule(core: Core): WebhookRetrySchedule {
  return surfaceARetrySchedule(parseDuration(core.config.WEBHOOK_RETRY_INITIAL));
}

/**
 * The name under which an endpoint of `surface` receives a core event type, or null when it does
 * not receive it. Surface A receives its own event types (spec "Events, Surface A"); Surface C
 * receives payout events renamed (payout.submitted -> payout.created, succeeded -> completed,
 * failed/refunded -> failed, notification_sent; src/domain/surface-c.ts).
 */
export function surfaceEventName(surface: string, type: string, data?: Record<string, unknown>): string | null {
  if (surface === 'A') return surfaceAEventType(type);
  if (surface === 'B') return surfaceBEventType(type, data);
  if (surface === 'C') return surfaceCEventType(type);
  return null;
}

/** Whether an endpoint of `surface` is sent events of this core type (see {@link surfaceEventName}). */
export function surfaceReceives(surface: string, type: string): boolean {
  return surfaceEventName(surface, type) !== null;
}

/**
 * Relay task: hands new outbox events to webhook delivery. In one transaction it locks up to
 * {@link DISPATCH_BATCH} undispatched events (oldest first, `FOR UPDATE SKIP LOCKED`, so several
 * workers share the work), creates one `webhook_deliveries` row per (event, matching live endpoint
 * of the same business and environment), records a `webhookDeliveryWorkflow` start per new delivery
 * (workflow id = delivery id) and marks the events dispatched. After commit it starts the
 * workflows; a start that fails here is made by the workflow-start sweep. Returns how many events
 * it handled (0 = nothing to do).
 */
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
    // Surface B deliveries follow its fixed schedule (src/core/webhooks-surface-b.ts).
    const surfaceBDeliveries = new Set<string>();
    for (const e of events) {
      for (const ep of endpoints) {
        if (ep.business_id !== e.business_id || ep.environment !== e.environment) continue;
        const name = surfaceEventName(ep.surface, e.type, surfaceASnapshot(e.data_format, e.data));
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

    await tx
      .updateTable('events')
      .set({ dispatched_at: core.now() })
      .where(
        'id',
        'in',
        events.map((e) => e.id),
      )
      .execute();
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

// ---------------------------------------------------------------------------------------------
// Delivery

/** `User-Agent` of every delivery. */
export const WEBHOOK_USER_AGENT = 'payouts-webhooks/1.0';
/** An endpoint must answer within this many milliseconds (spec "Limits": 2xx within 10 seconds). */
export const WEBHOOK_HTTP_TIMEOUT_MS = 10_000;

export { surfaceAEnvelope, type SurfaceAEnvelope } from './event-log';

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
 * One delivery attempt (the `deliverWebhook` activity's body; `attempt` is Temporal's attempt
 * number, 1-based). Loads the delivery, its event and endpoint; does nothing when the delivery is
 * already complete; gives the delivery up (`failed`) when the endpoint was deleted. Otherwise POSTs
 * the Surface A envelope, serialized once, signed (`Service-Signature`), with `Service-Event-Id`,
 * `User-Agent` and a 10 s timeout; redirects are not followed (a 3xx is a failed attempt). Records
 * a `webhook_attempts` row and the delivery's attempt count and last status; a 2xx marks the
 * delivery succeeded. Never throws for an HTTP outcome: the caller decides to retry on `failed`.
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

  const event = { id: row.event_id, type: row.type, created_at: asDate(row.event_created_at), data: surfaceASnapshot(row.data_format, row.data) };
  // Surface C: its own envelope and names, signed like Surface A (docs/surface-c.md "Webhooks").
  const rawBody = JSON.stringify(
    row.surface === 'C'
      ? surfaceCEnvelope(event)
      : row.surface === 'B'
        ? surfaceBEnvelope(event)
        : surfaceAEnvelope({ ...event, type: surfaceAEventType(row.type) ?? row.type }),
  );
  // Surface B signs `sha256=<hex HMAC of the raw body>` in X-Service-Signature (no timestamp), and
  // with the replaced secret in X-Service-Signature-Previous during a rotation's overlap.
  const signature: Record<string, string> =
    row.surface === 'B'
      ? surfaceBSignatureHeaders(signingSecrets(core, row), rawBody)
      : { [SURFACE_A_SIGNATURE_HEADER]: signSurfaceA(signingSecrets(core, row), rawBody, Math.floor(core.now().getTime() / 1000)) };
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
    // Public addresses only, checked again now (a DNS answer can change); redirects not followed.
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

/**
 * The secrets that sign a delivery now (docs/webhooks.md "Secret rotation"): the current one, then
 * the one a rotation replaced while its overlap lasts.
 */
export function signingSecrets(
  core: Core,
  row: { endpoint_id: string; secret: string; previous_secret: string | null; previous_secret_expires_at: unknown },
): string[] {
  const ring = keyringFor(core.config);
  const aad = webhookSecretAad(row.endpoint_id);
  const prev = row.previous_secret;
  const until = row.previous_secret_expires_at ? asDate(row.previous_secret_expires_at) : null;
  const current = openSecret(ring, row.secret, aad);
  return prev && until && until > core.now() ? [current, openSecret(ring, prev, aad)] : [current];
}

/**
 * Gives a delivery up: `failed` with `completed_at`, when its retry window is spent or its endpoint
 * is gone. A delivery that already completed keeps its status. Idempotent; counted once in
 * webhook_deliveries_failed_total by the call that made it `failed`.
 */
export async function markWebhookDeliveryFailed(core: Core, deliveryId: string): Promise<void> {
  const r = await core.db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', completed_at: core.now() })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) > 0) webhookDeliveriesFailed.inc();
}

/**
 * Deletes up to `limit` webhook deliveries completed (succeeded or failed) and created before
 * `cutoff`, with their attempts, in one transaction (data retention, src/core/retention.ts). A
 * pending delivery is never deleted. Returns how many deliveries and attempts went.
 */
export async function purgeCompletedDeliveries(db: Db, cutoff: Date, limit: number): Promise<{ deliveries: number; attempts: number }> {
  return db.transaction().execute(async (tx) => {
    const ids = (await tx.selectFrom('webhook_deliveries').select('id').where('created_at', '<', cutoff).where('status', '!=', 'pending').limit(limit).execute()).map((r) => r.id);
    if (ids.length === 0) return { deliveries: 0, attempts: 0 };
    const a = await tx.deleteFrom('webhook_attempts').where('delivery_id', 'in', ids).executeTakeFirst();
    const d = await tx.deleteFrom('webhook_deliveries').where('id', 'in', ids).executeTakeFirst();
    return { deliveries: Number(d.numDeletedRows), attempts: Number(a.numDeletedRows) };
  });
}
