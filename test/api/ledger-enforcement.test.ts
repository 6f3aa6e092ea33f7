import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalance, InsufficientFundsError, post } from '../../src/core/ledger';
import { enterMigrationMode } from '../../src/db/migration-mode';
import { APP_ROLES } from '../../src/db/migrations/0065_defense_in_depth';
import type { Db } from '../../src/db/schema';
import { freshDatabase } from '../helpers/fresh-database';

/**
 * docs/security.md "The database enforces the ledger": raw SQL against the migrated schema, as the
 * owner and as each application role, on PGlite (default) and PostgreSQL (DATABASE_URL).
 */
let db: Db;
let close: () => Promise<void>;
const BIZ = 'biz_ledger_enforcement';

/** Runs `statement` in a transaction (as `role` when given) that is always rolled back; returns its error. */
async function attempt(statement: string, opts: { role?: string; migrationMode?: boolean } = {}): Promise<Error | null> {
  const rollback = new Error('rollback');
  let failure: Error | null = null;
  await db
    .transaction()
    .execute(async (tx) => {
      if (opts.migrationMode) await enterMigrationMode(tx);
      if (opts.role) await sql.raw(`set local role ${opts.role}`).execute(tx);
      try {
        await sql.raw(statement).execute(tx);
      } catch (e) {
        failure = e as Error;
      }
      throw rollback;
    })
    .catch((e) => {
      if (e !== rollback) throw e;
    });
  return failure;
}

const postingCount = async () => Number((await sql<{ n: string }>`select count(*)::text as n from ledger_postings where business_id = ${BIZ}`.execute(db)).rows[0]!.n);

beforeAll(async () => {
  ({ db, close } = await freshDatabase());
  await db.transaction().execute((tx) => post(tx, { businessId: BIZ, environment: 'sandbox', key: 'fund:1', from: 'external', to: 'available', amount: 5_000_000n }));
  await db.transaction().execute((tx) => post(tx, { businessId: BIZ, environment: 'sandbox', key: 'payout:po_1:hold', from: 'available', to: 'held', amount: 1_000_000n }));
});
afterAll(async () => close?.());

describe('ledger_postings is append-only', () => {
  it('refuses UPDATE, DELETE and TRUNCATE for the owner outside a migration', async () => {
    for (const stmt of [
      `update ledger_postings set amount = 1 where business_id = '${BIZ}'`,
      `delete from ledger_postings where business_id = '${BIZ}'`,
      'truncate ledger_postings',
    ]) {
      const err = await attempt(stmt);
      expect(err?.message, stmt).toMatch(/ledger_postings is append-only/);
    }
    expect(await postingCount()).toBe(2);
  });

  it('refuses UPDATE and DELETE for every application role, even with the migration setting on', async () => {
    for (const role of APP_ROLES) {
      for (const stmt of [`update ledger_postings set amount = 1 where business_id = '${BIZ}'`, `delete from ledger_postings where business_id = '${BIZ}'`]) {
        const err = await attempt(stmt, { role, migrationMode: true });
        expect(err?.message, `${role}: ${stmt}`).toMatch(/permission denied|append-only/);
      }
    }
  });

  it('lets the owner change a posting only in migration mode (inside a migration)', async () => {
    expect(await attempt(`update ledger_postings set created_at = created_at where business_id = '${BIZ}'`, { migrationMode: true })).toBeNull();
  });

  it('refuses UPDATE and DELETE of disbursement approvals and audit records too', async () => {
    await sql`insert into audit_events (id, business_id, seq, actor_type, actor_id, action, object_type, object_id, created_at, prev_hash, hash)
      values ('aud_1', ${BIZ}, 1, 'operator', 'ops', 'channel.paused', 'channel', 'spei_mxn', now(), '', 'h')`.execute(db);
    expect((await attempt(`update audit_events set actor_id = 'someone else'`))?.message).toMatch(/audit_events is append-only/);
    expect((await attempt(`delete from audit_events`))?.message).toMatch(/audit_events is append-only/);
    for (const t of ['disbursement_approvals', 'audit_events']) expect((await attempt(`truncate ${t} cascade`))?.message).toMatch(new RegExp(`${t} is append-only`));
  });
});

