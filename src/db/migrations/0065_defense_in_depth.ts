import { type Kysely, sql } from 'kysely';

/**
 * Defense in depth for the money (docs/security.md "The database enforces the ledger",
 * "Database roles", "Audit trail"):
 *
 * 1. Append-only money records. `ledger_postings`, `disbursement_approvals` and `audit_events`
 *    refuse UPDATE, DELETE and TRUNCATE for every role, the owner included, unless the statement
 *    runs in migration mode: `SET LOCAL payouts.migration = 'on'` by a member of the table's owner
 *    role (src/db/migration-mode.ts). Application roles have no UPDATE/DELETE grant on them either.
 * 2. Balances are maintained by the database from postings. An AFTER INSERT trigger on
 *    `ledger_postings` (`ledger_apply_posting`, SECURITY DEFINER) moves the balance row of the
 *    posting's business, environment and currency (creating it at zero first). A BEFORE trigger on
 *    `balances` (`balances_guard`) refuses, outside migration mode, every change not made from
 *    inside that trigger (`pg_trigger_depth() > 1`): a direct UPDATE of `available`/`held`, a
 *    DELETE, a TRUNCATE, and an INSERT of a non-zero row. So no statement moves a balance without
 *    the posting that explains it. CHECK (available >= 0 AND held >= 0) stays; the application's
 *    guard (`select … for no key update` where the debited column covers the amount, in the same
 *    statement as the posting, src/core/ledger.ts) keeps the 402 decision in one round trip.
 * 3. Roles `payouts_api`, `payouts_worker`, `payouts_admin` (NOLOGIN group roles; created when the
 *    migrating role may, else left to the operator, docs/operations.md "Database roles") with DML on
 *    every table except the append-only ones (SELECT, INSERT) and `balances` (SELECT and
 *    UPDATE(updated_at), which `for no key update` needs), and SELECT only on Kysely's migration
 *    tables. Default privileges give tables later migrations create the same DML grants; a later
 *    migration that adds an append-only table attaches `refuse_change` and revokes UPDATE, DELETE.
 * 4. `audit_events`: the audit trail (src/core/audit.ts is its one writer), hash-chained per
 *    business (`seq`, `prev_hash`, `hash`).
 */
