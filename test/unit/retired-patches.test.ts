/**
 * The declared retired patches (workflows/retired-patches.contract.ts) are exactly the
 * `deprecatePatch` calls of the workflow bodies (docs/operations.md "Retiring a workflow patch"): a
 * new `deprecatePatch` without an entry, or an entry left after its call was removed, fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RETIRED_PATCHES } from '../../workflows/retired-patches.contract';
import { checkRetiredPatches, openRunsQuery, patchRefusal } from '../../src/temporal/patch-guard';

const WORKFLOWS = resolve(__dirname, '../../workflows');

/** The `${workflowType} ${patchId}` of each `deprecatePatch` call in a workflow body's source; throws on an argument it cannot resolve. */
function deprecatedPatches(source: string, file: string): string[] {
  const workflowType = /export async function (\w+Workflow)\(/.exec(source)?.[1];
  const consts = new Map([...source.matchAll(/const (\w+) = '([^']+)'/g)].map((m) => [m[1]!, m[2]!]));
  const arrays = new Map([...source.matchAll(/const (\w+) = \[([^\]]*)\]/g)].map((m) => [m[1]!, [...m[2]!.matchAll(/'([^']+)'/g)].map((x) => x[1]!)]));
  const out: string[] = [];
  for (const call of source.matchAll(/(?:for \(const (\w+) of (\w+)\)\s*)?deprecatePatch\(\s*([^)]*?)\s*\)/g)) {
    const [, loopVar, loopOver, arg] = call;
    if (arg === undefined || arg === '') continue;
    let ids: string[] | undefined;
    if (/^'[^']+'$/.test(arg)) ids = [arg.slice(1, -1)];
    else if (consts.has(arg)) ids = [consts.get(arg)!];
    else if (loopVar === arg && loopOver && arrays.has(loopOver)) ids = arrays.get(loopOver);
    if (!ids || !workflowType) throw new Error(`${file}: cannot resolve deprecatePatch(${arg}) to a patch id of a workflow`);
    out.push(...ids.map((id) => `${workflowType} ${id}`));
  }
  return out;
}

describe('retired workflow patches', () => {
  it('the declared list is exactly the deprecatePatch calls of workflows/*.ts', () => {
    const files = readdirSync(WORKFLOWS).filter((f) => f.endsWith('.ts') && !f.endsWith('.contract.ts') && f !== 'index.ts');
    const called = files.flatMap((f) => deprecatedPatches(readFileSync(join(WORKFLOWS, f), 'utf8'), f));
    const declared = RETIRED_PATCHES.map((p) => `${p.workflowType} ${p.patchId}`);
    expect(new Set(called).size).toBe(4);
    expect([...new Set(called)].sort()).toEqual([...declared].sort());
  });

  it('a deprecatePatch the list lacks is found, and an argument it cannot resolve fails', () => {
    const src = [
      "const NEW_ONE = 'brand-new';",
      "const OLD = ['a', 'b'] as const;",
      'export async function fooWorkflow() {',
      '  for (const id of OLD) deprecatePatch(id);',
      '  deprecatePatch(NEW_ONE);',
      "  deprecatePatch('literal');",
      '}',
    ].join('\n');
    expect(deprecatedPatches(src, 'foo.ts')).toEqual(['fooWorkflow a', 'fooWorkflow b', 'fooWorkflow brand-new', 'fooWorkflow literal']);
    expect(() => deprecatedPatches('export async function fooWorkflow() { deprecatePatch(ids[0]); }', 'foo.ts')).toThrow(/cannot resolve/);
  });

  it('each entry: safeAfter is its landing day plus 60 days, deprecatedOn before safeAfter, startedBefore an RFC 3339 instant', () => {
    for (const p of RETIRED_PATCHES) {
      expect(p.startedBefore).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const landed = Date.parse(`${p.startedBefore.slice(0, 10)}T00:00:00Z`);
      expect(new Date(landed + 60 * 86_400_000).toISOString().slice(0, 10), p.patchId).toBe(p.safeAfter);
      expect(p.deprecatedOn < p.safeAfter).toBe(true);
    }
  });

  it('skips the query of a patch past its safeAfter, and fails closed when visibility does not answer', async () => {
    const p = RETIRED_PATCHES[0]!;
    const asked: string[] = [];
    const past = await checkRetiredPatches([p], new Date(`${p.safeAfter}T00:00:00Z`), async (q) => {
      asked.push(q);
      return { count: 5, workflowIds: ['x'] };
    });
    expect(past).toMatchObject([{ openRuns: null, safe: true, reason: 'calendar' }]);
    expect(asked).toEqual([]);
    expect(patchRefusal(past)).toBeNull();

    let calls = 0;
    const down = async () => {
      calls++;
      throw new Error('UNAVAILABLE');
    };
    await expect(checkRetiredPatches([p], new Date(p.deprecatedOn), down, { attempts: 3, retryDelayMs: 1 })).rejects.toThrow(
      /visibility did not answer 3 times.*UNAVAILABLE.*fails closed/,
    );
    expect(calls).toBe(3);
    expect(openRunsQuery(p)).toBe(`WorkflowType = 'payoutWorkflow' AND ExecutionStatus = 'Running' AND StartTime < '2026-11-25T10:59:23.000Z'`);
  });
});
