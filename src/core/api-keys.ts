/** Scoped API keys (spec "Authentication"; docs/api-keys.md): the one writer of `api_keys`. */
import { apiKeyCacheOf } from './api-key-cache';
import { knownChannel } from './catalog';
import type { Caller, Core } from './context';
import { paginate, type Page } from './paging';
import type { Db, DbOrTx, Environment } from '../db/schema';
import { type ApiKey, type ApiKeyPolicy, type CreatedApiKey, hashKey } from '../domain/api-keys';
import { parseDuration } from '../domain/durations';
import { parseAmountParam, formatAmount, USDC } from '../domain/money';
import { ApiError, notFound, validationError } from '../domain/errors';
import { newId, randomToken } from '../domain/ids';
import { renderApiKey } from '../wire/surface-a/api-keys';
import { type AuditInput, callerActor, operatorActor, recordAuditEvent } from './audit';
import { scoped } from './tenancy';

/** The secret is returned once and stored only as its SHA-256. */
export interface IssuedKey {
  id: string;
  key: string;
  prefix: string;
}

export const MAX_ROLL_GRACE_MS = 7 * 24 * 60 * 60 * 1000;
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Issues a `sk_test_…`/`sk_live_…` key; stores only its SHA-256, prefix and last four (docs/architecture.md "Money rules" 8). */
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

function usdc(value: string, param: string): string {
  return formatAmount(parseAmountParam(value, USDC, param), USDC);
}

/**
 * Normalises a key policy: amounts canonical USDC decimal strings (400 validation_error `policy.daily_budget`,
 * `policy.per_payout_max`, `policy.approval_threshold`), channels known (`policy.channels.<i>`) and deduplicated.
 */
export function normalisePolicy(policy: ApiKeyPolicy | null | undefined): ApiKeyPolicy | null {
  if (!policy) return null;
  const out: ApiKeyPolicy = {};
  if (policy.dailyBudget !== undefined) out.dailyBudget = usdc(policy.dailyBudget, 'policy.daily_budget');
  if (policy.perPayoutMax !== undefined) out.perPayoutMax = usdc(policy.perPayoutMax, 'policy.per_payout_max');
  if (policy.approvalThreshold !== undefined) out.approvalThreshold = usdc(policy.approvalThreshold, 'policy.approval_threshold');
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

/** The stored `api_keys.policy` JSON (the spelling the payout policies read from `Caller.policy`). */
function policyColumn(p: ApiKeyPolicy | null): Record<string, unknown> | null {
  if (!p) return null;
  const out: Record<string, unknown> = {};
  if (p.dailyBudget !== undefined) out.daily_budget = p.dailyBudget;
  if (p.perPayoutMax !== undefined) out.per_payout_max = p.perPayoutMax;
  if (p.approvalThreshold !== undefined) out.approval_threshold = p.approvalThreshold;
  if (p.channels !== undefined) out.channels = p.channels;
  return out;
}

function policyOf(stored: Record<string, unknown> | null): ApiKeyPolicy | null {
  if (!stored) return null;
  const out: ApiKeyPolicy = {};
  if (typeof stored.daily_budget === 'string') out.dailyBudget = stored.daily_budget;
  if (typeof stored.per_payout_max === 'string') out.perPayoutMax = stored.per_payout_max;
  if (Array.isArray(stored.channels)) out.channels = stored.channels as string[];
  if (typeof stored.approval_threshold === 'string') out.approvalThreshold = stored.approval_threshold;
  return out;
}

const dateOrNull = (d: Date | string | null): Date | null => (d === null ? null : new Date(d));

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
  business_id: string;
  environment: Environment;
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

function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    businessId: row.business_id,
    environment: row.environment,
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    role: row.role,
    policy: policyOf(row.policy ?? null),
    createdAt: new Date(row.created_at),
    lastUsedAt: dateOrNull(row.last_used_at),
    expiresAt: dateOrNull(row.expires_at),
    revokedAt: dateOrNull(row.revoked_at),
  };
}

/** The audit record's `before`/`after` of a key: its Surface A rendering (docs/security.md "Audit trail"). */
const auditSnapshot = (row: KeyRow) => ({ ...renderApiKey(toApiKey(row)) });

const ownerOnly = (what: string) => new ApiError(403, 'permission_denied', `Only the owner key can ${what}`, null);

const keyRow = (db: DbOrTx, id: string) => db.selectFrom('api_keys').select(KEY_COLUMNS).where('id', '=', id).executeTakeFirst();

/** `POST /api-keys`: a `member` key, returned once. 403 permission_denied unless owner; 400 validation_error. */
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
      policy: policyColumn(policy),
      createdByKeyId: caller.keyId,
    });
    const row = (await keyRow(tx, issued.id))!;
    await recordAuditEvent(tx, { businessId: caller.businessId, environment: caller.environment, ...callerActor(caller), action: 'api_key.created', objectType: 'api_key', objectId: issued.id, before: null, after: auditSnapshot(row) }, core.now());
    return { ...toApiKey(row), key: issued.key };
  });
}