export const APP_ROLES = ['payouts_api', 'payouts_worker', 'payouts_admin'] as const;
/** Tables whose rows are never updated or deleted outside migration mode. */
export const APPEND_ONLY_TABLES = ['ledger_postings', 'disbursement_approvals', 'audit_events'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text')
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull().check(sql`actor_type in ('api_key', 'operator', 'system')`))
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('forwarded_for', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('request_id', 'text')
    .addColumn('before', 'jsonb')
    .addColumn('after', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addUniqueConstraint('audit_events_chain', ['business_id', 'seq'])
    .execute();
  await sql`create index audit_events_list on audit_events (business_id, environment, created_at desc, id desc)`.execute(db);

  await sql`create function ledger_migration_mode(rel oid) returns boolean language sql stable as $$
    select coalesce(current_setting('payouts.migration', true), '') = 'on'
       and pg_has_role(current_user, (select relowner from pg_class where oid = rel), 'MEMBER')
  $$`.execute(db);

  await sql`create function refuse_change() returns trigger language plpgsql as $$
    begin
      if ledger_migration_mode(tg_relid) then
        if tg_level = 'STATEMENT' then return null; end if;
        if tg_op = 'DELETE' then return old; end if;
        return new;
      end if;
      raise exception '% is append-only: % refused', tg_table_name, tg_op
        using errcode = 'insufficient_privilege',
              hint = 'Postings and audit records are never changed; correct with a new posting (docs/security.md).';
    end $$`.execute(db);

  for (const t of APPEND_ONLY_TABLES) {
    await sql`create trigger ${sql.raw(`${t}_append_only`)} before update or delete on ${sql.table(t)} for each row execute function refuse_change()`.execute(db);
    await sql`create trigger ${sql.raw(`${t}_no_truncate`)} before truncate on ${sql.table(t)} for each statement execute function refuse_change()`.execute(db);
  }

  await sql`create function ledger_apply_posting() returns trigger language plpgsql security definer set search_path = pg_catalog, public as $$
    declare
      da bigint := 0;
      dh bigint := 0;
    begin
      if new.credit_account = 'available' then da := da + new.amount; end if;
      if new.debit_account = 'available' then da := da - new.amount; end if;
      if new.credit_account = 'held' then dh := dh + new.amount; end if;
      if new.debit_account = 'held' then dh := dh - new.amount; end if;
      if da = 0 and dh = 0 then return null; end if;
      update balances set available = available + da, held = held + dh, updated_at = now()
        where business_id = new.business_id and environment = new.environment and currency = new.currency;
      if not found then
        insert into balances (business_id, environment, currency, available, held, updated_at)
          values (new.business_id, new.environment, new.currency, 0, 0, now())
          on conflict do nothing;
        update balances set available = available + da, held = held + dh, updated_at = now()
          where business_id = new.business_id and environment = new.environment and currency = new.currency;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger ledger_postings_apply after insert on ledger_postings for each row execute function ledger_apply_posting()`.execute(db);

  await sql`create function balances_guard() returns trigger language plpgsql as $$
    begin
      if pg_trigger_depth() > 1 or ledger_migration_mode(tg_relid) then
        if tg_level = 'STATEMENT' then return null; end if;
        if tg_op = 'DELETE' then return old; end if;
        return new;
      end if;
      if tg_op = 'INSERT' then
        if new.available = 0 and new.held = 0 then return new; end if;
      elsif tg_op = 'UPDATE' then
        if new.available = old.available and new.held = old.held and new.business_id = old.business_id
           and new.environment = old.environment and new.currency = old.currency then
          return new;
        end if;
      end if;
      raise exception 'balances move only with a ledger posting: % refused', tg_op
        using errcode = 'insufficient_privilege',
              hint = 'Insert the posting into ledger_postings; the database applies it to the balance (docs/security.md).';
    end $$`.execute(db);
  await sql`create trigger balances_guard before insert or update or delete on balances for each row execute function balances_guard()`.execute(db);
  await sql`create trigger balances_no_truncate before truncate on balances for each statement execute function balances_guard()`.execute(db);

  // Roles and grants. CREATE ROLE needs CREATEROLE: where the migrating role lacks it, the roles are
  // the operator's to create (docs/operations.md "Database roles") and the grants wait for them
  // (`npm run admin -- db grants` applies them again).
  await sql`do $$
    declare r text;
    begin
      foreach r in array array['payouts_api', 'payouts_worker', 'payouts_admin'] loop
        if not exists (select 1 from pg_roles where rolname = r) then
          begin
            execute format('create role %I nologin', r);
          exception
            when duplicate_object or unique_violation then null;
            when insufficient_privilege then raise notice 'role % not created (no CREATEROLE); create it and run npm run admin -- db grants', r;
          end;
        end if;
      end loop;
    end $$`.execute(db);
  await applyGrants(db);
}

/**
 * The grants of the application roles (docs/security.md "Database roles"): idempotent, run by this
 * migration and by `npm run admin -- db grants`; skips a role that does not exist.
 */
export async function applyGrants(db: Kysely<any>): Promise<void> {
  await sql`do $$
    declare
      r text;
      t text;
    begin
      foreach r in array array['payouts_api', 'payouts_worker', 'payouts_admin'] loop
        continue when not exists (select 1 from pg_roles where rolname = r);
        execute format('grant usage on schema public to %I', r);
        execute format('grant select, insert, update, delete on all tables in schema public to %I', r);
        execute format('grant usage, select on all sequences in schema public to %I', r);
        execute format('alter default privileges in schema public grant select, insert, update, delete on tables to %I', r);
        execute format('alter default privileges in schema public grant usage, select on sequences to %I', r);
        foreach t in array array['ledger_postings', 'disbursement_approvals', 'audit_events'] loop
          execute format('revoke update, delete, truncate on %I from %I', t, r);
        end loop;
        execute format('revoke insert, update, delete, truncate on balances from %I', r);
        execute format('grant update (updated_at) on balances to %I', r);
        foreach t in array array['kysely_migration', 'kysely_migration_lock'] loop
          if to_regclass(t) is not null then
            execute format('revoke insert, update, delete, truncate on %I from %I', t, r);
          end if;
        end loop;
      end loop;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists balances_guard on balances`.execute(db);
  await sql`drop trigger if exists balances_no_truncate on balances`.execute(db);
  await sql`drop trigger if exists ledger_postings_apply on ledger_postings`.execute(db);
  for (const t of APPEND_ONLY_TABLES) {
    await sql`drop trigger if exists ${sql.raw(`${t}_append_only`)} on ${sql.table(t)}`.execute(db);
    await sql`drop trigger if exists ${sql.raw(`${t}_no_truncate`)} on ${sql.table(t)}`.execute(db);
  }
  await sql`drop table audit_events`.execute(db);
  await sql`drop function balances_guard()`.execute(db);
  await sql`drop function ledger_apply_posting()`.execute(db);
  await sql`drop function refuse_change()`.execute(db);
  await sql`drop function ledger_migration_mode(oid)`.execute(db);
}
