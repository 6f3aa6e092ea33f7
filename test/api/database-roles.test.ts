import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalance, post } from '../../src/core/ledger';
import { actAsRole, DatabaseRoleError } from '../../src/db/connection';
import { APP_ROLES, APPEND_ONLY_TABLES } from '../../src/db/migrations/0065_defense_in_depth';
import type { Db } from '../../src/db/schema';
import { freshDatabase } from '../helpers/fresh-database';

/**
 * docs/security.md "Database roles": the grants of payouts_api, payouts_worker and payouts_admin,
 * read from the catalog for every table (those of later migrations included, through default
 * privileges), match the table in docs/security.md.
 */
let db: Db;
let url: string | undefined;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, url, close } = await freshDatabase());
});
afterAll(async () => close?.());

type Privileges = { select: boolean; insert: boolean; update: boolean; delete: boolean; truncate: boolean };
async function privileges(role: string, table: string): Promise<Privileges> {
  const r = await sql<Privileges>`select
      has_table_privilege(${role}, ${table}, 'SELECT') as select,
      has_table_privilege(${role}, ${table}, 'INSERT') as insert,
      has_table_privilege(${role}, ${table}, 'UPDATE') as update,
      has_table_privilege(${role}, ${table}, 'DELETE') as delete,
      has_table_privilege(${role}, ${table}, 'TRUNCATE') as truncate`.execute(db);
  return r.rows[0]!;
}
const tables = async () =>
  (await sql<{ t: string }>`select table_name as t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`.execute(db)).rows.map((r) => r.t);

describe('database roles: catalog grants', () => {
  it('every table has the grants of docs/security.md "Database roles" for every application role', async () => {
    const all = await tables();
    expect(all).toContain('ledger_postings');
    for (const role of APP_ROLES) {
      for (const t of all) {
        const p = await privileges(role, t);
        const expected: Privileges = (APPEND_ONLY_TABLES as readonly string[]).includes(t)
          ? { select: true, insert: true, update: false, delete: false, truncate: false }
          : t === 'balances'
            ? { select: true, insert: false, update: false, delete: false, truncate: false }
            : t.startsWith('kysely_migration')
              ? { select: true, insert: false, update: false, delete: false, truncate: false }
              : { select: true, insert: true, update: true, delete: true, truncate: false };
        expect(p, `${role} on ${t}`).toEqual(expected);
      }
      // balances: only updated_at, which the ledger's row lock (`for no key update`) needs.
      const col = await sql<{ a: boolean; u: boolean }>`select has_column_privilege(${role}, 'balances', 'available', 'UPDATE') as a, has_column_privilege(${role}, 'balances', 'updated_at', 'UPDATE') as u`.execute(db);
      expect(col.rows[0]).toEqual({ a: false, u: true });
    }
  });

  it('a table a later migration creates gets the application roles\' DML grants by default', async () => {
    await sql`create table later_migration_table (id text primary key)`.execute(db);
    for (const role of APP_ROLES) expect(await privileges(role, 'later_migration_table')).toEqual({ select: true, insert: true, update: true, delete: true, truncate: false });
    await sql`drop table later_migration_table`.execute(db);
  });

  it('a connection acting as payouts_api moves money only through postings; an unknown role is refused with a clear error', async () => {
    const target = url ? { url } : { memory: true as const };
    await expect(actAsRole(db, target, 'payouts_nobody')).rejects.toBeInstanceOf(DatabaseRoleError);
    const api = await actAsRole(db, target, 'payouts_api', { poolSize: 2 });
    if (url) db = api; // the owner pool was closed
    const who = await sql<{ u: string }>`select current_user as u`.execute(api);
    expect(who.rows[0]!.u).toBe('payouts_api');
    await api.transaction().execute((tx) => post(tx, { businessId: 'biz_roles', environment: 'sandbox', key: 'fund:r1', from: 'external', to: 'available', amount: 7n }));
    expect(await getBalance(api, 'biz_roles', 'sandbox')).toEqual({ available: 7n, held: 0n, reserve: 0n });
    await expect(sql`update balances set available = 1000`.execute(api)).rejects.toThrow(/permission denied/);
    await expect(sql`create table x (a int)`.execute(api)).rejects.toThrow(/permission denied/);
  });
});
