/**
 * Scoped API keys (spec "Authentication" 3-5, Surface A `POST /api-keys`; docs/api-keys.md). The
 * one writer of `api_keys`: issues keys, lists them without their secret, revokes and rolls them,
 * and resolves a bearer key to its caller on every request (from PostgreSQL, or from the process's
 * key cache invalidated by LISTEN/NOTIFY: a revocation is seen by the next request on every API
 * process; src/core/api-key-cache.ts). Policies are validated, stored and returned here, and
 * enforced by src/core/policies (docs/getting-paid.md).
 */
import { apiKeyCacheOf } from './api-key-cache';
import { knownChannel } from './catalog';
import type { Caller, Core } from './context';
import { paginate, type ListEnvelope } from './paging';
import type { Db, DbOrTx, Environment } from '../db/schema';
import { hashKey } from '../domain/api-keys';
import { parseDuration } from '../domain/durations';
import { parseAmountParam, formatAmount, USDC } from '../domain/money';
import { ApiError, notFound, validationError } from '../domain/errors';
import { newId, randomToken } from '../domain/ids';
import { type AuditInput, callerActor, operatorActor, recordAuditEvent } from './audit';

/** Spec "ApiKey create" policy: Amounts are USDC decimal strings; channels are catalog ids. */
export interface ApiKeyPolicy {
  daily_budget?: string;
  per_payout_max?: string;
  channels?: string[];
  approval_threshold?: string;
}

/**
 * An API key as listed (docs/api-keys.md "The key object"): never its secret, only `prefix` (its
 * first 12 characters) and `last4`. Timestamps are ISO 8601 UTC strings or null.
 */
export interface ApiKeyRecord {
  id: string;
  object: 'api_key';
  name: string;
  prefix: string;
  /** Last four characters; null for keys issued before they were recorded. */
  last4: string | null;
  role: 'owner' | 'member';
  policy: ApiKeyPolicy | null;
  created_at: string;
  /** Last authenticated request, to the minute (recorded at most once a minute per key). */
  last_used_at: string | null;
  /** When the key stops working (a rolled key's grace period), or null. */
  expires_at: string | null;
  revoked_at: string | null;
}

/** Spec "ApiKey response": a new key with its secret `key`, which appears in this response only. */
export interface CreatedApiKey extends ApiKeyRecord {
  key: string;
}

/** A freshly issued API key: the secret is returned once and stored only as its SHA-256. */
export interface IssuedKey {
  id: string;
  key: string;
  prefix: string;
}

/** Longest grace period of a roll (docs/api-keys.md "Rolling a key"): 7 days, in milliseconds. */
export const MAX_ROLL_GRACE_MS = 7 * 24 * 60 * 60 * 1000;
/** A key's `last_used_at` is written at most once per this many milliseconds (one minute). */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Issues an API key of `environment` for a business (`sk_test_…` sandbox, `sk_live_…` live;
 * spec "Authentication"). Stores the hash, a display prefix and the last four characters
 * (docs/architecture.md "Money rules", rule 8).
 */
export async function issueKey(
  db: DbOrTx,
  input: {
    businessId: string;
    environment: Environment;
    name: string;
    role: 'owner' | 'member';
    policy?: Record<string, unknown> | null;
    createdByKeyId?: string | null;
  },
): Promise<IssuedKey> {
  const key = `${input.environment === 'live' ? 'sk_live_' : 'sk_test_'}${randomToken(24)}`;
  const id = newId('key');
  const prefix = key.slice(0, 12);
  await db
    .insertInto('api_keys')
    .values({
      id,
      business_id: input.businessId,
      environment: input.environment,
      name: input.name,
      key_hash: hashKey(key),
      prefix,
      last4: key.slice(-4),
      role: input.role,
      policy: JSON.stringify(input.policy ?? null) as any,
      created_by_key_id: input.createdByKeyId ?? null,
      revoked_at: null,
      last_used_at: null,
      expires_at: null,
      rolled_to_key_id: null,
    })
    .execute();
  return { id, key, prefix };
}

