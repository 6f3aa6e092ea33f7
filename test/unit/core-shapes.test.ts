/**
 * The core speaks domain objects (issue #38; docs/architecture.md "Domain objects and wire shapes"):
 * no exported function of src/core takes or returns a surface's wire shape (a snake_case key or a
 * `Wire*` type), table rows and catalog-keyed recipient details aside (tools/docs/core-shapes.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanCoreShapes } from '../../tools/docs/core-shapes';

const root = resolve(__dirname, '../..');

describe('core shapes', () => {
  it('no exported src/core function takes or returns a snake_case or Wire* shape', () => {
    const findings = scanCoreShapes(root).map((f) => `${f.file} ${f.fn}: ${f.where}`);
    expect(findings).toEqual([]);
  }, 60_000);

  it('sees a snake_case key in a result, a nested input, a Wire* type and through Promise and arrays; not in a table row', () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-shapes-'));
    const put = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    try {
      put('tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler' }, include: ['src'] }));
      put('src/db/tables/things.ts', 'export interface ThingRow { business_id: string }\n');
      put(
        'src/core/things.ts',
        [
          "import type { ThingRow } from '../db/tables/things';",
          'export interface WireThing { id: string }',
          'export interface Page { data: { id: string }[]; next_cursor: string | null }',
          'export async function listThings(): Promise<Page> { return { data: [], next_cursor: null }; }',
          'export const makeThing = (input: { spec: { source_amount: string } }): { id: string } => ({ id: input.spec.source_amount });',
          'export function wire(): WireThing[] { return []; }',
          'export function row(): ThingRow { return { business_id: "b" }; }',
          'export function domain(): { businessId: string } { return { businessId: "b" }; }',
        ].join('\n'),
      );
      const found = scanCoreShapes(dir).map((f) => `${f.fn}: ${f.where}`).sort();
      expect(found).toEqual(['listThings: returns.next_cursor', 'makeThing: param input.spec.source_amount', 'wire: returns'].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
