import { ApiError } from '../../domain/errors';
import type { DbOrTx } from '../../db/schema';
import type { Caller } from '../context';

/** Throws 403 verification_required (spec "Errors") unless the caller's business is verified; returns its name. */
export async function requireVerifiedBusiness(db: DbOrTx, caller: Caller, what: string): Promise<{ name: string }> {
  const b = await db.selectFrom('businesses').select(['name', 'verified']).where('id', '=', caller.businessId).executeTakeFirst();
  if (!b || !b.verified) {
    throw new ApiError(
      403,
      'verification_required',
      `${what} needs a verified business; ask your account manager to verify it (operators: npm run admin -- business verify ${caller.businessId})`,
      null,
    );
  }
  return { name: b.name };
}
