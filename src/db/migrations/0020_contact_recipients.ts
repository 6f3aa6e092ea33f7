import { type Kysely, sql } from 'kysely';

/**
 * Contact recipients (Surface B `/recipients`, Surface C `POST /recipients`): a person reached by a
 * phone number and/or an e-mail address, stored in the core's `recipients` table (type phone or
 * email). `contact_phone` (E.164) and `contact_email` (trimmed) are the lookup columns; both are
 * null for every other recipient. `external_id` is unique per business and environment among live
 * contact recipients (Surface A's saved recipients keep their free-form external_id).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('recipients').addColumn('contact_phone', 'text').execute();
  await db.schema.alterTable('recipients').addColumn('contact_email', 'text').execute();
  await sql`create index recipients_contact_phone on recipients (business_id, environment, contact_phone) where contact_phone is not null`.execute(
    db,
  );
  await sql`create unique index recipients_contact_external_id on recipients (business_id, environment, external_id)
    where external_id is not null and deleted_at is null and (contact_phone is not null or contact_email is not null)`.execute(db);
}
