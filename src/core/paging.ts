import { type SelectQueryBuilder, sql } from 'kysely';
import { FIELD_KEYS, fieldValidationError, validationError } from '../domain/errors';

/** Cursor paging of list endpoints (spec "List envelope": `limit` 1..200, opaque `cursor`). */

export type { Page } from '../domain/paging';

export const encodeCursor = (id: string) => Buffer.from(JSON.stringify({ a: id })).toString('base64url');

/** Decodes a cursor; 400 validation_error (param `cursor`) when it was not issued by us. */
export function decodeCursor(cursor: string, param: string = FIELD_KEYS.cursor): string {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof v?.a === 'string') return v.a;
  } catch {
    // not ours: refused below
  }
  const message = 'cursor is not valid; pass next_cursor from a previous page';
  throw param === FIELD_KEYS.cursor ? fieldValidationError('cursor', message) : validationError(param, message);
}

/** Pages newest first by the time-ordered `id`: stable, no duplicates or gaps while rows are added. */
export async function paginate<DB, TB extends keyof DB, O extends { id: string }>(
  query: SelectQueryBuilder<DB, TB, O>,
  idColumn: string,
  page: { limit: number; cursor?: string },
  param = 'cursor',
): Promise<{ rows: O[]; nextCursor: string | null }> {
  const id = sql.ref<string>(idColumn);
  const q = page.cursor ? query.where(id, '<', decodeCursor(page.cursor, param)) : query;
  const rows = await q.orderBy(id, 'desc').limit(page.limit + 1).execute();
  const more = rows.length > page.limit;
  const data = more ? rows.slice(0, page.limit) : rows;
  return { rows: data, nextCursor: more ? encodeCursor(data[data.length - 1].id) : null };
}
