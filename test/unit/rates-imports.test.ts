/**
 * No live code path imports the sandbox rate table (issue #33; docs/rates.md "The seam"): the
 * import graph from the rate modules (src/rates, src/core/rates) never reaches src/sandbox/fx.ts;
 * the sandbox hands its table to the core as the sandbox environment's rate source
 * (src/sandbox/adapters.ts, docs/sandbox.md "Adapters"). `npm run lint:boundaries` enforces the
 * same with the rules "live-rates-not-sandbox" and "core-not-sandbox".
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const TABLE = 'src/sandbox/fx.ts';

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((f) => {
    const p = join(dir, f);
    return statSync(join(ROOT, p)).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The project files `file` imports (relative specifiers resolved to .ts / index.ts). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
    const spec = m[1] ?? m[2]!;
    const base = resolve(join(ROOT, dirname(file)), spec);
    for (const cand of [`${base}.ts`, join(base, 'index.ts'), base]) {
      try {
        if (statSync(cand).isFile()) {
          out.push(relative(ROOT, cand));
          break;
        }
      } catch {
        // next candidate
      }
    }
  }
  return out;
}

/** Every project file reachable from `entries`, not following `stopAt`. */
function reachable(entries: string[], stopAt: Set<string>): Set<string> {
  const seen = new Set<string>();
  const todo = [...entries];
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    if (stopAt.has(f)) continue;
    todo.push(...importsOf(f));
  }
  return seen;
}

describe('live rates never read the sandbox table', () => {
  const COMPOSITION = 'src/sandbox/adapters.ts';
  const live = [...files('src/rates'), ...files('src/core/rates'), 'src/domain/rates.ts', 'src/domain/rate-routes.ts'];

  it('no module of the live rate path reaches src/sandbox/fx.ts', () => {
    const seen = reachable(live, new Set());
    expect([...seen].filter((f) => f === TABLE)).toEqual([]);
    expect(seen.has('src/core/rates/cache.ts')).toBe(true); // the walk does follow imports
  });

  it('outside src/sandbox only the OpenAPI example figures import the table', () => {
    const importers = [...files('src'), ...files('activities'), ...files('workflows')].filter((f) => !f.startsWith('src/sandbox/') && importsOf(f).includes(TABLE));
    // src/api/examples.ts computes the OpenAPI documents' example figures from the sandbox table:
    // documentation, imported by no pricing path (the walk above covers every live pricing module).
    expect(importers).toEqual(['src/api/examples.ts']);
  });

  it('the check sees an import when there is one', () => {
    expect(importsOf(COMPOSITION)).toContain(TABLE);
  });
});
