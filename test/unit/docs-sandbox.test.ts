/**
 * docs/sandbox.md keeps up with the simulators: every magic `reference` of the sandbox rail
 * (`SANDBOX_MAGIC`, src/sandbox/rails.ts) has a row in the Surface A scenario matrix, and every
 * magic creditor name of the test bank (`TEST_BANK_MAGIC` and `TEST_BANK_TWICE`,
 * tools/test-bank/answers.ts, read as text so the test does not load the XSD validator) is named in
 * "Staging against the test bank".
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SANDBOX_MAGIC } from '../../src/sandbox/rails';

const ROOT = resolve(__dirname, '../..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const doc = read('docs/sandbox.md');

function section(title: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  expect(start, `docs/sandbox.md has no "## ${title}"`).toBeGreaterThan(-1);
  const end = doc.indexOf('\n## ', start + 4);
  return doc.slice(start, end < 0 ? undefined : end);
}

describe('docs/sandbox.md', () => {
  it('has a scenario row for every magic reference of the sandbox rail', () => {
    const matrix = section('Surface A: payouts by `reference`');
    const rows = new Set([...matrix.matchAll(/^\| `(sandbox:[a-z_]+)` \|/gm)].map((m) => m[1]!));
    const missing = Object.values(SANDBOX_MAGIC).filter((v) => !rows.has(v));
    expect(missing, `add rows to docs/sandbox.md "Surface A: payouts by reference": ${missing.join(', ')}`).toEqual([]);
  });

  it('names every magic creditor name of the test bank', () => {
    const src = read('tools/test-bank/answers.ts');
    const list = /TEST_BANK_MAGIC = \[([^\]]+)\]/.exec(src)?.[1] ?? '';
    const twice = /TEST_BANK_TWICE = '([A-Z0-9]+)'/.exec(src)?.[1];
    const names = [...list.matchAll(/'([A-Z0-9]+)'/g)].map((m) => m[1]!);
    expect(names.length, 'TEST_BANK_MAGIC could not be read').toBeGreaterThan(3);
    expect(twice).toBeDefined();
    const staging = section('Staging against the test bank (live rail)');
    expect([...names, twice!].filter((n) => !staging.includes(`\`${n}\``))).toEqual([]);
  });
});
