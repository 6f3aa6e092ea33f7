/** Reads contact recipients, scoped to the caller's business and environment (another tenant's is a 404). */
import { ApiError, notFound } from '../../domain/errors';
import { isE164 } from '../../domain/recipients';
import type { Caller, Core } from '../context';
import { type ContactRecipient, contactFromRow } from './contact-record';
import { scoped as tenantScope } from '../tenancy';

function scoped(core: Core, caller: Caller) {
  return tenantScope(core.db, caller)
    .selectFrom('recipients')
    .selectAll()
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('contact_phone', 'is not', null), eb('contact_email', 'is not', null)]));
}

/** 404 `not_found` (param `id`) if absent, deleted, not a contact or another tenant's. */
export async function getContactRecipient(core: Core, caller: Caller, id: string): Promise<ContactRecipient> {
  const row = await scoped(core, caller).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('recipient', id);
  return contactFromRow(row);
}

/** The newest live contact with this phone (phones are not unique). 400 `invalid_phone`, 404 `not_found` (param `phone`). */
export async function getContactRecipientByPhone(core: Core, caller: Caller, phone: string): Promise<ContactRecipient> {
  const p = phone.trim();
  if (!isE164(p)) throw new ApiError(400, 'invalid_phone', 'phone must be a valid phone number in E.164 format, e.g. +14155552671', 'phone');
  const row = await scoped(core, caller).where('contact_phone', '=', p).orderBy('id', 'desc').limit(1).executeTakeFirst();
  if (!row) throw new ApiError(404, 'not_found', `No recipient with phone '${p}'`, 'phone');
  return contactFromRow(row);
}

/** 404 `not_found` (param `externalId`) when none. */
export async function getContactRecipientByExternalId(core: Core, caller: Caller, externalId: string): Promise<ContactRecipient> {
  const row = await scoped(core, caller).where('external_id', '=', externalId).executeTakeFirst();
  if (!row) throw new ApiError(404, 'not_found', `No recipient with externalId '${externalId}'`, 'externalId');
  return contactFromRow(row);
}

/** Newest first, `limit` 1..200 after cursor `after`; 400 `validation_error` (param `after`) for a foreign cursor. */
export async function listContactRecipients(
  core: Core,
  caller: Caller,
  page: { limit: number; after?: string },
): Promise<{ data: ContactRecipient[]; nextCursor: string | null }> {
  let q = scoped(core, caller);
  if (page.after) q = q.where('id', '<', decodeContactCursor(page.after));
  const rows = await q.orderBy('id', 'desc').limit(page.limit + 1).execute();
  const more = rows.length > page.limit;
  const data = (more ? rows.slice(0, page.limit) : rows).map(contactFromRow);
  return { data, nextCursor: more ? encodeContactCursor(data[data.length - 1].id) : null };
}

export const encodeContactCursor = (id: string) => Buffer.from(JSON.stringify({ a: id })).toString('base64url');

function decodeContactCursor(cursor: string): string {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof v?.a === 'string') return v.a;
  } catch {
  }
  throw new ApiError(400, 'validation_error', 'after is not a valid cursor; pass nextCursor from a previous page', 'after');
}
