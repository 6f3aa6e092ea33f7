/** Creates a contact recipient (docs/surface-b.md; Surface C `POST /recipients`). */
import { z } from 'zod';
import type { DbOrTx } from '../../db/schema';
import { ApiError, validationError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { isE164, phoneCountry, validateRecipientDetails } from '../../domain/recipients';
import type { Caller, Core } from '../context';
import { insertRecipientRow } from '../recipients';
import { saveRecipientScreening, screenRecipient } from '../screening/recipient-screening';
import { type ContactRecipient, contactFromRow } from './contact-record';
import { isUniqueViolation } from '../../db/errors';

/** Error `param`s name these core fields; each surface renames them. */
export interface CreateContactInput {
  phone?: string | null;
  email?: string | null;
  name?: string | null;
  externalId?: string | null;
  /** Must match the phone's country when both are given. */
  country?: string | null;
}

const emailSchema = z.email();
const blank = (v: string | null | undefined) => v === undefined || v === null || v.trim() === '';

export interface NormalisedContact {
  phone: string | null;
  email: string | null;
  name: string | null;
  externalId: string | null;
  country: string | null;
}

/** Validates and normalises (pure). Throws 400 `invalid_phone` (param `phone`) or `validation_error` (the field). */
export function normaliseContact(input: CreateContactInput): NormalisedContact {
  const phone = blank(input.phone) ? null : (input.phone as string).trim();
  const email = blank(input.email) ? null : (input.email as string).trim();
  if (!phone && !email) throw validationError('phone', 'Give a phone number (E.164) or an e-mail address');
  if (phone && !isE164(phone)) {
    throw new ApiError(400, 'invalid_phone', 'phone must be a valid phone number in E.164 format, e.g. +14155552671', 'phone');
  }
  if (email && (email.length > 254 || !emailSchema.safeParse(email).success)) {
    throw validationError('email', 'email must be a valid e-mail address');
  }
  let country = blank(input.country) ? null : (input.country as string).trim().toUpperCase();
  if (country && !/^[A-Z]{2}$/.test(country)) throw validationError('country', 'country must be an ISO 3166-1 alpha-2 code, e.g. MX');
  const fromPhone = phone ? phoneCountry(phone) : null;
  if (country && fromPhone && country !== fromPhone) {
    throw validationError('country', `country is ${country} but the phone number is from ${fromPhone}`);
  }
  country ??= fromPhone;
  const name = blank(input.name) ? null : (input.name as string).trim();
  if (name && name.length > 200) throw validationError('name', 'name must be at most 200 characters');
  const externalId = blank(input.externalId) ? null : (input.externalId as string).trim();
  if (externalId && externalId.length > 255) throw validationError('externalId', 'externalId must be at most 255 characters');
  return { phone, email, name, externalId, country };
}

/**
 * Stores a contact recipient (type `phone`, else `email`). Throws the errors of {@link normaliseContact}
 * and 409 `external_id_taken` (param `externalId`). `db` may be a transaction.
 */
export async function createContactRecipient(
  core: Core,
  caller: Caller,
  input: CreateContactInput,
  db: DbOrTx = core.db,
): Promise<ContactRecipient> {
  const c = normaliseContact(input);
  const type = c.phone ? 'phone' : 'email';
  const v = validateRecipientDetails(type, c.phone ? { number: c.phone } : { address: c.email }, c.country ? { country: c.country } : {});
  const now = core.now();
  const id = newId('rcp', now.getTime());
  const screening = await screenRecipient(core, caller.environment, id, { name: c.name, kind: 'individual', country: c.country, details: {} });
  try {
    const row = await insertRecipientRow(db, {
        id,
        business_id: caller.businessId,
        environment: caller.environment,
        type,
        country: c.country,
        currency: null,
        name: c.name,
        kind: 'individual',
        external_id: c.externalId,
        details: JSON.stringify(v.details),
        status: v.status,
        missing_fields: JSON.stringify(v.missingFields),
        channels: JSON.stringify(v.channels),
        contact_phone: c.phone,
        contact_email: c.email,
        deleted_at: null,
        created_at: now,
        updated_at: now,
    });
    await saveRecipientScreening(db, { recipientId: id, businessId: caller.businessId, environment: caller.environment, screenedAt: now }, screening);
    return contactFromRow(row);
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new ApiError(409, 'external_id_taken', `A recipient with externalId '${c.externalId}' already exists`, 'externalId');
    }
    throw err;
  }
}
