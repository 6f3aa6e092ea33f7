import { type Kysely, sql } from 'kysely';

/**
 * Card money in (issue #53; docs/getting-paid.md "Card payments"): live card payments through a card
 * processor, its signed events, refunds and disputes, and the rolling reserve.
 *
 * - `card_payments`: one per Checkout Session (a live card top-up, or a card payment on a payment
 *   link or request); `amount`/`fee`/`refunded` in minor units of `currency`.
 * - `card_reserves`: the rolling reserve of each card deposit, micro-USDC (`remaining` drops when a
 *   dispute takes from it, and to zero when released).
 * - `card_processor_events`: each processor event once (`id` = `<processor>:<event id>`).
 * - `card_refunds`, `card_disputes`: amounts in minor units of the payment's currency, `taken_*` and
 *   `shortfall` in micro-USDC.
 * - `balances.reserve`: card-funded micro-USDC held for the reserve period, moved only by postings
 *   (account `reserve`), like `available` and `held`: the posting trigger and the balance guard of
 *   migration 0065 are replaced to cover it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('card_payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull().check(sql`purpose in ('topup', 'payment_link', 'payment_request')`))
    .addColumn('card_topup_id', 'text')
    .addColumn('payment_link_id', 'text')
    .addColumn('payment_request_id', 'text')
    .addColumn('processor', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.unique())
    .addColumn('session_url', 'text')
    .addColumn('session_expires_at', 'timestamptz')
    .addColumn('payment_intent_id', 'text')
    .addColumn('charge_id', 'text')
    .addColumn('fee', 'bigint')
    .addColumn('deposit_id', 'text')
    .addColumn('refunded', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`refunded >= 0`))
    .addColumn('success_url', 'text', (c) => c.notNull())
    .addColumn('cancel_url', 'text', (c) => c.notNull())
    .addColumn('paid_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index card_payments_business on card_payments (business_id, environment, created_at desc, id desc)`.execute(db);
  await sql`create unique index card_payments_payment_intent on card_payments (processor, payment_intent_id) where payment_intent_id is not null`.execute(db);
  await sql`create index card_payments_open on card_payments (status, updated_at) where status in ('creating', 'open', 'processing')`.execute(db);

  await db.schema
    .createTable('card_reserves')
    .addColumn('deposit_id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('card_payment_id', 'text')
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('remaining', 'bigint', (c) => c.notNull().check(sql`remaining >= 0`))
    .addColumn('release_at', 'timestamptz', (c) => c.notNull())
    .addColumn('released_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index card_reserves_due on card_reserves (release_at) where released_at is null`.execute(db);
  await sql`create index card_reserves_business on card_reserves (business_id, environment, release_at) where released_at is null`.execute(db);

  await db.schema
    .createTable('card_processor_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('processor', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('card_payment_id', 'text')
    .addColumn('dispute_id', 'text')
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('outcome', 'text')
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .addColumn('applied_at', 'timestamptz')
    .execute();
  await sql`create index card_processor_events_payment on card_processor_events (card_payment_id, received_at)`.execute(db);

  await db.schema
    .createTable('card_refunds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('card_payment_id', 'text')
    .addColumn('card_topup_id', 'text')
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('debit', 'bigint', (c) => c.notNull().check(sql`debit > 0`))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('processor_refund_id', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index card_refunds_pending on card_refunds (status, updated_at) where status = 'pending'`.execute(db);

  await db.schema
    .createTable('card_disputes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('processor', 'text', (c) => c.notNull())
    .addColumn('card_payment_id', 'text', (c) => c.notNull())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('fee', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('withdrawn_at', 'timestamptz')
    .addColumn('reinstated_at', 'timestamptz')
    .addColumn('taken_available', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('taken_reserve', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('shortfall', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`shortfall >= 0`))
    .addColumn('recovered_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index card_disputes_shortfall on card_disputes (business_id, environment) where shortfall > 0 and recovered_at is null`.execute(db);

  await sql`alter table balances add column reserve bigint not null default 0`.execute(db);
  await sql`alter table balances add constraint balances_reserve_nonnegative check (reserve >= 0)`.execute(db);
  await replaceLedgerFunctions(db, true);
}

/** The posting trigger and the balance guard of migration 0065, with (`reserve`) or without the reserve column. */
async function replaceLedgerFunctions(db: Kysely<any>, reserve: boolean): Promise<void> {
  const r = reserve;
  await sql`create or replace function ledger_apply_posting() returns trigger language plpgsql security definer set search_path = pg_catalog, public as $$
    declare
      da bigint := 0;
      dh bigint := 0;
      dr bigint := 0;
    begin
      if new.credit_account = 'available' then da := da + new.amount; end if;
      if new.debit_account = 'available' then da := da - new.amount; end if;
      if new.credit_account = 'held' then dh := dh + new.amount; end if;
      if new.debit_account = 'held' then dh := dh - new.amount; end if;
      ${sql.raw(r ? "if new.credit_account = 'reserve' then dr := dr + new.amount; end if;" : '')}
      ${sql.raw(r ? "if new.debit_account = 'reserve' then dr := dr - new.amount; end if;" : '')}
      if da = 0 and dh = 0 and dr = 0 then return null; end if;
      update balances set available = available + da, held = held + dh${sql.raw(r ? ', reserve = reserve + dr' : '')}, updated_at = now()
        where business_id = new.business_id and environment = new.environment and currency = new.currency;
      if not found then
        insert into balances (business_id, environment, currency, available, held, updated_at)
          values (new.business_id, new.environment, new.currency, 0, 0, now())
          on conflict do nothing;
        update balances set available = available + da, held = held + dh${sql.raw(r ? ', reserve = reserve + dr' : '')}, updated_at = now()
          where business_id = new.business_id and environment = new.environment and currency = new.currency;
      end if;
      return null;
    end $$`.execute(db);

  await sql`create or replace function balances_guard() returns trigger language plpgsql as $$
    begin
      if pg_trigger_depth() > 1 or ledger_migration_mode(tg_relid) then
        if tg_level = 'STATEMENT' then return null; end if;
        if tg_op = 'DELETE' then return old; end if;
        return new;
      end if;
      if tg_op = 'INSERT' then
        if new.available = 0 and new.held = 0${sql.raw(r ? ' and new.reserve = 0' : '')} then return new; end if;
      elsif tg_op = 'UPDATE' then
        if new.available = old.available and new.held = old.held${sql.raw(r ? ' and new.reserve = old.reserve' : '')} and new.business_id = old.business_id
           and new.environment = old.environment and new.currency = old.currency then
          return new;
        end if;
      end if;
      raise exception 'balances move only with a ledger posting: % refused', tg_op
        using errcode = 'insufficient_privilege',
              hint = 'Insert the posting into ledger_postings; the database applies it to the balance (docs/security.md).';
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await replaceLedgerFunctions(db, false);
  await sql`alter table balances drop constraint balances_reserve_nonnegative`.execute(db);
  await sql`alter table balances drop column reserve`.execute(db);
  for (const t of ['card_reserves', 'card_disputes', 'card_refunds', 'card_processor_events', 'card_payments']) await db.schema.dropTable(t).execute();
}
