/**
 * The seam boundary (docs/architecture.md "Seams"): src/core reaches a rail only through the rail
 * module interface and the registry, never a rail module folder, the shared file-rail module, the
 * SFTP transport or a statement parser; and no seam module imports src/config.ts. `npm run lint`
 * enforces it with dependency-cruiser; this runs the same rules of .dependency-cruiser.cjs through
 * dependency-cruiser's own `cruise`, so `npm test` fails too.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { cruise, type IConfiguration, type IReporterOutput } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as IConfiguration;
const SEAM_RULES = ['core-through-rail-seam', 'seam-modules-not-config'];
const ruleSet: IConfiguration = { forbidden: (config.forbidden ?? []).filter((r) => SEAM_RULES.includes(r.name ?? '')) };

/** The violations (`rule: from -> to`) of the seam rules over `files`, resolved from `baseDir`. */
async function violations(files: string[], baseDir: string, tsConfig?: string): Promise<string[]> {
  const out = (await cruise(files, {
    ruleSet,
    validate: true,
    baseDir,
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    ...(tsConfig ? { tsConfig: { fileName: tsConfig } } : {}),
  })) as IReporterOutput;
  const result = out.output as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } };
  return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

const scratch = mkdtempSync(join(tmpdir(), 'seams-boundaries-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A scratch tree of `files` (path -> source) for the rules to judge. */
function tree(name: string, files: Record<string, string>): string {
  const base = join(scratch, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), text);
  }
  return base;
}

describe('the seam boundary', () => {
  it('the rules are in .dependency-cruiser.cjs', () => {
    expect(ruleSet.forbidden?.map((r) => r.name)).toEqual(SEAM_RULES);
  });

  it('src/core imports no seam module and no seam module imports src/config.ts (the repository as it is)', async () => {
    expect(await violations(['src/core', 'src/rails', 'src/seams'], ROOT, join(ROOT, 'tsconfig.json'))).toEqual([]);
  }, 60_000);

  it('the rules bite: a core file importing a rail module, the SFTP transport, a parser or the file-rail module fails; the registry and adapter pass', async () => {
    const base = tree('core-imports', {
      'src/rails/adapter.ts': 'export const A = 1;\n',
      'src/rails/registry.ts': 'export const R = 1;\n',
      'src/rails/sepa/module.ts': 'export const S = 1;\n',
      'src/rails/sftp/transport.ts': 'export const T = 1;\n',
      'src/rails/bai2/parse.ts': 'export const B = 1;\n',
      'src/rails/iso20022/camt053.ts': 'export const C = 1;\n',
      'src/rails/file-rail/index.ts': 'export const F = 1;\n',
      'src/config.ts': 'export const CONFIG = 1;\n',
      'src/rails/ach/config.ts': "import { CONFIG } from '../../config.js';\nexport const X = CONFIG;\n",
      'src/core/probe.ts': [
        "import { A } from '../rails/adapter.js';",
        "import { R } from '../rails/registry.js';",
        "import { S } from '../rails/sepa/module.js';",
        "import { T } from '../rails/sftp/transport.js';",
        "import { B } from '../rails/bai2/parse.js';",
        "import { C } from '../rails/iso20022/camt053.js';",
        "import { F } from '../rails/file-rail/index.js';",
        'export const all = [A, R, S, T, B, C, F];',
        '',
      ].join('\n'),
    });
    const found = await violations(['src'], base);
    expect(found.sort()).toEqual(
      [
        'core-through-rail-seam: src/core/probe.ts -> src/rails/bai2/parse.ts',
        'core-through-rail-seam: src/core/probe.ts -> src/rails/file-rail/index.ts',
        'core-through-rail-seam: src/core/probe.ts -> src/rails/iso20022/camt053.ts',
        'core-through-rail-seam: src/core/probe.ts -> src/rails/sepa/module.ts',
        'core-through-rail-seam: src/core/probe.ts -> src/rails/sftp/transport.ts',
        'seam-modules-not-config: src/rails/ach/config.ts -> src/config.ts',
      ].sort(),
    );
  }, 60_000);
});