/** A USDC Amount in canonical form; 400 validation_error naming `param` when malformed or zero. */
function usdc(value: string, param: string): string {
  return formatAmount(parseAmountParam(value, USDC, param), USDC);
}

/**
 * Validates and normalises a key policy: amounts canonical ("100" -> "100.00"), channels known
 * (400 validation_error, param `policy.channels.<i>`), duplicates removed. Null/undefined -> null.
 */
export function normalisePolicy(policy: ApiKeyPolicy | null | undefined): ApiKeyPolicy | null {
  if (!policy) return null;
  const out: ApiKeyPolicy = {};
  if (policy.daily_budget !== undefined) out.daily_budget = usdc(policy.daily_budget, 'policy.daily_budget');
  if (policy.per_payout_max !== undefined) out.per_payout_max = usdc(policy.per_payout_max, 'policy.per_payout_max');
  if (policy.approval_threshold !== undefined) {
    out.approval_threshold = usdc(policy.approval_threshold, 'policy.approval_threshold');
  }
  if (policy.channels !== undefined) {
    const seen: string[] = [];
    policy.channels.forEach((id, i) => {
      knownChannel(id, `policy.channels.${i}`);
      if (!seen.includes(id)) seen.push(id);
    });
    out.channels = seen;
  }
  return out;
}

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

const KEY_COLUMNS = [
  'id',
  'name',
  'prefix',
  'last4',
  'role',
  'policy',
  'created_at',
  'last_used_at',
  'expires_at',
  'revoked_at',
  'rolled_to_key_id',
  'business_id',
  'environment',
] as const;

type KeyRow = {
  id: string;
  name: string;
  prefix: string;
  last4: string | null;
  role: 'owner' | 'member';
  policy: Record<string, unknown> | null;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
};

/** The wire record of a key row (no secret: the table holds none). */
function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    object: 'api_key',
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    role: row.role,
    policy: (row.policy as ApiKeyPolicy | null) ?? null,
    created_at: iso(row.created_at)!,
    last_used_at: iso(row.last_used_at),
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
  };
}

const ownerOnly = (what: string) => new ApiError(403, 'permission_denied', `Only the owner key can ${what}`, null);

/** Reads one key row by id, or undefined. */
const keyRow = (db: DbOrTx, id: string) => db.selectFrom('api_keys').select(KEY_COLUMNS).where('id', '=', id).executeTakeFirst();

/**
 * `POST /api-keys`: issues a `member` key of the caller's business and environment. Owner keys
 * only: any other caller gets 403 permission_denied. 400 validation_error for a blank name or a
 * bad policy. Returns the key once (only its SHA-256 is stored).
 */
export async function createApiKey(
  core: Core,
  caller: Caller,
  input: { name: string; policy?: ApiKeyPolicy | null },
): Promise<CreatedApiKey> {
  if (caller.role !== 'owner') throw ownerOnly('create API keys');
  const name = input.name?.trim();
  if (!name) throw validationError('name', 'name is required');
  const policy = normalisePolicy(input.policy);
  return core.db.transaction().execute(async (tx) => {
    const issued = await issueKey(tx, {
      businessId: caller.businessId,
      environment: caller.environment,
      name,
      role: 'member',
      policy: policy as Record<string, unknown> | null,
      createdByKeyId: caller.keyId,
    });
    const record = toRecord((await keyRow(tx, issued.id))!);
    await recordAuditEvent(tx, { businessId: caller.businessId, environment: caller.environment, ...callerActor(caller), action: 'api_key.created', objectType: 'api_key', objectId: issued.id, before: null, after: { ...record } }, core.now());
    return { ...record, key: issued.key };
  });
}

/**
 * `GET /api-keys` (docs/api-keys.md): every key of the caller's business and environment, revoked
 * and expired ones included, newest first, in the list envelope. Any key of the business may list;
 * no secret is ever returned (the table holds only hashes). 400 validation_error (param `cursor`).
 */
