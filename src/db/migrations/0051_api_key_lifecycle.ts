import type { Kysely } from 'kysely';

/**
 * API key lifecycle (docs/api-keys.md): the last four characters of a key for display (null for
 * keys issued before this migration: only their hash was kept), when it was last used (recorded at
 * most once a minute per key), when a rolled key stops working (`expires_at`), and which key
 * replaced it (`rolled_to_key_id`). Listing a business's keys is by (business, environment).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('last4', 'text')
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('rolled_to_key_id', 'text')
    .execute();
  await db.schema.createIndex('api_keys_business_env').on('api_keys').columns(['business_id', 'environment', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('api_keys_business_env').execute();
  await db.schema
    .alterTable('api_keys')
    .dropColumn('last4')
    .dropColumn('last_used_at')
    .dropColumn('expires_at')
    .dropColumn('rolled_to_key_id')
    .execute();
}
