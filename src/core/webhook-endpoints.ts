/** Webhook endpoints (spec "Events"; docs/webhooks.md): the one writer of `webhook_endpoints`. Delete is soft. */
import { type Selectable, sql } from 'kysely';
import { type Page, paginate } from './paging';
import { parseDuration } from '../domain/durations';
import { fieldValidationError, notFound, validationError } from '../domain/errors';
import { newId, randomToken } from '../domain/ids';
import { isValidEventPattern, SURFACE_A_EVENT_TYPES } from '../domain/webhook-events';
import type { Db, Environment } from '../db/schema';
import type { WebhookEndpointsTable } from '../db/tables/webhooks';
import { isSurfaceCEventPattern, SURFACE_C_EVENT_TYPES, SURFACE_C_EVENT_WILDCARDS } from '../domain/surface-c';
import type { Caller, Core } from './context';
import { checkWebhookDestination, RefusedDestinationError } from './net-guard';
import { checkSurfaceBSecret, isSurfaceBEventPattern, SURFACE_B_EVENT_TYPES, SURFACE_B_EVENT_WILDCARDS } from '../domain/surface-b';
import { type Keyring, keyringFor, openSecret, sealedKeyId, sealSecret, webhookSecretAad } from './secrets';
import { callerActor, recordAuditEvent } from './audit';
import type { CreatedWebhookEndpoint, RotatedWebhookEndpoint, WebhookEndpoint } from '../domain/webhooks';
import { scoped } from './tenancy';
import { isLoopbackHost } from '../domain/hosts';

export type { CreatedWebhookEndpoint, RotatedWebhookEndpoint, WebhookEndpoint } from '../domain/webhooks';

/** Longest endpoint URL, in characters, and most subscription patterns per endpoint. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const MAX_WEBHOOK_EVENTS = 50;

export { isLoopbackHost };

/** Checks an endpoint URL (https; loopback http in the sandbox). Throws 400 validation_error, param `url`. */
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

/** Checks subscription patterns; 400 validation_error (`events`, `events.<i>`). Returns them deduplicated, in order. */
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

export const asDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));

type EndpointRow = Pick<Selectable<WebhookEndpointsTable>, 'id' | 'url' | 'events' | 'created_at'>;

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return { id: row.id, url: row.url, events: row.events, createdAt: asDate(row.created_at) };
}

/** The endpoint as its audit events record it (`before`/`after` of audit_events). */
function auditRecord(row: EndpointRow, surface: WebhookSurface) {
  return { id: row.id, object: 'webhook_endpoint', url: row.url, events: row.events, created_at: asDate(row.created_at).toISOString(), surface };
}

/** Registers an endpoint of `surface` with a new `whsec_…` secret (Surface B: its own `secret`). 400 validation_error (`url`, `events`, `events.<i>`, `secret`). */
export async function createWebhookEndpoint(
  core: Core,
  caller: Caller,
  input: { url: string; events: string[]; secret?: string },
  surface: WebhookSurface = 'A',
): Promise<CreatedWebhookEndpoint> {
  const url = validateWebhookUrl(input.url, caller.environment);
  const events = validateEventPatterns(input.events, surface);
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
        secret: sealSecret(keyringFor(core.config), secret, webhookSecretAad(id)),
        deleted_at: null,
      })
      .returning(['id', 'url', 'events', 'created_at'])
      .executeTakeFirstOrThrow();
    await recordAuditEvent(tx, { businessId: caller.businessId, environment: caller.environment, ...callerActor(caller), action: 'webhook_endpoint.created', objectType: 'webhook_endpoint', objectId: id, before: null, after: auditRecord(row, surface) }, core.now());
    return { ...toEndpoint(row), secret };
  });
}

/** Lists the caller's live endpoints, newest first (List envelope; `limit` 1..200, `cursor`); no secrets. */
export async function listWebhookEndpoints(
  core: Core,
  caller: Caller,
  page: { limit: number; cursor?: string },
  surface: WebhookSurface = 'A',
): Promise<Page<WebhookEndpoint>> {
  const q = scoped(core.db, caller)
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'events', 'created_at'])
    .where('surface', '=', surface)
    .where('deleted_at', 'is', null);
  const { rows, nextCursor } = await paginate(q, 'id', page);
  return { data: rows.map(toEndpoint), nextCursor };
}

/** Deletes an endpoint; its retrying deliveries are given up. 404 not_found unless a live endpoint of the caller. */
export async function deleteWebhookEndpoint(core: Core, caller: Caller, id: string, surface: WebhookSurface = 'A'): Promise<void> {
  const now = core.now();
  await core.db.transaction().execute(async (tx) => {
    const row = await scoped(tx, caller)
      .updateTable('webhook_endpoints')
      .set({ deleted_at: now })
      .where('id', '=', id)
      .where('surface', '=', surface)
      .where('deleted_at', 'is', null)
      .returning(['id', 'url', 'events', 'created_at'])
      .executeTakeFirst();
    if (!row) throw notFound('webhook endpoint', id);
    await recordAuditEvent(
      tx,
      { businessId: caller.businessId, environment: caller.environment, ...callerActor(caller), action: 'webhook_endpoint.deleted', objectType: 'webhook_endpoint', objectId: id, before: auditRecord(row, surface), after: { deleted_at: now.toISOString() } },
      now,
    );
  });
}