export async function listApiKeys(core: Core, caller: Caller, page: { limit: number; cursor?: string }): Promise<ListEnvelope<ApiKeyRecord>> {
  const q = core.db
    .selectFrom('api_keys')
    .select(KEY_COLUMNS)
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment);
  const { rows, next_cursor } = await paginate(q, 'id', page);
  return { data: rows.map(toRecord), next_cursor };
}

/** True when `row` authenticates at `now`: neither revoked nor past its expiry. */
const isActive = (row: { revoked_at: Date | null; expires_at: Date | null }, now: Date) =>
  row.revoked_at === null && (row.expires_at === null || new Date(row.expires_at) > now);

/**
 * Inside `tx`: locks the business's owner keys of `environment` and throws 409 `last_owner_key`
 * (param `id`) when taking `keyId` away would leave no owner key that stays (active and without an
 * expiry). Locking them serialises two concurrent revocations of the last two owner keys.
 */
async function guardLastOwnerKey(tx: DbOrTx, businessId: string, environment: Environment, keyId: string, now: Date): Promise<void> {
  const owners = await tx
    .selectFrom('api_keys')
    .select(['id', 'revoked_at', 'expires_at'])
    .where('business_id', '=', businessId)
    .where('environment', '=', environment)
    .where('role', '=', 'owner')
    .orderBy('id')
    .forUpdate()
    .execute();
  const staying = owners.filter((o) => o.id !== keyId && isActive(o, now) && o.expires_at === null);
  if (staying.length === 0) {
    throw new ApiError(
      409,
      'last_owner_key',
      'This is the last owner key of the business in this environment: roll it (POST /api-keys/{id}/roll) to replace it instead',
      'id',
    );
  }
}

/**
 * Revokes key `id` of `businessId`/`environment` now, in one transaction with the last-owner
 * guard. Idempotent: an already revoked key is returned unchanged. 404 not_found (param `id`) when
 * the key is not the business's in that environment; 409 last_owner_key unless `force`.
 */
async function revoke(
  db: Db,
  scope: { businessId?: string; environment?: Environment },
  id: string,
  now: Date,
  force: boolean,
  audit: Pick<AuditInput, 'actor' | 'source'>,
): Promise<KeyRow & { business_id: string; environment: Environment }> {
  return db.transaction().execute(async (tx) => {
    let q = tx.selectFrom('api_keys').select(KEY_COLUMNS).where('id', '=', id);
    if (scope.businessId) q = q.where('business_id', '=', scope.businessId);
    if (scope.environment) q = q.where('environment', '=', scope.environment);
    const row = await q.executeTakeFirst();
    if (!row) throw notFound('API key', id);
    if (row.revoked_at) return row;
    if (row.role === 'owner' && !force) await guardLastOwnerKey(tx, row.business_id, row.environment, id, now);
    const updated = await tx
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returning(KEY_COLUMNS)
      .executeTakeFirst();
    if (updated) {
      await recordAuditEvent(
        tx,
        { businessId: row.business_id, environment: row.environment, ...audit, action: 'api_key.revoked', objectType: 'api_key', objectId: id, before: { ...toRecord(row) }, after: { ...toRecord(updated), ...(force ? { forced: true } : {}) } },
        now,
      );
    }
    return updated ?? (await keyRow(tx, id))!;
  });
}

/**
 * `DELETE /api-keys/{id}` (docs/api-keys.md "Revoking a key"): revokes a key of the caller's
 * business and environment at once; the next request with it, on any API process, is 401
 * `api_key_revoked`. Owner only (403 permission_denied); 404 not_found (param `id`) for another
 * business's or environment's key; 409 last_owner_key (param `id`) for the last owner key that
 * stays. Idempotent on an already revoked key. Returns the key record.
 */
