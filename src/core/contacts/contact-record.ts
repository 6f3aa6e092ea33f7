/**
 * Contact recipients (Surfaces B and C): a person reached by phone and/or e-mail, stored in
 * `recipients` as type `phone` or `email` so Surface A sees the same recipient.
 */
import type { Selectable } from 'kysely';
import type { RecipientsTable } from '../../db/tables/catalog';

/** Phone E.164, email trimmed (at least one set), country ISO alpha-2; externalId unique per business and environment. */
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

export function isContactRow(row: Selectable<RecipientsTable>): boolean {
  return row.contact_phone !== null || row.contact_email !== null;
}

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
