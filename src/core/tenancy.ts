import type { DeleteQueryBuilder, DeleteResult, Selectable, SelectQueryBuilder, UpdateQueryBuilder, UpdateResult } from 'kysely';
import type { Database, DbOrTx, Environment } from '../db/schema';
import { notFound } from '../domain/errors';

/** Whose rows a query may touch: the caller's business and environment (a `Caller` is one). */
export interface Tenant {
  businessId: string;
  environment: Environment;
}

/** The tables that hold one tenant's rows: both a `business_id` and an `environment` column. */
export type TenantTable = {
  [T in keyof Database]: Database[T] extends { business_id: unknown; environment: unknown } ? T : never;
}[keyof Database];

/** The tenant tables whose rows are addressed by an `id` column (what `ownedOr404` looks up). */
export type OwnedTable = {
  [T in TenantTable]: Database[T] extends { id: unknown } ? T : never;
}[TenantTable];

/** `selectFrom`, `updateTable`, `deleteFrom` over one tenant's rows: each starts `where table.business_id = ? and table.environment = ?`. */
export interface TenantScope {
  selectFrom<T extends TenantTable>(table: T): SelectQueryBuilder<Database, T, object>;
  updateTable<T extends TenantTable>(table: T): UpdateQueryBuilder<Database, T, T, UpdateResult>;
  deleteFrom<T extends TenantTable>(table: T): DeleteQueryBuilder<Database, T, DeleteResult>;
}

// Kysely cannot resolve a column of a generic table: build over the union of tenant tables, narrow to `T`.
type AnyTenantSelect = SelectQueryBuilder<Database, TenantTable, object>;
type AnyTenantUpdate = UpdateQueryBuilder<Database, TenantTable, TenantTable, UpdateResult>;
type AnyTenantDelete = DeleteQueryBuilder<Database, TenantTable, DeleteResult>;

/** The tenant's query builder (docs/architecture.md "Tenant scoping"); the filter names the table, so joins stay unambiguous. */
export function scoped(db: DbOrTx, tenant: Tenant): TenantScope {
  return {
    selectFrom<T extends TenantTable>(table: T) {
      const q = db.selectFrom(table) as unknown as AnyTenantSelect;
      return q
        .where(`${table}.business_id` as 'business_id', '=', tenant.businessId)
        .where(`${table}.environment` as 'environment', '=', tenant.environment) as unknown as SelectQueryBuilder<Database, T, object>;
    },
    updateTable<T extends TenantTable>(table: T) {
      const q = db.updateTable(table) as unknown as AnyTenantUpdate;
      return q
        .where(`${table}.business_id` as 'business_id', '=', tenant.businessId)
        .where(`${table}.environment` as 'environment', '=', tenant.environment) as unknown as UpdateQueryBuilder<Database, T, T, UpdateResult>;
    },
    deleteFrom<T extends TenantTable>(table: T) {
      const q = db.deleteFrom(table) as unknown as AnyTenantDelete;
      return q
        .where(`${table}.business_id` as 'business_id', '=', tenant.businessId)
        .where(`${table}.environment` as 'environment', '=', tenant.environment) as unknown as DeleteQueryBuilder<Database, T, DeleteResult>;
    },
  };
}

/** The tenant's row `table.id = id` (all columns); 404 `not_found` (`notFound(what, id, param)`) for an unknown or another tenant's id. */
export async function ownedOr404<T extends OwnedTable>(
  db: DbOrTx,
  tenant: Tenant,
  table: T,
  id: string,
  what: string,
  param: string | null = 'id',
): Promise<Selectable<Database[T]>> {
  const q = scoped(db, tenant).selectFrom(table) as unknown as SelectQueryBuilder<Database, OwnedTable, object>;
  const row = await q.selectAll().where(`${table}.id` as 'id', '=', id).executeTakeFirst();
  if (!row) throw notFound(what, id, param);
  return row as Selectable<Database[T]>;
}

/** `row`, or the 404 `not_found` of `ownedOr404` when a scoped lookup found nothing. */
export function orNotFound<R>(row: R | undefined, what: string, id: string, param: string | null = 'id'): R {
  if (!row) throw notFound(what, id, param);
  return row;
}
