import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Workflow versioning retires (docs/architecture.md "Workflow contracts", docs/operations.md
 * "Retiring a workflow patch"): at most two live `patched()` calls across the workflow bodies, each
 * with its retirement date in the comment above it; every retired patch names the date its
 * `deprecatePatch` call may go.
 */
const DIR = new URL('../../workflows/', import.meta.url);
const bodies = readdirSync(DIR)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.contract.ts'))
  .map((f) => ({ file: f, text: readFileSync(new URL(f, DIR), 'utf8') }));

/** The `patched(` calls of a body (not `deprecatePatch(`, not in comments), with the 12 lines before each. */
function liveCalls(text: string): { line: string; before: string }[] {
  const lines = text.split('\n');
  return lines.flatMap((line, i) =>
    /(?<![A-Za-z])patched\(/.test(line.replace(/\/\/.*$/, '')) && !/^\s*(\*|\/\*\*)/.test(line) ? [{ line, before: lines.slice(Math.max(0, i - 12), i + 1).join('\n') }] : [],
  );
}

describe('workflow patch markers', () => {
  it('at most two live patched() calls, each under a comment with its retirement date', () => {
    const calls = bodies.flatMap(({ text }) => liveCalls(text));
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.length).toBeLessThanOrEqual(2);
    for (const { line, before } of calls) {
      const constant = /patched\(([A-Z_]+)\)/.exec(line)?.[1];
      const text = constant ? bodies.map((b) => b.text).find((t) => t.includes(`const ${constant} =`))! : before;
      const context = constant ? text.slice(Math.max(0, text.indexOf(`const ${constant} =`) - 800), text.indexOf(`const ${constant} =`)) : before;
      expect(context, line).toMatch(/Retirement date \d{4}-\d{2}-\d{2}/);
    }
  });

  it('every deprecatePatch names the date on or after which it is removed', () => {
    const withDeprecated = bodies.filter(({ text }) => /deprecatePatch\(/.test(text));
    expect(withDeprecated.map((b) => b.file).sort()).toEqual(['disbursement.ts', 'payout.ts']);
    for (const { file, text } of withDeprecated) expect(text, file).toMatch(/on or after \d{4}-\d{2}-\d{2}/);
  });
});
