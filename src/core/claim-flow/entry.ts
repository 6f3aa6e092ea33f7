/**
 * Validation of one Surface B disbursement (spec "Surface B resources": disbursement create; "Errors",
 * Surface B; "Limits": minimum 1.00 USD) into the core's claim-link payout request. Pure (no I/O);
 * shared by the single create and every entry of a batch, so both refuse exactly the same things.
 */
import { z } from 'zod';
import { ApiError, validationError } from '../../domain/errors';
import { AmountFormatError, parseAmount } from '../../domain/money';
import { phoneCountry, receivability } from '../../domain/recipients';
import { MAX_MESSAGE_LENGTH, MAX_REFERENCE_LENGTH, type PayoutRequest } from '../payouts';

/** Spec minimum disbursement: 1.00 USD, in cents. */
export const MIN_DISBURSEMENT_CENTS = 100n;

/** One disbursement as the caller sends it (Surface B wire names; `currency` only on the single create). */
export interface ClaimEntryInput {
  recipientPhone?: unknown;
  recipientEmail?: unknown;
  amountUsd?: unknown;
  currency?: unknown;
  reference?: unknown;
  note?: unknown;
}

/** A validated entry: the core payout request plus what the batch totals need. */
export interface ClaimEntry {
  request: PayoutRequest;
  /** amountUsd in cents. */
  amountCents: bigint;
}

const emailSchema = z.email();
const given = (v: unknown) => v !== undefined && v !== null;

function text(v: unknown, param: string, max: number): string | undefined {
  if (!given(v)) return undefined;
  if (typeof v !== 'string') throw validationError(param, `${param} must be a string`);
  if (v.length > max) throw validationError(param, `${param} must be at most ${max} characters (got ${v.length})`);
  return v;
}

/**
 * Validates one disbursement; error params are the wire names prefixed with `prefix` (e.g.
 * `disbursements.3.`). Throws ApiError:
 * - 400 `validation_error`: not exactly one of recipientPhone / recipientEmail (`recipientPhone`),
 *   bad e-mail (`recipientEmail`), amountUsd missing, not a decimal string or over 2 decimals
 *   (`amountUsd`), currency other than USD (`currency`), reference over 140 or note over 500
 *   characters;
 * - 400 `invalid_phone` (`recipientPhone`): not a valid phone number in E.164;
 * - 422 `recipient_country_unsupported` (`recipientPhone`): no payout method in the phone's country;
 * - 422 `amount_below_minimum` (`amountUsd`): below 1.00 USD.
 */
export function validateClaimEntry(input: ClaimEntryInput, prefix = ''): ClaimEntry {
  const p = (name: string) => `${prefix}${name}`;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw validationError(prefix.replace(/\.$/, '') || null, 'must be an object');
  const hasPhone = given(input.recipientPhone);
  const hasEmail = given(input.recipientEmail);
  if (hasPhone === hasEmail) {
    throw validationError(p('recipientPhone'), 'Give exactly one of recipientPhone (E.164) or recipientEmail');
  }
  let recipient: PayoutRequest['recipient'];
  if (hasPhone) {
    const phone = typeof input.recipientPhone === 'string' ? input.recipientPhone.trim() : '';
    // One libphonenumber-js parse per entry (10,000-entry batches): strict E.164 and its country.
    const country = phoneCountry(phone);
    if (!country) {
      throw new ApiError(400, 'invalid_phone', 'recipientPhone must be a valid phone number in E.164 format, e.g. +525512345678', p('recipientPhone'));
    }
    if (!countryReceivable(country, phone)) {
      throw new ApiError(
        422,
        'recipient_country_unsupported',
        `No payout method reaches ${country}; the recipient could not cash out`,
        p('recipientPhone'),
        { country },
      );
    }
    recipient = { type: 'phone', number: phone };
  } else {
    const email = typeof input.recipientEmail === 'string' ? input.recipientEmail.trim() : '';
    if (!email || email.length > 254 || !emailSchema.safeParse(email).success) {
      throw validationError(p('recipientEmail'), 'recipientEmail must be a valid e-mail address');
    }
    recipient = { type: 'email', address: email };
  }

  if (!given(input.amountUsd)) throw validationError(p('amountUsd'), 'amountUsd is required');
  if (typeof input.amountUsd !== 'string') throw validationError(p('amountUsd'), 'amountUsd must be a decimal string such as "25.00"');
  let cents: bigint;
  try {
    cents = parseAmount(input.amountUsd, 'USD', { allowZero: true });
  } catch (e) {
    if (e instanceof AmountFormatError) throw validationError(p('amountUsd'), `amountUsd: ${e.message}`);
    throw e;
  }
  if (cents < MIN_DISBURSEMENT_CENTS) {
    throw new ApiError(422, 'amount_below_minimum', `amountUsd must be at least 1.00 USD (got ${input.amountUsd})`, p('amountUsd'), { minimumUsd: '1.00' });
  }
  if (given(input.currency) && input.currency !== 'USD') throw validationError(p('currency'), 'currency must be USD');
  const reference = text(input.reference, p('reference'), MAX_REFERENCE_LENGTH);
  const note = text(input.note, p('note'), MAX_MESSAGE_LENGTH);

  return {
    amountCents: cents,
    request: {
      channel: 'claim_link',
      recipient,
      // Spec "Limits": minimum 1.00 USD (checked above), no maximum for a single disbursement.
      noMaximum: true,
      // 1 USD = 1 USDC: cents -> the USDC decimal string of the same value.
      sourceAmount: input.amountUsd,
      ...(reference !== undefined ? { reference } : {}),
      ...(note !== undefined ? { message: note } : {}),
    },
  };
}

const receivableByCountry = new Map<string, boolean>();
/** Whether a phone of `country` can cash out (receivability; the catalog is static, so memoised per country). */
function countryReceivable(country: string, samplePhone: string): boolean {
  let r = receivableByCountry.get(country);
  if (r === undefined) {
    r = receivability({ type: 'phone', number: samplePhone }).receivable;
    receivableByCountry.set(country, r);
  }
  return r;
}

/** Core payout params -> Surface B wire names (errors the core raises while preparing an entry). */
const PARAM_NAMES: Record<string, string> = {
  source_amount: 'amountUsd',
  'recipient.number': 'recipientPhone',
  'recipient.address': 'recipientEmail',
  recipient: 'recipientPhone',
  message: 'note',
  reference: 'reference',
  channel: 'recipientPhone',
};

/** Re-throws a core ApiError with its param renamed to Surface B's wire name (keeps the prefix). */
export function renameCoreParam(err: unknown, prefix = ''): never {
  if (err instanceof ApiError && err.param) {
    const bare = prefix && err.param.startsWith(prefix) ? err.param.slice(prefix.length) : err.param;
    const name = PARAM_NAMES[bare];
    if (name) throw new ApiError(err.status, err.code, err.message, `${prefix}${name}`, err.details);
  }
  throw err;
}