export async function revokeApiKey(core: Core, caller: Caller, id: string): Promise<ApiKeyRecord> {
  if (caller.role !== 'owner') throw ownerOnly('revoke API keys');
  // With the key cache: answer once every API process has acknowledged evicting the key
  // (src/core/api-key-cache.ts). Counting starts before the commit so as not to miss one.
  const eviction = apiKeyCacheOf(core.db)?.expectEviction(id);
  const now = core.now();
  let row: Awaited<ReturnType<typeof revoke>>;
  try {
    row = await revoke(core.db, { businessId: caller.businessId, environment: caller.environment }, id, now, false, callerActor(caller));
  } catch (err) {
    eviction?.cancel();
    throw err;
  }
  // An already revoked key changes nothing and announces nothing.
  if (row.revoked_at && new Date(row.revoked_at).getTime() === now.getTime()) await eviction?.everywhere();
  else eviction?.cancel();
  core.log.info({ key_id: id, business_id: caller.businessId, environment: caller.environment, by_key_id: caller.keyId }, 'api key revoked');
  return toRecord(row);
}

/**
 * The operator's revocation (`npm run admin -- key revoke <id>`): revokes any key by id. Refuses
 * the last owner key of its business and environment (409 last_owner_key) unless `force`. Returns
 * the key record with its business and environment, for the audit log line.
 */
export async function revokeApiKeyAsOperator(
  db: Db,
  id: string,
  opts: { now?: Date; force?: boolean; audit?: Pick<AuditInput, 'actor' | 'source'> } = {},
): Promise<ApiKeyRecord & { business_id: string; environment: Environment }> {
  const row = await revoke(db, {}, id, opts.now ?? new Date(), opts.force ?? false, opts.audit ?? operatorActor());
  return { ...toRecord(row), business_id: row.business_id, environment: row.environment };
}

/**
 * Parses a roll's `expires_in` (an ISO 8601 duration, PT0S to P7D) into milliseconds; undefined or
 * null is 0 (revoke now). 400 validation_error (param `expires_in`) otherwise.
 */
export function parseRollGrace(expiresIn: string | null | undefined): number {
  if (expiresIn === undefined || expiresIn === null) return 0;
  let ms: number;
  try {
    if (!/^P/i.test(expiresIn.trim())) throw new Error('not ISO');
    ms = parseDuration(expiresIn);
  } catch {
    throw validationError('expires_in', 'expires_in must be an ISO 8601 duration such as PT1H or P1D');
  }
  if (ms > MAX_ROLL_GRACE_MS) throw validationError('expires_in', 'expires_in is at most P7D (7 days)');
  return ms;
}

/**
 * `POST /api-keys/{id}/roll` (docs/api-keys.md "Rolling a key"): issues a replacement with the same
 * name, role and policy (its secret shown once) and lets the old key work for `expires_in` (ISO 8601
 * duration, at most P7D; none = revoked now). After that the old key is 401 `api_key_expired`.
 * Owner only (403 permission_denied); 404 not_found (param `id`); 400 validation_error (param
 * `expires_in`); 409 `api_key_inactive` (param `id`) when the key is revoked, expired or already
 * rolled. Rolling an owner key keeps the business's owner: the replacement is an owner key.
 */