describe('a balance moves only with its posting', () => {
  it('the database moves the balance when a posting is inserted (no application UPDATE)', async () => {
    expect(await getBalance(db, BIZ, 'sandbox')).toEqual({ available: 4_000_000n, held: 1_000_000n, reserve: 0n });
    // An application role inserts a posting with raw SQL: the balance follows in the same statement.
    await db.transaction().execute(async (tx) => {
      await sql`set local role payouts_worker`.execute(tx);
      await sql`insert into ledger_postings (business_id, environment, key, currency, debit_account, credit_account, amount)
        values (${BIZ}, 'sandbox', 'payout:po_1:settle', 'USDC', 'held', 'sent', 1000000)`.execute(tx);
    });
    expect(await getBalance(db, BIZ, 'sandbox')).toEqual({ available: 4_000_000n, held: 0n, reserve: 0n });
  });

  it('an UPDATE of a balance without its posting does not commit, for the owner and every role', async () => {
    const stmt = `update balances set available = available + 1000000 where business_id = '${BIZ}'`;
    expect((await attempt(stmt))?.message).toMatch(/balances move only with a ledger posting/);
    for (const role of APP_ROLES) expect((await attempt(stmt, { role }))?.message, role).toMatch(/permission denied|only with a ledger posting/);
    // Not even inside a transaction that also inserts some posting: the UPDATE itself is refused.
    const err = await attempt(`with p as (insert into ledger_postings (business_id, environment, key, currency, debit_account, credit_account, amount)
        values ('${BIZ}', 'sandbox', 'fund:forged', 'USDC', 'external', 'sent', 1) returning 1)
      update balances set available = available + 1 where business_id = '${BIZ}' and exists (select 1 from p)`);
    expect(err?.message).toMatch(/balances move only with a ledger posting/);
    expect(await getBalance(db, BIZ, 'sandbox')).toEqual({ available: 4_000_000n, held: 0n, reserve: 0n });
  });

  it('refuses a DELETE, a TRUNCATE and a non-zero INSERT of balances', async () => {
    expect((await attempt(`delete from balances where business_id = '${BIZ}'`))?.message).toMatch(/only with a ledger posting/);
    expect((await attempt('truncate balances'))?.message).toMatch(/only with a ledger posting/);
    expect((await attempt(`insert into balances values ('biz_new', 'sandbox', 'USDC', 100, 0, now())`))?.message).toMatch(/only with a ledger posting/);
    expect(await attempt(`insert into balances values ('biz_new', 'sandbox', 'USDC', 0, 0, now())`)).toBeNull();
  });

  it('keeps CHECK (>= 0): a raw posting that would overdraw is refused', async () => {
    const err = await attempt(`insert into ledger_postings (business_id, environment, key, currency, debit_account, credit_account, amount)
      values ('${BIZ}', 'sandbox', 'payout:po_2:hold', 'USDC', 'available', 'held', 4000001)`);
    expect(err?.message).toMatch(/check constraint/);
  });

  it('post() refuses an uncovered debit without aborting the caller\'s transaction, and is idempotent', async () => {
    await db.transaction().execute(async (tx) => {
      await expect(post(tx, { businessId: BIZ, environment: 'sandbox', key: 'payout:po_3:hold', from: 'available', to: 'held', amount: 9_000_000n })).rejects.toBeInstanceOf(
        InsufficientFundsError,
      );
      expect(await getBalance(tx, BIZ, 'sandbox')).toEqual({ available: 4_000_000n, held: 0n, reserve: 0n });
      // A replayed key answers false and changes nothing, even when it would no longer be covered.
      expect(await post(tx, { businessId: BIZ, environment: 'sandbox', key: 'payout:po_1:hold', from: 'available', to: 'held', amount: 9_000_000n })).toBe(false);
    });
    expect(await postingCount()).toBe(3);
  });
});
