/**
 * The documentation keeps up with the code: docs/configuration.md "Service variables" names every
 * variable src/config.ts reads, README.md still opens with the two commands that work on a fresh
 * machine, and every repository path a document cites exists (links and `path` code spans of
 * README.md, CHANGELOG.md and docs/*.md; the copied spec in docs/spec is left as written).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/config';
import { renderConfigurationDoc } from '../../tools/docs/config-tables';

const ROOT = resolve(__dirname, '../..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

/** The text of the `## <title>` section of a Markdown document (up to the next `## `), or '' when absent. */
function section(text: string, title: string): string {
  const start = text.indexOf(`\n## ${title}\n`);
  if (start < 0) return '';
  const end = text.indexOf('\n## ', start + 4);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The upper-case identifiers written as code spans (`DATABASE_URL`) in a text. */
function codeSpanVariables(text: string): Set<string> {
  return new Set([...text.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
}

/** Documents whose repository paths are checked. */
function documentedFiles(): string[] {
  return ['README.md', 'CHANGELOG.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
}

describe('docs', () => {
  it('the configuration table of docs/configuration.md lists every variable of src/config.ts', () => {
    const table = section(read('docs/configuration.md'), 'Service variables');
    expect(table, 'docs/configuration.md has no "## Service variables" section').not.toBe('');
    const listed = codeSpanVariables(table);
    const missing = CONFIG_VARIABLES.filter((v) => !listed.has(v));
    expect(missing, `add these to docs/configuration.md "Service variables": ${missing.join(', ')}`).toEqual([]);
  });

  it('the seam modules\' tables of docs/configuration.md are generated from their settings (npm run docs:config)', () => {
    const doc = read('docs/configuration.md');
    expect(renderConfigurationDoc(doc), 'docs/configuration.md is out of date: run npm run docs:config').toBe(doc);
  });

  it('the variable check fails when a variable is missing', () => {
    const table = section(read('docs/configuration.md'), 'Service variables').replaceAll('`DATABASE_URL`', '`DB`');
    expect(CONFIG_VARIABLES.filter((v) => !codeSpanVariables(table).has(v))).toEqual(['DATABASE_URL']);
  });

  it('README.md opens with the two commands that work on a fresh machine', () => {
    const readme = read('README.md');
    const firstBlock = readme.slice(readme.indexOf('```sh'), readme.indexOf('```', readme.indexOf('```sh') + 5));
    expect(firstBlock).toContain('npm ci && npm run dev');
    expect(firstBlock).toContain('npm ci && npm test');
    expect(readme.indexOf('```sh')).toBeLessThan(readme.indexOf('\n## '));
  });

  it('every repository path a document cites exists', () => {
    const broken: string[] = [];
    for (const file of documentedFiles()) {
      const text = read(file);
      // Markdown links to files of the repository (not URLs, not anchors).
      for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        if (!existsSync(resolve(ROOT, dirname(file), target))) broken.push(`${file}: link ${target}`);
      }
      // Code spans that name a repository path, e.g. `src/core/rails/inbox.ts` or `tools/test-bank/`.
      for (const m of text.matchAll(/`((?:src|docs|tools|test|workflows|activities|deploy|clients|\.ci)\/[A-Za-z0-9_./-]*)`/g)) {
        const path = m[1]!;
        if (path.includes('*') || path.includes('<')) continue;
        if (!existsSync(join(ROOT, path))) broken.push(`${file}: ${path}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
