/**
 * The rail seam (docs/rails.md "Adding a rail", issue #35): the core (src/core) names no rail.
 * Every file under src/core is read and fails the test when it imports a rail module's directory
 * (src/rails/<rail>/: a directory with a module.ts; the registry, the adapter types and the shared
 * format and transport modules are allowed), names a rail's name constant (`SEPA_RAIL`, `ACH_RAIL`,
 * ... as exported by the rail directories) or spells a rail id the registry serves as a string
 * literal. The settlement accounts come from the modules' `statements` parts (docs/treasury.md).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RAIL_MODULES, railsServedBy, statementRails } from '../../src/rails/registry';

const ROOT = resolve(__dirname, '../..');
const CORE = join(ROOT, 'src/core');
const RAILS = join(ROOT, 'src/rails');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** The rail modules' directories: src/rails/<rail>/ holding a module.ts. */
const railDirs = readdirSync(RAILS).filter((d) => existsSync(join(RAILS, d, 'module.ts')));
/** Every catalog rail id a registry module serves. */
const railIds = RAIL_MODULES.flatMap((m) => [...railsServedBy(m)]);
/** The rail name constants the rail directories export (`export const SEPA_RAIL = 'sepa_credit_transfer'`). */
const railConstants = railDirs.flatMap((d) =>
  filesUnder(join(RAILS, d)).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/export const ([A-Z][A-Z0-9_]*)\s*=\s*['"]([^'"]+)['"]/g)].filter((m) => railIds.includes(m[2]!)).map((m) => m[1]!)),
);

/** What in `text` (the file `path`) names a rail: imports of a rail's directory, its name constants, its ids as literals. */
function railNames(path: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g)) {
    const spec = m[1]!;
    if (!spec.startsWith('.')) continue;
    const target = relative(RAILS, resolve(dirname(path), spec)).split(/[\\/]/);
    if (target[0] !== '..' && target.length > 1 && railDirs.includes(target[0]!)) found.push(`import of ${spec}`);
  }
  for (const c of railConstants) if (new RegExp(`\\b${c}\\b`).test(text)) found.push(`rail constant ${c}`);
  for (const id of railIds) if (text.includes(`'${id}'`) || text.includes(`"${id}"`)) found.push(`rail id literal '${id}'`);
  return found;
}

describe('the rail seam: src/core names no rail', () => {
  it('knows the rail directories, constants and ids it looks for', () => {
    expect(railDirs).toEqual(expect.arrayContaining(['sepa', 'ach', 'wise']));
    expect(railConstants).toEqual(expect.arrayContaining(['SEPA_RAIL', 'ACH_RAIL', 'WISE_RAIL']));
    expect(railIds).toEqual(expect.arrayContaining(['sepa_credit_transfer', 'ach', 'wise']));
  });

  it('flags a core file that names a rail (the check bites)', () => {
    const path = join(CORE, 'treasury/example.ts');
    expect(railNames(path, "import { ACH_RAIL } from '../../rails/ach/config';\nif (rail === ACH_RAIL) {}")).toEqual(['import of ../../rails/ach/config', 'rail constant ACH_RAIL']);
    expect(railNames(path, "import { sepaRailConfig } from '../../rails/sepa/config';")).toEqual(['import of ../../rails/sepa/config']);
    expect(railNames(path, "for (const rail of ['sepa_credit_transfer', 'ach']) {}")).toEqual(["rail id literal 'sepa_credit_transfer'", "rail id literal 'ach'"]);
    // The registry, the adapter types, shared formats and the core's own rails directory name no rail
    // (this check; the dependency rule core-through-rail-seam keeps the formats out of the core too).
    expect(railNames(path, "import { statementPartsOf } from '../../rails/registry';\nimport type { RailModule } from '../../rails/adapter';\nimport { parseBai2 } from '../../rails/bai2/parse';\nimport { markInboundProcessed } from '../rails/files';")).toEqual([]);
  });

  it('no file under src/core imports a rail module, names a rail constant or spells a rail id', () => {
    const offences = filesUnder(CORE).flatMap((f) => railNames(f, readFileSync(f, 'utf8')).map((n) => `${relative(ROOT, f)}: ${n}`));
    expect(offences).toEqual([]);
  });

  it('the settlement accounts come from the modules with a statements part, in registry order (EUR first)', () => {
    expect(statementRails().map((r) => [r.rail, r.statements.format, r.statements.currency])).toEqual([
      ['sepa_credit_transfer', 'camt.053', 'EUR'],
      ['ach', 'bai2', 'USD'],
    ]);
  });
});
