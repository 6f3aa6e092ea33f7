import { createHash } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { sql } from 'kysely';
import { validationError } from '../domain/errors';
import { newId } from '../domain/ids';
import type { Db, DbOrTx, Environment } from '../db/schema';
import { type Caller, type Core, readsOf, type RequestSource } from './context';
import { type Page, paginate } from './paging';
import { scoped } from './tenancy';

/**
 * The audit trail of privileged acts (docs/security.md "Audit trail"), secrets never included; the
 * one writer of `audit_events` (append-only). Each business's records form a hash chain (`seq`,
 * `prev_hash`); writers of one business are serialized by a transaction-scoped advisory lock held
 * to COMMIT, so the next writer reads the head only after this record is committed.
 */

export interface AuditActor {
  type: 'api_key' | 'operator' | 'system';
  /** `key_…` for an API key; `user@host` for an operator. */
  id: string;
}

export interface AuditInput {
  /** The business whose trail this is; null for an act on no business (chain `platform`). */
  businessId: string | null;
  environment: Environment | null;
  actor: AuditActor;
  /** `<object>.<verb>`, e.g. `api_key.revoked` (docs/security.md "Audit trail" lists them all). */
  action: string;
  objectType: string;
  objectId: string;
  source?: RequestSource | null;
    /** Secrets are removed by {@link withoutSecrets}. */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

export interface AuditEvent {
  id: string;
  businessId: string;
  environment: Environment | null;
  seq: number;
  actor: AuditActor;
  action: string;
  objectType: string;
  objectId: string;
  source: RequestSource;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  createdAt: Date;
  hash: string;
}

export const PLATFORM_CHAIN = 'platform';

const SECRET_FIELDS = /^(secret|previous_secret|key|key_hash|password|token|claim_token|receipt_token|authorization)$/i;

/** A copy of `value` with every field named like a secret replaced by `"[redacted]"` (nested too). */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_FIELDS.test(k) ? '[redacted]' : withoutSecrets(v)]));
  }
  return value;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

interface HashedFields {
  id: string;
  business_id: string;
  environment: string | null;
  seq: bigint | number | string;
  actor_type: string;
  actor_id: string;
  action: string;
  object_type: string;
  object_id: string;
  ip: string | null;
  forwarded_for: string | null;
  user_agent: string | null;
  request_id: string | null;
  before: unknown;
  after: unknown;
  created_at: Date | string;
  prev_hash: string;
}

/** SHA-256 (hex) of a record's canonical JSON, its `prev_hash` included. */
function auditHash(r: HashedFields): string {
  const body = canonical({
    id: r.id,
    business_id: r.business_id,
    environment: r.environment ?? null,
    seq: String(r.seq),
    actor_type: r.actor_type,
    actor_id: r.actor_id,
    action: r.action,
    object_type: r.object_type,
    object_id: r.object_id,
    ip: r.ip ?? null,
    forwarded_for: r.forwarded_for ?? null,
    user_agent: r.user_agent ?? null,
    request_id: r.request_id ?? null,
    before: r.before ?? null,
    after: r.after ?? null,
    created_at: new Date(r.created_at).toISOString(),
    prev_hash: r.prev_hash,
  });
  return createHash('sha256').update(body, 'utf8').digest('hex');
}

const chainLock = (businessId: string) => sql`select pg_advisory_xact_lock(hashtextextended(${`audit:${businessId}`}, 0))`;

/** Records one act in the caller's transaction (or its own), under the business's chain lock. */
export async function recordAuditEvent(db: DbOrTx, input: AuditInput, now: Date = new Date()): Promise<AuditEvent> {
  const write = async (tx: DbOrTx): Promise<AuditEvent> => {
    const businessId = input.businessId ?? PLATFORM_CHAIN;
    await chainLock(businessId).execute(tx);
    const head = await tx
      .selectFrom('audit_events')
      .select(['seq', 'hash'])
      .where('business_id', '=', businessId)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    const source = input.source ?? { ip: null, forwardedFor: null, userAgent: null, requestId: null };
    const fields: HashedFields = {
      id: newId('aud', now.getTime()),
      business_id: businessId,
      environment: input.environment,
      seq: BigInt(head?.seq ?? 0n) + 1n,
      actor_type: input.actor.type,
      actor_id: input.actor.id,
      action: input.action,
      object_type: input.objectType,
      object_id: input.objectId,
      ip: source.ip,
      forwarded_for: source.forwardedFor,
      user_agent: source.userAgent,
      request_id: source.requestId,
      // As stored (JSON: undefined fields dropped), so the hash is recomputed from the stored row.
      before: input.before ? JSON.parse(JSON.stringify(withoutSecrets(input.before))) : null,
      after: input.after ? JSON.parse(JSON.stringify(withoutSecrets(input.after))) : null,
      created_at: now,
      prev_hash: head?.hash ?? '',
    };
    const hash = auditHash(fields);
    await tx
      .insertInto('audit_events')
      .values({
        ...fields,
        environment: input.environment,
        actor_type: input.actor.type,
        seq: fields.seq as bigint,
        before: fields.before === null ? null : (JSON.stringify(fields.before) as any),
        after: fields.after === null ? null : (JSON.stringify(fields.after) as any),
        created_at: now,
        hash,
      })
      .execute();
    return toAuditEvent({ ...fields, hash } as AuditRow);
  };
  return db.isTransaction ? write(db) : (db as Db).transaction().execute(write);
}

