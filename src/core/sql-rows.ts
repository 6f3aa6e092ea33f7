/** SQL fragments for an owner module's `insert into <table> (…) select …`. */
import { type RawBuilder, sql } from 'kysely';

export function columnsAndValues(row: Record<string, unknown>): { columns: RawBuilder<unknown>; values: RawBuilder<unknown> } {
  const cols = Object.keys(row);
  return { columns: sql.join(cols.map((c) => sql.ref(c))), values: sql.join(cols.map((c) => sql`${row[c]}`)) };
}

export const columnList = (columns: readonly string[]): RawBuilder<unknown> => sql.join(columns.map((c) => sql.ref(c)));