/** Default and longest overlap of a secret rotation, ISO 8601 (docs/webhooks.md "Secret rotation"). */
export const DEFAULT_SECRET_OVERLAP = 'PT24H';
export const MAX_SECRET_OVERLAP_MS = 7 * 86_400_000;

/**
 * Rotates the signing secret (docs/webhooks.md "Secret rotation"); the previous one co-signs for `expirePreviousIn`
 * (ISO 8601 duration, default PT24H, at most P7D). Surface B names the new secret; rotating to the current one changes
 * nothing (`previousSecretExpiresAt` null outside an overlap). 400 validation_error (`expirePreviousIn`, `secret`); 404 not_found.
 */
export async function rotateWebhookSecret(core: Core, caller: Caller, id: string, input: { expirePreviousIn?: string }, surface?: 'A' | 'C'): Promise<RotatedWebhookEndpoint<Date>>;
export async function rotateWebhookSecret(core: Core, caller: Caller, id: string, input: { expirePreviousIn?: string; secret: string }, surface: 'B'): Promise<RotatedWebhookEndpoint>;
export async function rotateWebhookSecret(
  core: Core,
  caller: Caller,
  id: string,
  input: { expirePreviousIn?: string; secret?: string },
  surface: WebhookSurface = 'A',
): Promise<RotatedWebhookEndpoint> {
  const overlap = input.expirePreviousIn ?? DEFAULT_SECRET_OVERLAP;
  let overlapMs: number;
  try {
    overlapMs = parseDuration(overlap);
  } catch {
    throw fieldValidationError('expirePreviousIn', (name) => `${name} must be an ISO 8601 duration such as PT24H`);
  }
  if (!/^P/i.test(overlap.trim()) || overlapMs > MAX_SECRET_OVERLAP_MS) {
    throw fieldValidationError('expirePreviousIn', (name) => `${name} must be an ISO 8601 duration from PT0S to P7D`);
  }
  const secret = surface === 'B' ? checkSurfaceBSecret(input.secret) : `whsec_${randomToken(24)}`;
  const until = new Date(core.now().getTime() + overlapMs);
  const ring = keyringFor(core.config);
  // Sealed with a random IV, so compared opened; the UPDATE is conditional on the sealed value read.
  for (;;) {
    const current = await scoped(core.db, caller)
      .selectFrom('webhook_endpoints')
      .select(['id', 'url', 'events', 'created_at', 'secret', 'previous_secret_expires_at'])
      .where('id', '=', id)
      .where('surface', '=', surface)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!current) throw notFound('webhook endpoint', id);
    if (openSecret(ring, current.secret, webhookSecretAad(id)) === secret) {
      const prev = current.previous_secret_expires_at ? asDate(current.previous_secret_expires_at) : null;
      return { ...toEndpoint(current), secret, previousSecretExpiresAt: prev && prev > core.now() ? prev : null };
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
    if (row) return { ...toEndpoint(row), secret, previousSecretExpiresAt: until };
  }
}

export interface ResealReport {
  resealed: number;
  unchanged: number;
  activeKeyId: string;
}

/** Re-encrypts every stored secret not under the active key, row by row under a lock. Idempotent. */
export async function resealStoredSecrets(db: Db, ring: Keyring): Promise<ResealReport> {
  const report: ResealReport = { resealed: 0, unchanged: 0, activeKeyId: ring.activeKeyId };
  const ids = await db.selectFrom('webhook_endpoints').select('id').orderBy('id').execute();
  for (const { id } of ids) {
    await db.transaction().execute(async (tx) => {
      const row = await tx.selectFrom('webhook_endpoints').select(['secret', 'previous_secret']).where('id', '=', id).forUpdate().executeTakeFirst();
      if (!row) return;
      const aad = webhookSecretAad(id);
      const reseal = (v: string | null) => (v !== null && sealedKeyId(v) !== ring.activeKeyId ? sealSecret(ring, openSecret(ring, v, aad), aad) : v);
      const secret = reseal(row.secret)!;
      const previous = reseal(row.previous_secret);
      const changed = (secret !== row.secret ? 1 : 0) + (previous !== row.previous_secret ? 1 : 0);
      report.resealed += changed;
      report.unchanged += 1 + (row.previous_secret !== null ? 1 : 0) - changed;
      if (changed) await tx.updateTable('webhook_endpoints').set({ secret, previous_secret: previous }).where('id', '=', id).execute();
    });
  }
  return report;
}
