import { type Kysely, sql } from 'kysely';

/**
 * API key changes are announced (docs/api-keys.md "Authentication cache"): every change to a key
 * that decides how it authenticates (revoked, expiry, role, policy, hash, business, environment) and
 * every deletion sends `NOTIFY api_keys_changed, '<key id>'` when its transaction commits; a
 * TRUNCATE sends `'*'`. Each API process LISTENs on that channel and evicts the key from its cache
 * (src/core/api-key-cache.ts), so a revocation holds on every process at once. The once-a-minute
 * `last_used_at` write announces nothing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create function api_keys_notify() returns trigger language plpgsql as $$
    begin
      if tg_op = 'TRUNCATE' then
        perform pg_notify('api_keys_changed', '*');
      else
        perform pg_notify('api_keys_changed', old.id);
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger api_keys_changed_update after update on api_keys for each row
    when ((old.revoked_at, old.expires_at, old.role, old.policy::text, old.key_hash, old.business_id, old.environment)
      is distinct from (new.revoked_at, new.expires_at, new.role, new.policy::text, new.key_hash, new.business_id, new.environment))
    execute function api_keys_notify()`.execute(db);
  await sql`create trigger api_keys_changed_delete after delete on api_keys for each row execute function api_keys_notify()`.execute(db);
  await sql`create trigger api_keys_changed_truncate after truncate on api_keys for each statement execute function api_keys_notify()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger api_keys_changed_truncate on api_keys`.execute(db);
  await sql`drop trigger api_keys_changed_delete on api_keys`.execute(db);
  await sql`drop trigger api_keys_changed_update on api_keys`.execute(db);
  await sql`drop function api_keys_notify()`.execute(db);
}
