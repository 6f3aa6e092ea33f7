/**
 * docs/integration.md "Errors" documents every error code the service can emit, derived from the
 * code, not from a hand-written list:
 * - every member of the core's `ErrorCode` union (src/domain/errors.ts), which every `ApiError`
 *   must carry, and every code a surface renames one to (the `codes` maps of src/api/<surface>/errors.ts,
 *   e.g. Surface B's `rate_limit_exceeded`), each in a row of the codes table, with the HTTP
 *   status of every `new ApiError(<status>, '<code>'` written in src/;
 * - every payout failure code (`PAYOUT_FAILURE_CODES`, the `failure.code` of a payout);
 * - every code a disbursement review or summary writes into an object (src/core/disbursements).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAYOUT_FAILURE_CODES } from '../../src/domain/payout-state';

const ROOT = resolve(__dirname, '../..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(join(ROOT, path)).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The `## Errors` section of docs/integration.md. */
function errorsSection(): string {
  const doc = read('docs/integration.md');
  const start = doc.indexOf('\n## Errors\n');
  expect(start, 'docs/integration.md has no "## Errors" section').toBeGreaterThan(-1);
  const end = doc.indexOf('\n## ', start + 4);
  return doc.slice(start, end < 0 ? undefined : end);
}

/** The members of `export type ErrorCode = | 'a' | 'b' ...;` in src/domain/errors.ts. */
function errorCodeUnion(): string[] {
  const src = read('src/domain/errors.ts');
  const start = src.indexOf('export type ErrorCode =');
  expect(start).toBeGreaterThan(-1);
  const body = src.slice(start, src.indexOf(';', start));
  return [...body.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!);
}

/** Codes a surface renders instead of the core's (`codes: { rate_limited: { code: 'rate_limit_exceeded' } }`). */
function surfaceRenames(): string[] {
  return readdirSync(join(ROOT, 'src/api'))
    .map((d) => `src/api/${d}/errors.ts`)
    .filter((p) => {
      try {
        return statSync(join(ROOT, p)).isFile();
      } catch {
        return false;
      }
    })
    .flatMap((p) => [...read(p).matchAll(/\{\s*code:\s*'([a-z_]+)'/g)].map((m) => m[1]!));
}

/** `[status, code]` of every `new ApiError(<number>, '<code>'` in src/. */
function thrownPairs(): [string, string][] {
  return filesUnder('src').flatMap((p) =>
    [...read(p).matchAll(/new ApiError\(\s*(\d{3}),\s*'([a-z_]+)'/g)].map((m) => [m[1]!, m[2]!] as [string, string]),
  );
}

/** Codes written into objects by src/core/disbursements (review reasons, summary warnings). */
function disbursementObjectCodes(): string[] {
  return filesUnder('src/core/disbursements').flatMap((p) => [...read(p).matchAll(/\bcode: '([a-z_]+)'/g)].map((m) => m[1]!));
}

/** Rows of the codes table: `| <status> | \`<code>\` | ...`. */
function tableRows(section: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const m of section.matchAll(/^\| ([0-9 /]+) \| `([a-z_]+)` \|/gm)) rows.set(m[2]!, m[1]!.trim());
  return rows;
}

describe('docs/integration.md "Errors"', () => {
  it('has a row for every error code of the code, with its HTTP status', () => {
    const union = errorCodeUnion();
    expect(union.length, 'the ErrorCode union could not be read').toBeGreaterThan(20);
    const rows = tableRows(errorsSection());
    const codes = [...new Set([...union, ...surfaceRenames()])];
    const missing = codes.filter((c) => !rows.has(c));
    expect(missing, `add a row to docs/integration.md "Every code, and what to do" for: ${missing.join(', ')}`).toEqual([]);
    const wrongStatus = thrownPairs()
      .filter(([status, code]) => rows.has(code) && !rows.get(code)!.split(/[ /]+/).includes(status))
      .map(([status, code]) => `${code} is thrown with ${status}, documented as ${rows.get(code)}`);
    expect([...new Set(wrongStatus)]).toEqual([]);
  });

  it('every code thrown in src/ is a member of the ErrorCode union it reads', () => {
    const union = new Set(errorCodeUnion());
    expect(thrownPairs().filter(([, code]) => !union.has(code))).toEqual([]);
  });

  it('names every payout failure code and every code written into disbursement objects', () => {
    const section = errorsSection();
    const codes = [...PAYOUT_FAILURE_CODES, ...disbursementObjectCodes()];
    expect(disbursementObjectCodes()).toContain('csv_parse_error');
    const missing = [...new Set(codes)].filter((c) => !section.includes(`\`${c}\``));
    expect(missing, `name these in docs/integration.md "Errors": ${missing.join(', ')}`).toEqual([]);
  });

  it('fails when a code is missing from the table', () => {
    const rows = tableRows(errorsSection().replace(/^\| 409 \| `stale_revision` \|.*$/m, ''));
    expect(errorCodeUnion().filter((c) => !rows.has(c))).toEqual(['stale_revision']);
  });
});
