/**
 * Contact recipients: a person the business pays by claim link, reached by a phone number and/or an
 * e-mail address (Surface B `/recipients`, Surface C `POST /recipients {phone_number, email,
 * country}`). One core object for both surfaces, stored in the core's `recipients` table with type
 * `phone` (when a phone is given) or `email`, so Surface A sees the same recipient. Lookup columns
 * `contact_phone` (E.164) and `contact_email` (as given, trimmed) are set only for contact recipients
 * (migration 0020_contact_recipients).
 */
import type { Selectable } from 'kysely';
import type { RecipientsTable } from '../../db/tables/catalog';

/**
 * A contact recipient as every surface sees it (casing is the surface's job).
 * - `phone`: E.164 (`+` and digits), or null.
 * - `email`: as given (trimmed), or null. At least one of phone/email is set.
 * - `country`: ISO 3166-1 alpha-2 upper case; the phone's country when not given; null for an
 *   e-mail-only recipient without a country.
 * - `externalId`: the caller's own identifier, unique per business and environment.
 */
export interface ContactRecipient {
  id: string;
  type: 'phone' | 'email';
  phone: string | null;
  email: string | null;
  name: string | null;
  externalId: string | null;
  country: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Whether a `recipients` row is a contact recipient (created through this module). */
export function isContactRow(row: Selectable<RecipientsTable>): boolean {
  return row.contact_phone !== null || row.contact_email !== null;
}

/** A contact `recipients` row as a {@link ContactRecipient}. */
export function contactFromRow(row: Selectable<RecipientsTable>): ContactRecipient {
  return {
    id: row.id,
    type: row.type === 'email' ? 'email' : 'phone',
    phone: row.contact_phone,
    email: row.contact_email,
    name: row.name,
    externalId: row.external_id,
    country: row.country,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
