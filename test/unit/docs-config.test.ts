/**
 * The documentation keeps up with the code: the README's configuration table names every variable
 * src/config.ts reads, and every repository path a document cites exists (links and `path` code
 * spans of README.md and docs/*.md; the copied spec in docs/spec is left as written).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/config';

const ROOT = resolve(__dirname, '../..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

describe('docs', () => {
  it('the README configuration table lists every variable of src/config.ts', () => {
    const readme = read('README.md');
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 5));
    const listed = new Set([...section.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
    const missing = CONFIG_VARIABLES.filter((v) => !listed.has(v));
    expect(missing, `add these to README.md "Configuration": ${missing.join(', ')}`).toEqual([]);
  });

  it('every repository path a document cites exists', () => {
    const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const broken: string[] = [];
    for (const file of files) {
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