export async function rollApiKey(core: Core, caller: Caller, id: string, input: { expires_in?: string | null }): Promise<CreatedApiKey> {
  if (caller.role !== 'owner') throw ownerOnly('roll API keys');
  const graceMs = parseRollGrace(input.expires_in);
  const now = core.now();
  const eviction = apiKeyCacheOf(core.db)?.expectEviction(id);
  const issued = await core.db.transaction().execute(async (tx) => {
    const row = await tx
      .selectFrom('api_keys')
      .select(KEY_COLUMNS)
      .where('id', '=', id)
      .where('business_id', '=', caller.businessId)
      .where('environment', '=', caller.environment)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw notFound('API key', id);
    if (!isActive(row, now) || row.rolled_to_key_id) {
      throw new ApiError(409, 'api_key_inactive', 'The key is revoked, expired or already rolled; roll its replacement instead', 'id');
    }
    const next = await issueKey(tx, {
      businessId: caller.businessId,
      environment: caller.environment,
      name: row.name,
      role: row.role,
      policy: row.policy,
      createdByKeyId: caller.keyId,
    });
    await tx
      .updateTable('api_keys')
      .set(graceMs > 0 ? { expires_at: new Date(now.getTime() + graceMs), rolled_to_key_id: next.id } : { revoked_at: now, rolled_to_key_id: next.id })
      .where('id', '=', id)
      .execute();
    const after = await keyRow(tx, id);
    await recordAuditEvent(
      tx,
      { businessId: caller.businessId, environment: caller.environment, ...callerActor(caller), action: 'api_key.rolled', objectType: 'api_key', objectId: id, before: { ...toRecord(row) }, after: { ...toRecord(after!), replacement_key_id: next.id } },
      now,
    );
    return next;
  }).catch((err: unknown) => {
    eviction?.cancel();
    throw err;
  });
  await eviction?.everywhere();
  core.log.info({ key_id: id, replacement_key_id: issued.id, grace_ms: graceMs, by_key_id: caller.keyId }, 'api key rolled');
  return { ...toRecord((await keyRow(core.db, issued.id))!), key: issued.key };
}

/**
 * Resolves a bearer key to its caller (spec "Authentication"; docs/api-keys.md): looked up by its
 * hash in PostgreSQL, or, when the process started the key cache (src/core/api-key-cache.ts, `npm
 * run api` on PostgreSQL), served from it while its LISTEN connection is up; either way a
 * revocation holds on every process at once. Throws 401 `invalid_api_key` (unknown),
 * `api_key_revoked`, `api_key_expired` (a rolled key past its grace period). Records
 * `last_used_at` at most once a minute per key (one conditional UPDATE).
 */
export async function authenticateKey(core: Core, key: string): Promise<Caller> {
  const hash = hashKey(key);
  const cache = apiKeyCacheOf(core.db);
  const now = core.now();
  const hit = cache?.get(hash);
  if (hit) {
    if (hit.expiresAt !== null && hit.expiresAt <= now.getTime()) throw keyExpired();
    if (hit.lastUsedAt === null || now.getTime() - hit.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
      hit.lastUsedAt = now.getTime();
      await touchLastUsed(core, hit.caller.keyId, now);
    }
    return hit.caller;
  }
  const generation = cache?.generation() ?? 0;
  const row = await core.db
    .selectFrom('api_keys')
    .select(['id', 'business_id', 'environment', 'role', 'policy', 'revoked_at', 'expires_at', 'last_used_at'])
    .where('key_hash', '=', hash)
    .executeTakeFirst();
  if (!row) throw new ApiError(401, 'invalid_api_key', 'The API key is not valid', null);
  if (row.revoked_at) throw new ApiError(401, 'api_key_revoked', 'The API key was revoked', null);
  if (row.expires_at && new Date(row.expires_at) <= now) throw keyExpired();
  const caller: Caller = { businessId: row.business_id, environment: row.environment, keyId: row.id, role: row.role, policy: row.policy };
  let lastUsedAt = row.last_used_at ? new Date(row.last_used_at).getTime() : null;
  if (lastUsedAt === null || now.getTime() - lastUsedAt >= LAST_USED_RESOLUTION_MS) {
    lastUsedAt = now.getTime();
    await touchLastUsed(core, row.id, now);
  }
  cache?.set(hash, { caller, expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null, lastUsedAt, readAt: Date.now() }, generation);
  return caller;
}

const keyExpired = () =>
  new ApiError(401, 'api_key_expired', 'The API key expired (it was rolled and its grace period is over); use its replacement', null);

/** Sets `last_used_at = now` on key `id` unless another request did so less than a minute ago. */
async function touchLastUsed(core: Core, id: string, now: Date): Promise<void> {
  const cutoff = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  await core.db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', cutoff)]))
    .execute();
}
