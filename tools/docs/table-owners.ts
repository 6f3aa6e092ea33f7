/**
 * The table owners of docs/architecture.md "Table owners", checked against the code: every table
 * of the schema (the `*Tables` interfaces of src/db/tables/) has exactly one owner module, and no
 * module other than its owner writes it.
 *
 * A write is found by reading the TypeScript syntax of every module of `src/` and `activities/`
 * (migrations excepted): a Kysely `insertInto`, `updateTable`, `deleteFrom`, `mergeInto` or
 * `replaceInto` call, or an `insert into`, `update … set`, `delete from` or `merge into` inside a
 * `sql` template. A write whose table is not a literal (a variable, `sql.table(x)`) cannot be
 * attributed and is reported as a problem of its own.
 *
 * The module names of `src/` are checked too (docs/architecture.md "Module names").
 *
 * `npm run docs:owners` prints the writers found per table; `-- --check` exits 1 with the problems
 * (test/unit/table-owners.test.ts runs the same checks).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** One write found in the code: the table (null when not a literal), the module, the line. */
export interface TableWrite {
  table: string | null;
  file: string;
  line: number;
  via: string;
}

const KYSELY_WRITES = new Set(['insertInto', 'updateTable', 'deleteFrom', 'mergeInto', 'replaceInto']);
const SQL_WRITE = /\b(?:insert\s+into|delete\s+from|merge\s+into)\s+("?)([a-z_][a-z0-9_]*|\$\{)\1|\bupdate\s+("?)([a-z_][a-z0-9_]*|\$\{)\3(?:\s+(?:as\s+)?[a-z_][a-z0-9_]*)?\s+set\b/gi;

/** Every `.ts` module under `dir`, as paths relative to `root`, skipping `skip` folders. */
export function modulesUnder(root: string, dir: string, skip: string[] = []): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(join(root, d), { withFileTypes: true })) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory()) {
        if (!skip.includes(p)) walk(p);
      } else if (e.name.endsWith('.ts')) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** The table name of a Kysely table argument (`'payouts'`, `'payouts as p'`), or null. */
function literalTable(arg: ts.Expression | undefined): string | null {
  if (!arg || !ts.isStringLiteralLike(arg)) return null;
  return arg.text.trim().split(/\s+/)[0] ?? null;
}

