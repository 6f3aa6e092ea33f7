import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import {
  claimIdempotencyRecord,
  completeIdempotencyRecord,
  deleteExpiredIdempotencyRecord,
  findIdempotencyRecord,
  releaseIdempotencyRecord,
  takeOverIdempotencyRecord,
} from '../../core/idempotency-records';
import { fieldError, fieldValidationError } from '../../domain/errors';
import { coreIdempotencyKey } from '../../domain/idempotency-keys';
import type { AppEnv, Surface } from '../types';

/** Surface A keeps idempotency records 30 days, Surface B 24 hours (spec "Limits"). */
export const IDEMPOTENCY_RETENTION_MS: Record<Surface, number> = {
  A: 30 * 24 * 3600 * 1000,
  B: 24 * 3600 * 1000,
  C: 30 * 24 * 3600 * 1000,
};

/** An in-flight record older than this belongs to a request whose process died; it may be taken over. */
export const IN_FLIGHT_TAKEOVER_MS = 60_000;

const MAX_KEY_LENGTH = 255;

/**
 * Stripe-style idempotency in PostgreSQL (spec "Limits"; docs/architecture.md), per business,
 * environment and surface: a replay returns the stored response with `Idempotent-Replayed: true`;
 * another body is 409 idempotency_conflict, a running first request 409 idempotency_in_flight. 400
 * validation errors and 5xx are not stored. A dead process's record is taken over after
 * {@link IN_FLIGHT_TAKEOVER_MS}. `keyFrom` reads the key from the body (Surface B); `secretFields`
 * are never stored, and a replay names them in `Secret-Omitted` (docs/security.md).
 */
export function idempotency(
  surface: Surface,
  opts: { keyFrom?: (body: unknown) => string | undefined; secretFields?: readonly string[] } = {},
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const raw = await c.req.text();
    let key = c.req.header('Idempotency-Key');
    if (opts.keyFrom) {
      try {
        key = opts.keyFrom(JSON.parse(raw)) ?? key;
      } catch {
        // malformed JSON: the route's validator reports it
      }
    }
    if (key === undefined) {
      c.set('idempotencyKey', undefined);
      return next();
    }
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw fieldValidationError('idempotencyKey', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`);
    }
    const core = c.get('core');
    const caller = c.get('caller');
    const fingerprint = createHash('sha256').update(`${c.req.method} ${c.req.path}\n${raw}`).digest('hex');
    const scope = { businessId: caller.businessId, environment: caller.environment, scope: surface, key };
    const now = core.now();

    const expiresAt = new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS[surface]);
    const claim = () => claimIdempotencyRecord(core.db, scope, fingerprint, now, expiresAt);

    let owned = await claim();
    if (!owned) {
      const row = await findIdempotencyRecord(core.db, scope);
      if (!row || row.expires_at < now) {
        await deleteExpiredIdempotencyRecord(core.db, scope, now);
        owned = await claim();
        if (!owned) throw fieldError(409, 'idempotency_in_flight', 'idempotencyKey', 'A request with this Idempotency-Key is in progress; retry shortly');
      } else if (row.fingerprint !== fingerprint) {
        throw fieldError(409, 'idempotency_conflict', 'idempotencyKey', 'This Idempotency-Key was already used with a different request body or path');
      } else if (row.state === 'done') {
        const headers: Record<string, string> = { ...(row.response_headers ?? {}), 'Idempotent-Replayed': 'true' };
        return new Response(row.response_body, { status: row.response_status ?? 200, headers: { ...headers, 'X-Request-ID': c.get('requestId') } });
      } else {
        const stale = new Date(now.getTime() - IN_FLIGHT_TAKEOVER_MS);
        if (!(await takeOverIdempotencyRecord(core.db, scope, now, stale))) {
          throw fieldError(409, 'idempotency_in_flight', 'idempotencyKey', 'A request with this Idempotency-Key is in progress; retry shortly');
        }
        owned = true;
      }
    }

    c.set('idempotencyKey', coreIdempotencyKey(surface, key));
    let stored = false;
    try {
      await next();
      const res = c.res;
      const status = res.status;
      // Not a clone: that sends the answer through Node's slow streaming path.
      const text = await res.text();
      c.res = undefined as never;
      c.res = new Response(text, { status, headers: res.headers });
      let body = text;
      // A 400 validation_error is not stored, in whatever code the surface renders it.
      const invalid = status === 400 && (c.get('errorCode') === 'validation_error' || body.includes('"validation_error"'));
      const keep = status < 500 && !invalid;
      if (keep) {
        const contentType = res.headers.get('Content-Type');
        const storedHeaders: Record<string, string> = contentType ? { 'Content-Type': contentType } : {};
        if (opts.secretFields?.length) {
          body = omitSecrets(body, opts.secretFields);
          storedHeaders['Secret-Omitted'] = opts.secretFields.join(', ');
        }
        await completeIdempotencyRecord(core.db, scope, { status, body, headers: storedHeaders });
        stored = true;
      }
    } finally {
      if (!stored) {
        await releaseIdempotencyRecord(core.db, scope);
      }
    }
  };
}

/** A JSON response body without the named top-level fields (unparseable bodies are stored as `{}`). */
function omitSecrets(body: string, fields: readonly string[]): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return body;
    const copy: Record<string, unknown> = { ...(parsed as Record<string, unknown>) };
    for (const f of fields) delete copy[f];
    return JSON.stringify(copy);
  } catch {
    return '{}';
  }
}