export const callerActor = (caller: Caller): Pick<AuditInput, 'actor' | 'source'> => ({
  actor: { type: 'api_key', id: caller.keyId },
  source: caller.source ?? null,
});

export function operatorActor(): Pick<AuditInput, 'actor' | 'source'> {
  let user = 'unknown';
  try {
    user = userInfo().username;
    } catch {
      // no passwd entry (some containers): keep 'unknown'
  }
  return {
    actor: { type: 'operator', id: `${user}@${hostname()}` },
    source: { ip: null, forwardedFor: null, userAgent: `npm run admin (pid ${process.pid})`, requestId: null },
  };
}

interface AuditRow extends HashedFields {
  hash: string;
}

function toAuditEvent(r: AuditRow): AuditEvent {
  return {
    id: r.id,
    businessId: r.business_id,
    environment: r.environment as Environment | null,
    seq: Number(r.seq),
    actor: { type: r.actor_type as AuditActor['type'], id: r.actor_id },
    action: r.action,
    objectType: r.object_type,
    objectId: r.object_id,
    source: { ip: r.ip, forwardedFor: r.forwarded_for, userAgent: r.user_agent, requestId: r.request_id },
    before: (r.before as Record<string, unknown> | null) ?? null,
    after: (r.after as Record<string, unknown> | null) ?? null,
    createdAt: new Date(r.created_at),
    hash: r.hash,
  };
}

export interface AuditFilters {
  actor?: string;
  action?: string;
  object?: string;
  createdGte?: string;
  createdLte?: string;
}

/** The caller's audit trail, newest first, cursor-paged. 400 validation_error (`created_gte`, `created_lte`, `cursor`). */
export async function listAuditEvents(
  core: Core,
  caller: Caller,
  filters: AuditFilters,
  page: { limit: number; cursor?: string },
): Promise<Page<AuditEvent>> {
  const time = (v: string | undefined, param: string) => {
    if (v === undefined) return undefined;
    const d = new Date(v);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(v) || Number.isNaN(d.getTime())) throw validationError(param, `${param} must be an ISO 8601 date-time such as 2026-11-27T00:00:00Z`);
    return d;
  };
  const gte = time(filters.createdGte, 'created_gte');
  const lte = time(filters.createdLte, 'created_lte');
  let q = scoped(readsOf(core), caller).selectFrom('audit_events').selectAll();
  if (filters.actor) q = q.where('actor_id', '=', filters.actor);
  if (filters.action) q = q.where('action', '=', filters.action);
  if (filters.object) q = q.where('object_id', '=', filters.object);
  if (gte) q = q.where('created_at', '>=', gte);
  if (lte) q = q.where('created_at', '<=', lte);
  const { rows, nextCursor } = await paginate(q, 'id', page);
  return { data: rows.map((r) => toAuditEvent(r as unknown as AuditRow)), nextCursor };
}

export interface AuditChainProblem {
  businessId: string;
  seq: number;
  id: string | null;
  problem: 'hash_mismatch' | 'broken_link' | 'missing_record';
  detail: string;
}

export interface AuditVerifyReport {
  chains: number;
  records: number;
  problems: AuditChainProblem[];
  /** Each chain's last seq and hash: record them elsewhere to detect a removed tail later. */
  heads: { businessId: string; seq: number; hash: string }[];
}

/**
 * Recomputes every chain (or one business's): hashes, links and `seq` steps. A removed tail shows
 * only against `heads` recorded earlier (docs/operations.md "Audit trail").
 */
export async function verifyAuditChain(db: DbOrTx, opts: { businessId?: string } = {}): Promise<AuditVerifyReport> {
  let businesses = (await db.selectFrom('audit_events').select('business_id').distinct().orderBy('business_id').execute()).map((r) => r.business_id);
  if (opts.businessId) businesses = businesses.filter((b) => b === opts.businessId);
  const report: AuditVerifyReport = { chains: businesses.length, records: 0, problems: [], heads: [] };
  for (const businessId of businesses) {
    let expectedSeq = 1n;
    let prevHash = '';
    for (;;) {
      const rows = await db
        .selectFrom('audit_events')
        .selectAll()
        .where('business_id', '=', businessId)
        .where('seq', '>=', expectedSeq)
        .orderBy('seq')
        .limit(1000)
        .execute();
      if (rows.length === 0) break;
      for (const r of rows) {
        const seq = BigInt(r.seq);
        report.records++;
        if (seq !== expectedSeq) {
          report.problems.push({ businessId, seq: Number(expectedSeq), id: null, problem: 'missing_record', detail: `records ${expectedSeq} to ${seq - 1n} are missing` });
        }
        if (r.prev_hash !== prevHash) {
          report.problems.push({ businessId, seq: Number(seq), id: r.id, problem: 'broken_link', detail: 'prev_hash is not the previous record\'s hash' });
        }
        if (auditHash(r as unknown as HashedFields) !== r.hash) {
          report.problems.push({ businessId, seq: Number(seq), id: r.id, problem: 'hash_mismatch', detail: 'the record was changed after it was written' });
        }
        prevHash = r.hash;
        expectedSeq = seq + 1n;
      }
    }
    report.heads.push({ businessId, seq: Number(expectedSeq - 1n), hash: prevHash });
  }
  return report;
}