/** The writes of one module's source text. */
export function writesOf(file: string, text: string): TableWrite[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: TableWrite[] = [];
  const lineOf = (pos: number) => src.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && KYSELY_WRITES.has(node.expression.name.text)) {
      out.push({ table: literalTable(node.arguments[0]), file, line: lineOf(node.getStart()), via: node.expression.name.text });
    }
    if (ts.isTaggedTemplateExpression(node) && /^sql\b/.test(node.tag.getText())) {
      const tpl = node.template;
      const parts = ts.isNoSubstitutionTemplateLiteral(tpl)
        ? [{ text: tpl.text, pos: tpl.getStart() }]
        : [{ text: tpl.head.text, pos: tpl.head.getStart() }, ...tpl.templateSpans.map((s) => ({ text: s.literal.text, pos: s.literal.getStart() }))];
      // A table named by a substitution shows as `${` right after the keyword: the part ends there.
      parts.forEach((p, i) => {
        const text = i < parts.length - 1 ? `${p.text}\${` : p.text;
        for (const m of text.matchAll(SQL_WRITE)) {
          const name = m[2] ?? m[4] ?? null;
          out.push({ table: name === '${' ? null : (name?.toLowerCase() ?? null), file, line: lineOf(p.pos), via: 'sql' });
        }
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out;
}

/**
 * The tenant-scoped builder (docs/architecture.md "Tenant scoping") starts `updateTable(table)` and
 * `deleteFrom(table)` for its callers: the write is the caller's, seen there with its literal table.
 */
const SCOPED_BUILDER = 'src/core/tenancy.ts';

/** Every write of `src/` and `activities/` (migrations excepted). */
export function scanWrites(root: string): TableWrite[] {
  const files = [...modulesUnder(root, 'src', ['src/db/migrations']), ...modulesUnder(root, 'activities')];
  return files
    .flatMap((f) => writesOf(f, readFileSync(join(root, f), 'utf8')))
    .filter((w) => !(w.file === SCOPED_BUILDER && w.table === null && w.via !== 'sql'));
}

/** The tables of the schema: the members of every `export interface …Tables` of src/db/tables/. */
export function schemaTables(root: string): string[] {
  const tables: string[] = [];
  for (const f of modulesUnder(root, 'src/db/tables')) {
    const text = readFileSync(join(root, f), 'utf8');
    for (const m of text.matchAll(/export interface \w+Tables\s*\{([^}]*)\}/g)) {
      for (const t of (m[1] ?? '').matchAll(/^\s*([a-z_][a-z0-9_]*)\s*:/gm)) tables.push(t[1]!);
    }
  }
  return tables.sort();
}

/** The "Table owners" section of docs/architecture.md: table -> owner module (a path under root). */
export function documentedOwners(root: string): Map<string, string[]> {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const section = /^## Table owners\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(doc)?.[1];
  if (!section) throw new Error('docs/architecture.md has no section "## Table owners"');
  const owners = new Map<string, string[]>();
  for (const m of section.matchAll(/^\| `([a-z_][a-z0-9_]*)` \| `([^`]+)` \|/gm)) {
    owners.set(m[1]!, [...(owners.get(m[1]!) ?? []), m[2]!]);
  }
  return owners;
}

/**
 * What is wrong between the schema's `tables`, the documented `owners` (table -> owner modules as
 * listed) and the `writes` found (empty: all holds). `exists` tells whether an owner path exists.
 */
export function problemsOf(tables: string[], owners: Map<string, string[]>, writes: TableWrite[], exists: (path: string) => boolean = () => true): string[] {
  const problems: string[] = [];
  for (const t of tables) {
    const o = owners.get(t);
    if (!o) problems.push(`table ${t} has no owner in docs/architecture.md "Table owners"`);
    else if (o.length > 1) problems.push(`table ${t} is listed ${o.length} times in "Table owners"`);
  }
  for (const [t, [o]] of owners) {
    if (!tables.includes(t)) problems.push(`"Table owners" lists ${t}, which is not a table of src/db/tables/`);
    if (!exists(o!)) problems.push(`"Table owners": the owner of ${t}, ${o}, does not exist`);
  }
  for (const w of writes) {
    if (w.table === null) problems.push(`${w.file}:${w.line}: a write (${w.via}) whose table is not a literal name`);
    else if (!tables.includes(w.table)) problems.push(`${w.file}:${w.line}: a write (${w.via}) of ${w.table}, not a table of src/db/tables/`);
    else if (owners.get(w.table)?.[0] !== w.file) {
      problems.push(`${w.file}:${w.line}: writes ${w.table} (${w.via}), owned by ${owners.get(w.table)?.[0] ?? 'nobody'}`);
    }
  }
  return problems;
}

/** {@link problemsOf} for the repository at `root`. */
export function ownershipProblems(root: string): string[] {
  return problemsOf(schemaTables(root), documentedOwners(root), scanWrites(root), (path) => existsSync(join(root, path)));
}

/** Module names that may repeat inside one layer (docs/architecture.md "Module names"). */
const REPEATABLE_NAMES = new Set(['index.ts', 'read.ts', 'metrics.ts']);
/** Folders whose modules are named by their role in a family of parallel folders. */
const PARALLEL_FOLDERS = /^src\/api\/surface-[a-z]+\/|^src\/rails\/[^/]+\//;

/**
 * The module-name problems of `files` (paths under `src/`, docs/architecture.md "Module names"):
 * two modules of one layer (the first folder under `src/`) with the same file name, outside the
 * exceptions; and a `sandbox.ts` outside `src/sandbox/` and the surfaces' route folders.
 */
export function moduleNameProblems(files: string[]): string[] {
  const byName = new Map<string, string[]>();
  const problems: string[] = [];
  for (const f of files) {
    const parts = f.split('/');
    const name = parts[parts.length - 1]!;
    if (name === 'sandbox.ts' && !f.startsWith('src/sandbox/') && !/^src\/api\/surface-[a-z]+\//.test(f)) {
      problems.push(`${f}: the sandbox simulator lives in src/sandbox/ only`);
    }
    if (REPEATABLE_NAMES.has(name) || PARALLEL_FOLDERS.test(f)) continue;
    const key = `${parts.length > 2 ? parts[1] : ''}/${name}`;
    byName.set(key, [...(byName.get(key) ?? []), f]);
  }
  for (const same of byName.values()) if (same.length > 1) problems.push(`same module name in one layer: ${same.join(', ')}`);
  return problems;
}

/** The writers found per table, for `npm run docs:owners`. */
export function writersByTable(root: string): Map<string, string[]> {
  const by = new Map<string, Set<string>>();
  for (const w of scanWrites(root)) {
    const k = w.table ?? '(not a literal)';
    by.set(k, (by.get(k) ?? new Set()).add(w.file));
  }
  return new Map([...by].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, [...v].sort()]));
}

if (process.argv[1] && relative(process.argv[1], fileURLToPath(import.meta.url)) === '') {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  if (process.argv.includes('--check')) {
    const problems = [...ownershipProblems(root), ...moduleNameProblems(modulesUnder(root, 'src', ['src/db/migrations']))];
    for (const p of problems) console.error(p);
    process.exit(problems.length ? 1 : 0);
  }
  for (const [t, files] of writersByTable(root)) console.log(`${t}: ${files.join(', ')}`);
}
