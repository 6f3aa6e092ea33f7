import { sep } from 'node:path';
import type { KyselyPlugin, OperationNode, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { sql } from 'kysely';
import type { Db } from '../../src/db/schema';

/** One compiled statement that reads or writes a tenant table without a `business_id` condition. */
export interface UnscopedQuery {
  kind: 'SelectQueryNode' | 'UpdateQueryNode' | 'DeleteQueryNode';
  /** The tenant tables the statement touches without scoping them. */
  tables: string[];
  /** The first frame in src/ that built the statement (`src/core/x.ts:12`), or null when none is in src/. */
  site: string | null;
  /** That frame's function (`authenticateKey`, or `touchLastUsed`), or null. */
  fn: string | null;
}

/** The tables of the migrated schema that have a `business_id` column (docs/architecture.md "Tenant scoping"). */
export async function tenantTables(db: Db): Promise<Set<string>> {
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.columns
    where column_name = 'business_id' and table_schema = current_schema()`.execute(db);
  return new Set(rows.map((r) => r.table_name));
}

/** The table names (`TableNode`, possibly aliased) directly under a node, not inside subqueries. */
function tableNames(node: OperationNode | undefined): string[] {
  if (!node) return [];
  const n = node as unknown as Record<string, any>;
  if (n.kind === 'TableNode') return [n.table.identifier.name];
  if (n.kind === 'AliasNode') return tableNames(n.node);
  if (n.kind === 'FromNode') return (n.froms as OperationNode[]).flatMap(tableNames);
  if (n.kind === 'JoinNode') return tableNames(n.table);
  return [];
}

/** Whether any column reference or raw fragment under `node` names `business_id`. */
function mentionsBusinessId(node: unknown): boolean {
  if (!node || typeof node !== 'object') return false;
  const n = node as Record<string, any>;
  if (n.kind === 'ColumnNode' && n.column?.name === 'business_id') return true;
  if (n.kind === 'RawNode' && (n.sqlFragments as string[]).some((f) => /\bbusiness_id\b/.test(f))) return true;
  return Object.values(n).some((v) => (Array.isArray(v) ? v.some(mentionsBusinessId) : mentionsBusinessId(v)));
}

/** The first stack frame inside the repository's src/: `src/...:line` and its function name. */
function callSite(stack: string | undefined): { site: string | null; fn: string | null } {
  for (const line of (stack ?? '').split('\n')) {
    const m = /^at (?:(?:async )?([\w$.<>]+) )?\(?([^\s()]+):(\d+):\d+\)?$/.exec(line.trim());
    if (!m) continue;
    const file = m[2]!.replace(/^file:\/\//, '');
    const i = file.lastIndexOf(`${sep}src${sep}`);
    if (i < 0 || file.includes('node_modules')) continue;
    return { site: `${file.slice(i + 1).split(sep).join('/')}:${m[3]}`, fn: m[1]?.split('.').pop() ?? null };
  }
  return { site: null, fn: null };
}

/**
 * A Kysely plugin that inspects every statement as it is compiled and records each SELECT, UPDATE or
 * DELETE whose FROM/UPDATE target or joins include a tenant table while its WHERE (and join conditions)
 * never mention `business_id`. It sees the operation tree, so it checks what Kysely actually sends; a
 * statement written wholly as a raw `sql` template is one RawNode and is not inspected.
 */
export class TenantScopeCheck implements KyselyPlugin {
  readonly unscoped: UnscopedQuery[] = [];
  /** Statements inspected (to show a run exercised the code at all). */
  inspected = 0;

  constructor(private readonly tables: Set<string>) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const node = args.node as unknown as Record<string, any>;
    if (node.kind === 'SelectQueryNode' || node.kind === 'UpdateQueryNode' || node.kind === 'DeleteQueryNode') {
      this.inspected++;
      const target = node.kind === 'UpdateQueryNode' ? tableNames(node.table) : tableNames(node.from);
      const joined = ((node.joins ?? []) as OperationNode[]).flatMap(tableNames);
      const touched = [...target, ...joined].filter((t) => this.tables.has(t));
      if (touched.length && !mentionsBusinessId(node.where) && !mentionsBusinessId(node.joins)) {
        const prev = Error.stackTraceLimit;
        Error.stackTraceLimit = 60;
        const stack = new Error().stack;
        Error.stackTraceLimit = prev;
        this.unscoped.push({ kind: node.kind, tables: touched, ...callSite(stack) });
      }
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
