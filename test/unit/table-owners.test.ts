/**
 * One writer per table and names that say where they belong (docs/architecture.md "Table owners",
 * "Module names"; tools/docs/table-owners.ts):
 * - every table of src/db/tables/ has exactly one owner listed in docs/architecture.md, and no
 *   module of src/ or activities/ (migrations excepted) other than that owner writes it, through
 *   Kysely or a `sql` template; a write whose table is a variable fails too;
 * - the scanner sees every form of write the code uses (so the first check cannot pass by seeing
 *   nothing) and reports a second writer;
 * - inside one layer of src/ no two modules share a file name (the documented exceptions aside),
 *   and the sandbox simulator is only in src/sandbox/.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  documentedOwners,
  moduleNameProblems,
  modulesUnder,
  problemsOf,
  scanWrites,
  schemaTables,
  writesOf,
} from '../../tools/docs/table-owners';

const root = resolve(__dirname, '../..');
/** The writes of the code, read once (the checks below share them). */
const writes = scanWrites(root);

describe('table owners', () => {
  it('every table has one documented owner, and only the owner writes it', () => {
    expect(problemsOf(schemaTables(root), documentedOwners(root), writes, (path) => existsSync(join(root, path)))).toEqual([]);
  });

  it('lists every table of the schema, the recent ones included', () => {
    const tables = schemaTables(root);
    const owners = documentedOwners(root);
    for (const t of ['payouts', 'events', 'fx_rate_observations', 'treasury_statements', 'crypto_transfers', 'solana_watchers', 'notification_messages', 'audit_events']) {
      expect(tables).toContain(t);
      expect(owners.get(t)).toHaveLength(1);
    }
    expect([...owners.keys()].sort()).toEqual(tables);
  });

  it('finds the writes of the code (the tables with the most statements are seen at their owner)', () => {
    const at = (table: string) => new Set(writes.filter((w) => w.table === table).map((w) => w.file));
    expect(at('payouts')).toEqual(new Set(['src/core/payouts/transitions.ts']));
    expect(at('events')).toEqual(new Set(['src/core/events.ts']));
    expect(at('disbursement_items')).toEqual(new Set(['src/core/disbursements/disbursement-store.ts']));
    expect(writes.filter((w) => w.table === 'payouts' && w.via === 'sql').length).toBeGreaterThanOrEqual(4);
  });

  it('sees Kysely writes, sql template writes and writes whose table is not a literal; not comments or plain strings', () => {
    const src = [
      "await db.insertInto('payouts').values(v).execute();",
      "await tx.updateTable('disbursements as d').set(s).execute();",
      "await db.deleteFrom('events').where('id', '=', id).execute();",
      "await db.updateTable(table).set(s).execute();",
      'await sql`insert into workflow_starts select * from x`.execute(tx);',
      'await sql`\n  update disbursement_items as i\n  set status = ${s}\n  from (values ${v}) as v(a)`.execute(tx);',
      'const r = sql`with gone as (delete from idempotency_keys where ctid in (select 1) returning 1) select 1`;',
      'const q = sql`insert into ${sql.table(t)} (a) values (1)`;',
      "// db.insertInto('recipients') in a comment",
      "const message = 'update payouts set status';",
      'const read = sql`select * from payouts where updated_at > ${t}`;',
    ].join('\n');
    const found = writesOf('src/core/x.ts', src).map((w) => `${w.table}:${w.via}`);
    expect(found).toEqual([
      'payouts:insertInto',
      'disbursements:updateTable',
      'events:deleteFrom',
      'null:updateTable',
      'workflow_starts:sql',
      'disbursement_items:sql',
      'idempotency_keys:sql',
      'null:sql',
    ]);
  });

  it('reports a second writer, a missing owner, an unknown table and a write through a variable', () => {
    const owners = new Map([['payouts', ['src/core/payouts/transitions.ts']]]);
    const problems = problemsOf(['events', 'payouts'], owners, [
      { table: 'payouts', file: 'src/core/payouts/transitions.ts', line: 1, via: 'sql' },
      { table: 'payouts', file: 'src/core/claim-flow/batch.ts', line: 9, via: 'sql' },
      { table: 'ghosts', file: 'src/core/x.ts', line: 2, via: 'insertInto' },
      { table: null, file: 'src/core/y.ts', line: 3, via: 'updateTable' },
    ]);
    expect(problems).toEqual([
      'table events has no owner in docs/architecture.md "Table owners"',
      'src/core/claim-flow/batch.ts:9: writes payouts (sql), owned by src/core/payouts/transitions.ts',
      'src/core/x.ts:2: a write (insertInto) of ghosts, not a table of src/db/tables/',
      'src/core/y.ts:3: a write (updateTable) whose table is not a literal name',
    ]);
  });
});

describe('module names', () => {
  it('no two modules of one layer of src/ share a file name; the sandbox simulator is in src/sandbox/ only', () => {
    expect(moduleNameProblems(modulesUnder(root, 'src', ['src/db/migrations']))).toEqual([]);
  });

  it('reports the collisions the rule forbids and allows its exceptions', () => {
    expect(
      moduleNameProblems([
        'src/core/payouts/claim-cancel.ts',
        'src/core/claim-flow/claim-cancel.ts',
        'src/rails/sandbox.ts',
        'src/sandbox/rails.ts',
        'src/core/payouts/read.ts',
        'src/core/disbursements/read.ts',
        'src/core/payouts/index.ts',
        'src/core/funding/index.ts',
        'src/api/surface-a/payouts.ts',
        'src/api/surface-c/payouts.ts',
        'src/rails/ach/module.ts',
        'src/rails/sepa/module.ts',
        'src/domain/recipients.ts',
        'src/core/recipients.ts',
        'src/api/surface-b/sandbox.ts',
      ]),
    ).toEqual([
      'src/rails/sandbox.ts: the sandbox simulator lives in src/sandbox/ only',
      'same module name in one layer: src/core/payouts/claim-cancel.ts, src/core/claim-flow/claim-cancel.ts',
    ]);
  });
});
