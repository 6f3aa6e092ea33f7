import { ApiError } from '../domain/errors';
import { newId, randomToken } from '../domain/ids';
import type { DbOrTx, Environment } from '../db/schema';
import { hashKey } from '../domain/api-keys';

/** A freshly issued API key: the secret is returned once and stored only as its SHA-256. */
export interface IssuedKey {
  id: string;
  key: string;
  prefix: string;
}

/**
 * Issues an API key of `environment` for a business (`sk_test_…` sandbox, `sk_live_…` live;
 * spec "Authentication"). Stores the hash and a display prefix (docs/architecture.md "Money rules", rule 8).
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
      role: input.role,
      policy: JSON.stringify(input.policy ?? null) as any,
      created_by_key_id: input.createdByKeyId ?? null,
      revoked_at: null,
    })
    .execute();
  return { id, key, prefix };
}

/**
 * Creates a business with an owner key in each environment (the operator's `admin business
 * create`). Returns `{business_id, keys: {sandbox, live}}`.
 */
export async function createBusiness(
  db: DbOrTx,
  input: { name: string; verified?: boolean; approvalsRequired?: number },
): Promise<{ business_id: string; keys: { sandbox: string; live: string } }> {
  if (!input.name.trim()) throw new ApiError(400, 'validation_error', 'name is required', 'name');
  const id = newId('biz');
  await db
    .insertInto('businesses')
    .values({ id, name: input.name, verified: input.verified ?? false, approvals_required: input.approvalsRequired ?? 1 })
    .execute();
  const sandbox = await issueKey(db, { businessId: id, environment: 'sandbox', name: 'Owner key', role: 'owner' });
  const live = await issueKey(db, { businessId: id, environment: 'live', name: 'Owner key', role: 'owner' });
  return { business_id: id, keys: { sandbox: sandbox.key, live: live.key } };
}

/**
 * Marks a business verified (the operator's `npm run admin -- business verify <id>`; spec: withdrawals
 * and virtual accounts need verification). Idempotent. Throws ApiError 404 not_found for an unknown id.
 */
export async function verifyBusiness(db: DbOrTx, businessId: string): Promise<{ business_id: string; verified: true }> {
  const res = await db.updateTable('businesses').set({ verified: true }).where('id', '=', businessId).executeTakeFirst();
  if (!res.numUpdatedRows) throw new ApiError(404, 'not_found', `No business with id '${businessId}'`, 'business_id');
  return { business_id: businessId, verified: true };
}
