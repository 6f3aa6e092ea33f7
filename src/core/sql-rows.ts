/**
 * SQL fragments for an owner module's `insert into <table> (…) select …` (docs/architecture.md
 * "Table owners": the owner writes the table name; this only lists the row's columns and values).
 */
import { type RawBuilder, sql } from 'kysely';

/** The column list and the matching bound values of `row` (in the object's key order). */
export function columnsAndValues(row: Record<string, unknown>): { columns: RawBuilder<unknown>; values: RawBuilder<unknown> } {
  const cols = Object.keys(row);
  return { columns: sql.join(cols.map((c) => sql.ref(c))), values: sql.join(cols.map((c) => sql`${row[c]}`)) };
}

/** A comma-separated list of column references, for `insert into t (cols) select cols from jsonb_populate_recordset(…)`. */
export const columnList = (columns: readonly string[]): RawBuilder<unknown> => sql.join(columns.map((c) => sql.ref(c)));
