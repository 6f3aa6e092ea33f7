import { ApiError } from '../domain/errors';
import { newId } from '../domain/ids';
import type { DbOrTx } from '../db/schema';
import { issueKey } from './api-keys';

export { issueKey, type IssuedKey } from './api-keys';

/** A business just created: its id and the secret of its owner key in each environment (shown this once). */
export interface CreatedBusiness {
  businessId: string;
  keys: { sandbox: string; live: string };
}

/** Creates a business with an owner key per environment. 400 validation_error (`name`) for a blank name. */
export async function createBusiness(
  db: DbOrTx,
  input: { name: string; verified?: boolean; approvalsRequired?: number },
): Promise<CreatedBusiness> {
  if (!input.name.trim()) throw new ApiError(400, 'validation_error', 'name is required', 'name');
  const id = newId('biz');
  await db
    .insertInto('businesses')
    .values({ id, name: input.name, verified: input.verified ?? false, approvals_required: input.approvalsRequired ?? 1 })
    .execute();
  const sandbox = await issueKey(db, { businessId: id, environment: 'sandbox', name: 'Owner key', role: 'owner' });
  const live = await issueKey(db, { businessId: id, environment: 'live', name: 'Owner key', role: 'owner' });
  return { businessId: id, keys: { sandbox: sandbox.key, live: live.key } };
}

/** Marks a business verified; idempotent. Throws 404 not_found for an unknown id. */
export async function verifyBusiness(db: DbOrTx, businessId: string): Promise<{ businessId: string; verified: true }> {
  const res = await db.updateTable('businesses').set({ verified: true }).where('id', '=', businessId).executeTakeFirst();
  if (!res.numUpdatedRows) throw new ApiError(404, 'not_found', `No business with id '${businessId}'`, 'business_id');
  return { businessId, verified: true };
}

/**
 * Opts a business's disbursement items in (`true`, the default) or out of Verification of Payee
 * (docs/payee-verification.md "Batches"); single payouts are always verified. 404 not_found.
 */
export async function setPayeeBatchVerification(db: DbOrTx, businessId: string, verify: boolean): Promise<{ businessId: string; verifyPayeeBatches: boolean }> {
  const res = await db.updateTable('businesses').set({ verify_payee_batches: verify }).where('id', '=', businessId).executeTakeFirst();
  if (!res.numUpdatedRows) throw new ApiError(404, 'not_found', `No business with id '${businessId}'`, 'business_id');
  return { businessId, verifyPayeeBatches: verify };
}
