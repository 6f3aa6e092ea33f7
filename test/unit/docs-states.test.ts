/**
 * The payout state table of docs/payouts.md "States, money and events" is the transition table of
 * src/domain/payout-state.ts: every move of the code is a row, every row a move of the code (plus
 * the two ways a payout is created: `(none) -> submitted`, `(none) -> pending`).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAYOUT_TRANSITIONS } from '../../src/domain/payout-state';

describe('docs/payouts.md states', () => {
  it('lists exactly the transitions of src/domain/payout-state.ts', () => {
    const doc = readFileSync(resolve(__dirname, '../../docs/payouts.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## States, money and events'));
    const documented = [...section.matchAll(/^\| (\(none\)|[a-z_]+) -> ([a-z_]+) \|/gm)].map((m) => `${m[1]} -> ${m[2]}`);
    const code = [
      '(none) -> submitted',
      '(none) -> pending',
      ...Object.entries(PAYOUT_TRANSITIONS).flatMap(([from, tos]) => tos.map((to) => `${from} -> ${to}`)),
    ];
    expect([...documented].sort()).toEqual([...code].sort());
  });
});
