/**
 * Generates the seam modules' variable tables of docs/configuration.md from their settings schemas
 * (docs/architecture.md "Seams"): one table per registered module, each row a variable, its
 * default (from the zod `.default()`; `unset` for an optional one) and its meaning (the `.describe()`
 * text). A module variable without a description throws, so none ships undocumented.
 *
 * `npm run docs:config` (`tsx tools/docs/config-tables.ts`) rewrites docs/configuration.md between
 * `<!-- BEGIN GENERATED: seam settings (npm run docs:config) -->` and
 * `<!-- END GENERATED: seam settings -->` and leaves the prose around them alone; `--check` writes
 * nothing and exits 1 when the file differs. test/unit/docs-config.test.ts runs the same comparison,
 * and builds it again with a fixture rail to show a new module documents itself.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { SeamModule, SeamSettings } from '../../src/seams/module';
import { SEAM_REGISTRIES, SEAM_TITLES } from '../../src/seams/registry';

export const BEGIN = '<!-- BEGIN GENERATED: seam settings (npm run docs:config) -->';
export const END = '<!-- END GENERATED: seam settings -->';

/** One seam for the generator: its docs heading and its modules. */
export interface DocumentedSeam {
  title: string;
  modules: readonly SeamModule[];
}

/** The registered seams (src/seams/registry.ts), titled. */
export function registeredSeams(): DocumentedSeam[] {
  return SEAM_REGISTRIES.map((modules, i) => ({ title: SEAM_TITLES[i] ?? `Seam ${i + 1}`, modules }));
}

const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The description of a variable's schema (set last in its chain, or on an inner schema). */
function descriptionOf(schema: z.ZodType): string | undefined {
  let s: z.ZodType | undefined = schema;
  while (s) {
    if (s.description) return s.description;
    const def = s.def as { innerType?: z.ZodType };
    s = def.innerType;
  }
  return undefined;
}

/** The documented default of a variable's schema: `` `value` ``, `empty`, or `unset`. */
function defaultOf(schema: z.ZodType): string {
  let s: z.ZodType | undefined = schema;
  while (s) {
    const def = s.def as { type: string; defaultValue?: unknown; innerType?: z.ZodType };
    if (def.type === 'default') {
      const v = typeof def.defaultValue === 'function' ? (def.defaultValue as () => unknown)() : def.defaultValue;
      return v === '' ? 'empty' : `\`${String(v)}\``;
    }
    if (def.type === 'optional') return 'unset';
    s = def.innerType;
  }
  return 'required';
}

/** The Markdown table of one module's `settings`; throws when a variable has no `.describe()` text. */
export function settingsTable(id: string, settings: SeamSettings): string {
  const rows = Object.entries(settings).map(([name, schema]) => {
    const text = descriptionOf(schema as z.ZodType);
    if (!text) throw new Error(`${name} (module ${id}) has no .describe() text: docs/configuration.md cannot document it`);
    return `| \`${name}\` | ${cell(defaultOf(schema as z.ZodType))} | ${cell(text)} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The generated block (markers included) for `seams`. */
export function generatedBlock(seams: readonly DocumentedSeam[]): string {
  const parts: string[] = [BEGIN];
  for (const seam of seams) {
    for (const m of seam.modules) parts.push('', `#### ${seam.title}: \`${m.id}\``, '', settingsTable(m.id, m.settings));
  }
  parts.push('', END);
  return parts.join('\n');
}

/** `doc` with its generated block replaced by the one of `seams`; throws when the markers are missing. */
export function renderConfigurationDoc(doc: string, seams: readonly DocumentedSeam[] = registeredSeams()): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/configuration.md lacks the markers ${BEGIN} ... ${END}`);
  return doc.slice(0, start) + generatedBlock(seams) + doc.slice(end + END.length);
}

export const CONFIGURATION_DOC = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const current = readFileSync(CONFIGURATION_DOC, 'utf8');
  const next = renderConfigurationDoc(current);
  if (process.argv.includes('--check')) {
    if (next !== current) {
      console.error('docs/configuration.md is out of date: run npm run docs:config');
      process.exit(1);
    }
  } else if (next !== current) writeFileSync(CONFIGURATION_DOC, next);
}
