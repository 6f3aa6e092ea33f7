/**
 * docs/integration.md "Events" keeps up with the event types each surface sends: every type of
 * `SURFACE_A_EVENT_TYPES` (src/domain/webhook-events.ts), `SURFACE_B_EVENT_TYPES`
 * (src/domain/surface-b.ts) and `SURFACE_C_EVENT_TYPES` (src/domain/surface-c.ts) is in the
 * catalog table and has an example payload (a JSON block with its `"type"`) in its surface's
 * "Example payloads" section.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SURFACE_B_EVENT_TYPES } from '../../src/domain/surface-b';
import { SURFACE_C_EVENT_TYPES } from '../../src/domain/surface-c';
import { SURFACE_A_EVENT_TYPES } from '../../src/domain/webhook-events';

const doc = readFileSync(join(resolve(__dirname, '../..'), 'docs/integration.md'), 'utf8');

/** The text from `heading` to the next heading of the same or a higher level. */
function block(heading: string): string {
  const start = doc.indexOf(`\n${heading}\n`);
  expect(start, `docs/integration.md has no "${heading}"`).toBeGreaterThan(-1);
  const level = heading.split(' ')[0]!;
  const next = [...doc.slice(start + heading.length + 2).matchAll(/^(#{2,3}) /gm)].find((m) => m[1]!.length <= level.length);
  return doc.slice(start, next ? start + heading.length + 2 + next.index : undefined);
}

/** Event types that have a JSON example block (`"type": "<type>"`) in a text. */
function exampleTypes(text: string): Set<string> {
  const types = new Set<string>();
  for (const m of text.matchAll(/```json\n([\s\S]*?)```/g)) {
    for (const t of m[1]!.matchAll(/^ {2}"type": "([a-z_.]+)"/gm)) types.add(t[1]!);
  }
  return types;
}

const SURFACES = [
  ['A', SURFACE_A_EVENT_TYPES],
  ['B', SURFACE_B_EVENT_TYPES],
  ['C', SURFACE_C_EVENT_TYPES],
] as const;

describe('docs/integration.md "Events"', () => {
  for (const [surface, types] of SURFACES) {
    it(`has an example payload for every Surface ${surface} event type`, () => {
      const examples = exampleTypes(block(`### Example payloads, Surface ${surface}`));
      const missing = types.filter((t) => !examples.has(t));
      expect(missing, `add examples to docs/integration.md "Example payloads, Surface ${surface}": ${missing.join(', ')}`).toEqual([]);
    });
  }

  it('names every event type of every surface in the catalog table', () => {
    const catalog = block('### Catalog');
    const missing = SURFACES.flatMap(([, types]) => types).filter((t) => !catalog.includes(`\`${t}\``));
    expect(missing).toEqual([]);
  });

  it('fails when an example is missing', () => {
    const withoutOne = block('### Example payloads, Surface B').replace(/^ {2}"type": "disbursement\.expired"/m, '');
    expect(SURFACE_B_EVENT_TYPES.filter((t) => !exampleTypes(withoutOne).has(t))).toEqual(['disbursement.expired']);
  });
});
