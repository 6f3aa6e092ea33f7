/** Loaded sanctions list versions, owner of `screening_list_versions` (docs/screening.md "Versions and refresh"): a failed fetch stores nothing. */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { DbOrTx } from '../../db/schema';
import { isUniqueViolation } from '../../db/errors';
import { newId } from '../../domain/ids';
import type { ListEntry, ListFiles, ListSourceConfig, ScreeningListModule } from '../../screening/entry';

/** A stored list version without its entries. */
export interface ListVersion {
  id: string;
  list: string;
  sha256: string;
  publishedAt: Date | null;
  source: string;
  entryCount: number;
  loadedAt: Date;
  checkedAt: Date;
}

/** How a refresh ended: a version (new or confirmed) or the error that left the last good version current. */
export type RefreshResult = { ok: true; version: ListVersion; changed: boolean } | { ok: false; list: string; error: string };

/** Where the files come from (for tests and deployments behind a proxy: the fetch function). */
export interface ReadOptions {
  fetch?: typeof fetch;
  /** Per-file timeout of a download, milliseconds (default 60 000). */
  timeoutMs?: number;
}

/** Reads a list's files from `source.dir` or `source.url` (the first required, the others when present); throws an Error naming the file. */
export async function readListFiles(module: ScreeningListModule, source: ListSourceConfig, opts: ReadOptions = {}): Promise<{ files: ListFiles; from: string }> {
  const files = new Map<string, string>();
  if (module.files.length === 0) return { files, from: 'built-in' };
  const from = source.dir ?? source.url;
  if (!from) throw new Error(`list ${module.id} has neither a directory nor a URL configured`);
  for (const [i, name] of module.files.entries()) {
    try {
      if (source.dir) files.set(name, await readFile(join(source.dir, name), 'utf8'));
      else {
        const url = module.files.length > 1 ? new URL(module.remoteNames?.[name] ?? name, source.url!.endsWith('/') ? source.url : `${source.url}/`).toString() : source.url!;
        const res = await (opts.fetch ?? fetch)(url, { signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000) });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        files.set(name, await res.text());
      }
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT' || /HTTP 404/.test((err as Error).message);
      if (i > 0 && missing) continue;
      throw new Error(`${module.id}: ${name}: ${(err as Error).message}`);
    }
  }
  return { files, from };
}

/** SHA-256 (hex) over the files' names and contents, in name order: the version's identity. */
export function contentHash(files: ListFiles, builtIn?: unknown): string {
  const h = createHash('sha256');
  if (files.size === 0) h.update(JSON.stringify(builtIn ?? null));
  for (const name of [...files.keys()].sort()) h.update(name).update('\0').update(files.get(name)!).update('\0');
  return h.digest('hex');
}

const toVersion = (r: {
  id: string; list: string; sha256: string; published_at: Date | null; source: string; entry_count: number; loaded_at: Date; checked_at: Date;
}): ListVersion => ({
  id: r.id, list: r.list, sha256: r.sha256, publishedAt: r.published_at, source: r.source, entryCount: r.entry_count, loadedAt: r.loaded_at, checkedAt: r.checked_at,
});

/** Stores a parsed list version, or moves `checked_at` of the version with the same content. Returns the version and whether it is new. */
export async function storeListVersion(
  db: DbOrTx,
  v: { list: string; sha256: string; publishedAt: Date | null; source: string; entries: ListEntry[]; now: Date },
): Promise<{ version: ListVersion; changed: boolean }> {
  const confirm = () => db
    .updateTable('screening_list_versions')
    .set({ checked_at: v.now, source: v.source })
    .where('list', '=', v.list)
    .where('sha256', '=', v.sha256)
    .returning(['id', 'list', 'sha256', 'published_at', 'source', 'entry_count', 'loaded_at', 'checked_at'])
    .executeTakeFirst();
  const confirmed = await confirm();
  if (confirmed) return { version: toVersion(confirmed), changed: false };
  let changed = true;
  const row = await db
    .insertInto('screening_list_versions')
    .values({
      id: newId('slv', v.now.getTime()),
      list: v.list,
      sha256: v.sha256,
      published_at: v.publishedAt,
      source: v.source,
      entry_count: v.entries.length,
      entries: JSON.stringify(v.entries),
      loaded_at: v.now,
      checked_at: v.now,
    })
    .returning(['id', 'list', 'sha256', 'published_at', 'source', 'entry_count', 'loaded_at', 'checked_at'])
    .executeTakeFirstOrThrow()
    .catch(async (err: unknown) => {
      // Another process stored the same content first (two processes storing the built-in list at start).
      const stored = isUniqueViolation(err) ? await confirm() : undefined;
      if (!stored) throw err;
      changed = false;
      return stored;
    });
  return { version: toVersion(row), changed };
}

/** Fetches, parses and stores one list (docs/screening.md "Versions and refresh"). Never throws for a bad source or file: it answers `{ ok: false }` and the last good version stays current. */
export async function refreshList(db: DbOrTx, module: ScreeningListModule, source: ListSourceConfig, opts: ReadOptions & { now?: Date } = {}): Promise<RefreshResult> {
  try {
    const { files, from } = await readListFiles(module, source, opts);
    const parsed = module.parse(files);
    if (parsed.entries.length === 0) throw new Error(`${module.id}: the files hold no entries`);
    const { version, changed } = await storeListVersion(db, {
      list: module.id,
      sha256: contentHash(files, parsed),
      publishedAt: parsed.publishedAt,
      source: from,
      entries: parsed.entries,
      now: opts.now ?? new Date(),
    });
    return { ok: true, version, changed };
  } catch (err) {
    return { ok: false, list: module.id, error: (err as Error).message };
  }
}

/** The current version of each of `lists` (the one fetched last), without entries; one indexed query. */
export async function currentListVersions(db: DbOrTx, lists: readonly string[]): Promise<ListVersion[]> {
  if (lists.length === 0) return [];
  const rows = await db
    .selectFrom('screening_list_versions')
    .select(['id', 'list', 'sha256', 'published_at', 'source', 'entry_count', 'loaded_at', 'checked_at'])
    .distinctOn('list')
    .where('list', 'in', lists)
    .orderBy('list')
    .orderBy('checked_at', 'desc')
    .orderBy(sql`loaded_at`, 'desc')
    .execute();
  return rows.map(toVersion);
}

/** The entries of one stored version. */
export async function listVersionEntries(db: DbOrTx, id: string): Promise<ListEntry[]> {
  const r = await db.selectFrom('screening_list_versions').select('entries').where('id', '=', id).executeTakeFirstOrThrow();
  return typeof r.entries === 'string' ? (JSON.parse(r.entries) as ListEntry[]) : r.entries;
}
