import { type Kysely, sql } from 'kysely';

/**
 * USDC on Solana (issue #37; docs/getting-paid.md "Crypto deposits"):
 * - crypto_deposit_addresses: one deposit address per business, environment and network (the
 *   owner key's address and its token account for the USDC mint; written by
 *   src/core/funding/crypto-addresses.ts). No key material is stored: keys are derived from the
 *   configured master seed.
 * - crypto_transfers: every incoming transfer the watcher saw, once per (signature, token account),
 *   with its deposit and where it is (received, credited, below_minimum, dropped, ignored); written
 *   by src/core/funding/crypto-watch.ts, which also writes solana_watchers (one row per
 *   environment: the cursor per token account is in crypto_watch_cursors, the chain head reached for
 *   the metrics in solana_watchers).
 * - crypto_sweeps: each move of credited USDC to the treasury, recorded (with its signed
 *   transaction) before it is sent; at most one in flight per token account; written by
 *   src/core/funding/crypto-sweeps.ts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('crypto_deposit_addresses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('owner_address', 'text', (c) => c.notNull())
    .addColumn('token_account', 'text', (c) => c.notNull().unique())
    .addColumn('mint', 'text', (c) => c.notNull())
    .addColumn('derivation', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('crypto_deposit_addresses_owner', ['business_id', 'environment', 'network', 'mint'])
    .execute();
  await db.schema.createIndex('crypto_deposit_addresses_env').on('crypto_deposit_addresses').columns(['environment', 'network', 'id']).execute();

  await db.schema
    .createTable('crypto_transfers')
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('token_account', 'text', (c) => c.notNull())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('mint', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount >= 0`))
    .addColumn('slot', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('deposit_id', 'text')
    .addColumn('seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('settled_at', 'timestamptz')
    .addPrimaryKeyConstraint('crypto_transfers_pk', ['signature', 'token_account'])
    .execute();
  await db.schema.createIndex('crypto_transfers_pending').on('crypto_transfers').columns(['environment', 'slot']).where(sql.ref('status'), '=', 'received').execute();
  await db.schema.createIndex('crypto_transfers_account').on('crypto_transfers').columns(['token_account', 'status']).execute();

  await db.schema
    .createTable('crypto_watch_cursors')
    .addColumn('token_account', 'text', (c) => c.primaryKey())
    .addColumn('last_signature', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('solana_watchers')
    .addColumn('environment', 'text', (c) => c.primaryKey())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('head_slot', 'bigint', (c) => c.notNull())
    .addColumn('reached_slot', 'bigint', (c) => c.notNull())
    .addColumn('finalized_slot', 'bigint', (c) => c.notNull())
    .addColumn('polled_at', 'timestamptz', (c) => c.notNull())
    .addColumn('fee_payer_lamports', 'bigint')
    .addColumn('fee_payer_checked_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('crypto_sweeps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('token_account', 'text', (c) => c.notNull())
    .addColumn('treasury_token_account', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('signature', 'text', (c) => c.notNull().unique())
    .addColumn('transaction', 'text', (c) => c.notNull())
    .addColumn('last_valid_block_height', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('settled_at', 'timestamptz')
    .execute();
  // At most one sweep in flight per token account (two sweepers never send two).
  await sql`create unique index crypto_sweeps_in_flight on crypto_sweeps (token_account) where status = 'sent'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('crypto_sweeps').execute();
  await db.schema.dropTable('solana_watchers').execute();
  await db.schema.dropTable('crypto_watch_cursors').execute();
  await db.schema.dropTable('crypto_transfers').execute();
  await db.schema.dropTable('crypto_deposit_addresses').execute();
}
