/**
 * Virtual accounts (spec "VirtualAccount", Surface A `POST/GET /virtual-accounts`; Surface B
 * `/funding/accounts` adapts the same functions). A business receives bank transfers on them; each
 * transfer becomes a deposit (./deposits.ts) credited to the USDC balance.
 *
 * The sandbox issues details that pass real validators (src/domain/funding.ts): a German IBAN with
 * correct mod-97 check digits (ibantools) and a BIC, a CLABE with a correct check digit, a 12-digit
 * account number with a checksum-valid ABA routing number. The API returns them masked; the public
 * payment link page shows them whole (a payer needs them).
 */
import { liveVirtualAccountIssuer } from '../rails/rail-adapters';
import type { Selectable } from 'kysely';
import { type ListEnvelope, paginate } from '../paging';
import type { DbOrTx, Environment } from '../../db/schema';
import type { VirtualAccountsTable } from '../../db/tables/funding';
import { ApiError, notFound, validationError } from '../../domain/errors';
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

/** A stored virtual account row (details whole). */
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

/** Parses a virtual account currency; 400 validation_error naming `param` otherwise. */
export function parseVirtualAccountCurrency(value: unknown, param = 'currency'): VirtualAccountCurrency {
  if (typeof value !== 'string' || !(VIRTUAL_ACCOUNT_CURRENCIES as readonly string[]).includes(value)) {
    throw validationError(param, `${param} must be one of ${VIRTUAL_ACCOUNT_CURRENCIES.join(', ')}`);
  }
  return value as VirtualAccountCurrency;
}


/** Largest label (extension; Surface B's funding account `label`). */
export const MAX_LABEL_LENGTH = 100;

/**
 * POST /virtual-accounts `{currency}` (Surface B: `{currency, label}`): issues an active account of
 * the business in the caller's environment, details from the sandbox partner bank, beneficiary the
 * business's name. Errors: 400 validation_error (`currency`, `label`); 403 verification_required
 * for an unverified business; 400 channel_unavailable (`currency`) in the live environment, where
 * no banking partner is configured for the currency (live EUR accounts need the SEPA rail's
 * virtual IBAN range, RAIL_SEPA_VIRTUAL_IBAN_RANGE).
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
  // Live: EUR accounts take their IBAN from the range the bank assigned (docs/rails.md "Live
  // deposits"); other currencies have no live banking partner yet.
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

/** GET /virtual-accounts: newest first, cursor paging, optional currency filter. 400 validation_error (`currency`, `cursor`). */
export async function listVirtualAccounts(
  core: Core,
  caller: Caller,
  q: { limit: number; cursor?: string; currency?: string },
): Promise<ListEnvelope<VirtualAccount>> {
  let query = core.db
    .selectFrom('virtual_accounts')
    .selectAll()
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment);
  if (q.currency !== undefined) query = query.where('currency', '=', parseVirtualAccountCurrency(q.currency));
  const page = await paginate(query, 'id', { limit: q.limit, cursor: q.cursor });
  return { data: page.rows.map(toVirtualAccount), next_cursor: page.next_cursor };
}

/** The row of a virtual account of the caller; 404 not_found naming `param` otherwise. */
export async function getVirtualAccountRow(db: DbOrTx, caller: Caller, id: string, param = 'id'): Promise<VirtualAccountRow> {
  const row = await db
    .selectFrom('virtual_accounts')
    .selectAll()
    .where('id', '=', id)
    .where('business_id', '=', caller.businessId)
    .where('environment', '=', caller.environment)
    .executeTakeFirst();
  if (!row) throw notFound('virtual account', id, param);
  return row;
}

/** GET /virtual-accounts/{id} (extension; Surface B GET /funding/accounts/:id). 404 not_found. */
export async function getVirtualAccount(core: Core, caller: Caller, id: string): Promise<VirtualAccount> {
  return toVirtualAccount(await getVirtualAccountRow(core.db, caller, id));
}

/** Every active virtual account of a business and environment, details whole (the public payment page), oldest first. */
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