/** `GET /api-keys`: every key of the caller's business and environment, newest first. 400 validation_error (`cursor`). */
export async function listApiKeys(core: Core, caller: Caller, page: { limit: number; cursor?: string }): Promise<Page<ApiKey>> {
  const q = scoped(core.db, caller)
    .selectFrom('api_keys')
    .select(KEY_COLUMNS);
  const { rows, nextCursor } = await paginate(q, 'id', page);
  return { data: rows.map(toApiKey), nextCursor };
}

const isActive = (row: { revoked_at: Date | null; expires_at: Date | null }, now: Date) =>
  row.revoked_at === null && (row.expires_at === null || new Date(row.expires_at) > now);

/** Locks the owner keys (serialising concurrent revocations); 409 `last_owner_key` (param `id`) if none would stay. */
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

/** Revokes idempotently, with the last-owner guard unless `force`; 404 not_found (param `id`). */
async function revoke(
  db: Db,
  scope: { businessId?: string; environment?: Environment },
  id: string,
  now: Date,
  force: boolean,
  audit: Pick<AuditInput, 'actor' | 'source'>,
): Promise<KeyRow> {
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
        { businessId: row.business_id, environment: row.environment, ...audit, action: 'api_key.revoked', objectType: 'api_key', objectId: id, before: auditSnapshot(row), after: { ...auditSnapshot(updated), ...(force ? { forced: true } : {}) } },
        now,
      );
    }
    return updated ?? (await keyRow(tx, id))!;
  });
}

/** `DELETE /api-keys/{id}`: revoked on every API process before it answers. 403, 404, 409 last_owner_key. Idempotent. */
export async function revokeApiKey(core: Core, caller: Caller, id: string): Promise<ApiKey> {
  if (caller.role !== 'owner') throw ownerOnly('revoke API keys');
  // Counting evictions starts before the commit so none is missed (src/core/api-key-cache.ts).
  const eviction = apiKeyCacheOf(core.db)?.expectEviction(id);
  const now = core.now();
  let row: Awaited<ReturnType<typeof revoke>>;
  try {
    row = await revoke(core.db, { businessId: caller.businessId, environment: caller.environment }, id, now, false, callerActor(caller));
  } catch (err) {
    eviction?.cancel();
    throw err;
  }
  if (row.revoked_at && new Date(row.revoked_at).getTime() === now.getTime()) await eviction?.everywhere();
  else eviction?.cancel();
  core.log.info({ key_id: id, business_id: caller.businessId, environment: caller.environment, by_key_id: caller.keyId }, 'api key revoked');
  return toApiKey(row);
}

/** `npm run admin -- key revoke <id>`: any key by id; 409 last_owner_key unless `force`. */
export async function revokeApiKeyAsOperator(
  db: Db,
  id: string,
  opts: { now?: Date; force?: boolean; audit?: Pick<AuditInput, 'actor' | 'source'> } = {},
): Promise<ApiKey> {
  return toApiKey(await revoke(db, {}, id, opts.now ?? new Date(), opts.force ?? false, opts.audit ?? operatorActor()));
}

/** A roll's `expires_in` (ISO 8601 duration, PT0S to P7D) in ms; absent is 0. 400 validation_error (`expires_in`). */
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
 * `POST /api-keys/{id}/roll`: the old key works for `expires_in` (at most P7D), then is 401
 * `api_key_expired`. 403; 404; 400; 409 `api_key_inactive` when revoked, expired or already rolled.
 */
export async function rollApiKey(core: Core, caller: Caller, id: string, input: { expiresIn?: string | null }): Promise<CreatedApiKey> {
  if (caller.role !== 'owner') throw ownerOnly('roll API keys');
  const graceMs = parseRollGrace(input.expiresIn);
  const now = core.now();
  const eviction = apiKeyCacheOf(core.db)?.expectEviction(id);
  const issued = await core.db.transaction().execute(async (tx) => {
    const row = await scoped(tx, caller)
      .selectFrom('api_keys')
      .select(KEY_COLUMNS)
      .where('id', '=', id)
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
      { businessId: caller.businessId, environment: caller.environment, ...callerActor(caller), action: 'api_key.rolled', objectType: 'api_key', objectId: id, before: auditSnapshot(row), after: { ...auditSnapshot(after!), replacement_key_id: next.id } },
      now,
    );
    return next;
  }).catch((err: unknown) => {
    eviction?.cancel();
    throw err;
  });
  await eviction?.everywhere();
  core.log.info({ key_id: id, replacement_key_id: issued.id, grace_ms: graceMs, by_key_id: caller.keyId }, 'api key rolled');
  return { ...toApiKey((await keyRow(core.db, issued.id))!), key: issued.key };
}

/** Resolves a bearer key to its caller (spec "Authentication"). 401 `invalid_api_key`, `api_key_revoked`, `api_key_expired`. */
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

async function touchLastUsed(core: Core, id: string, now: Date): Promise<void> {
  const cutoff = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  await core.db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', cutoff)]))
    .execute();
}
