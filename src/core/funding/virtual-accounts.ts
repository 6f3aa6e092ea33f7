/** Virtual accounts (spec "VirtualAccount"): bank details whose transfers become deposits, returned masked. */
import { liveVirtualAccountIssuer } from '../rails/rail-adapters';
import type { Selectable } from 'kysely';
import { type Page, paginate } from '../paging';
import type { DbOrTx, Environment } from '../../db/schema';
import type { VirtualAccountsTable } from '../../db/tables/funding';
import { ApiError, validationError } from '../../domain/errors';
import {
  ACCOUNT_IDENTIFIER_FIELD,
  maskAccountDetails,
  REFERENCE_REQUIRED,
  sandboxAccountDetails,
  VIRTUAL_ACCOUNT_CURRENCIES,
  VIRTUAL_ACCOUNT_RAIL,
  type VirtualAccountCurrency,
} from '../../domain/funding';
import { newId, randomDigits } from '../../domain/ids';
import type { VirtualAccount } from '../../domain/virtual-accounts';
import type { Caller, Core } from '../context';
import { requireVerifiedBusiness } from './verification';
import { isUniqueViolation } from '../../db/errors';
import { ownedOr404, scoped } from '../tenancy';

export type VirtualAccountRow = Selectable<VirtualAccountsTable>;

/** The virtual account of a row, details masked (spec "VirtualAccount": "returned masked"). */
export function toVirtualAccount(row: VirtualAccountRow): VirtualAccount {
  const currency = row.currency as VirtualAccountCurrency;
  return {
    id: row.id,
    currency,
    rail: row.rail,
    status: row.status as 'active',
    details: maskAccountDetails(currency, row.details),
    referenceRequired: row.reference_required,
    label: row.label,
    createdAt: new Date(row.created_at),
  };
}

/** Parses a virtual account currency; 400 validation_error naming `param`. */
export function parseVirtualAccountCurrency(value: unknown, param = 'currency'): VirtualAccountCurrency {
  if (typeof value !== 'string' || !(VIRTUAL_ACCOUNT_CURRENCIES as readonly string[]).includes(value)) {
    throw validationError(param, `${param} must be one of ${VIRTUAL_ACCOUNT_CURRENCIES.join(', ')}`);
  }
  return value as VirtualAccountCurrency;
}


/** Longest label, in characters. */
export const MAX_LABEL_LENGTH = 100;

/**
 * POST /virtual-accounts. 400 validation_error (`currency`, `label`); 403 verification_required;
 * 400 channel_unavailable (`currency`) in live without a banking partner for the currency.
 */
export async function createVirtualAccount(
  core: Core,
  caller: Caller,
  input: { currency: unknown; label?: unknown },
): Promise<VirtualAccount> {
  const currency = parseVirtualAccountCurrency(input.currency);
  let label: string | null = null;
  if (input.label !== undefined && input.label !== null) {
    if (typeof input.label !== 'string' || input.label.length > MAX_LABEL_LENGTH) {
      throw validationError('label', `label must be a string of at most ${MAX_LABEL_LENGTH} characters`);
    }
    label = input.label;
  }
  const business = await requireVerifiedBusiness(core.db, caller, 'A virtual account');
  // Live EUR accounts take their IBAN from the bank's range (docs/rails.md "Live deposits").
  const live = caller.environment === 'live' ? liveVirtualAccountIssuer(core, currency) : null;
  if (caller.environment === 'live' && !live) {
    throw new ApiError(
      400,
      'channel_unavailable',
      `No live banking partner is configured for ${currency} virtual accounts; use the sandbox`,
      'currency',
    );
  }
  for (let attempt = 0; ; attempt++) {
    const details = live ? live(business.name) : sandboxAccountDetails(currency, business.name, randomDigits(12));
    try {
      const row = await core.db
        .insertInto('virtual_accounts')
        .values({
          id: newId('va'),
          business_id: caller.businessId,
          environment: caller.environment,
          currency,
          rail: VIRTUAL_ACCOUNT_RAIL[currency],
          status: 'active',
          details: JSON.stringify(details) as any,
          account_identifier: details[ACCOUNT_IDENTIFIER_FIELD[currency]],
          reference_required: REFERENCE_REQUIRED[currency],
          label,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toVirtualAccount(row);
    } catch (err) {
      if (isUniqueViolation(err) && attempt < 5) continue; // an account identifier collision: draw again
      throw err;
    }
  }
}

/** GET /virtual-accounts: newest first, cursor paging. 400 validation_error (`currency`, `cursor`). */
export async function listVirtualAccounts(
  core: Core,
  caller: Caller,
  q: { limit: number; cursor?: string; currency?: string },
): Promise<Page<VirtualAccount>> {
  let query = scoped(core.db, caller)
    .selectFrom('virtual_accounts')
    .selectAll();
  if (q.currency !== undefined) query = query.where('currency', '=', parseVirtualAccountCurrency(q.currency));
  const page = await paginate(query, 'id', { limit: q.limit, cursor: q.cursor });
  return { data: page.rows.map(toVirtualAccount), nextCursor: page.nextCursor };
}

/** The caller's virtual account row; 404 not_found naming `param`. */
export async function getVirtualAccountRow(db: DbOrTx, caller: Caller, id: string, param = 'id'): Promise<VirtualAccountRow> {
  return ownedOr404(db, caller, 'virtual_accounts', id, 'virtual account', param);
}

/** GET /virtual-accounts/{id}. 404 not_found. */
export async function getVirtualAccount(core: Core, caller: Caller, id: string): Promise<VirtualAccount> {
  return toVirtualAccount(await getVirtualAccountRow(core.db, caller, id));
}

/** Every active virtual account of a business and environment, details whole, oldest first. */
export async function activeVirtualAccounts(db: DbOrTx, businessId: string, environment: Environment): Promise<VirtualAccountRow[]> {
  return db
    .selectFrom('virtual_accounts')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('environment', '=', environment)
    .where('status', '=', 'active')
    .orderBy('id')
    .execute();
}
