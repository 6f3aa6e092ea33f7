/**
 * docs/states.md and the code agree (docs/states.md; tools/docs/state-tables.ts):
 * - every generated section of docs/states.md is exactly what the generator makes from today's
 *   transition tables (a changed move, event, posting or surface view without `npm run
 *   docs:states` fails here; so does a move the generator has no trigger text for);
 * - independently of the generator, the rows of the payout, payment request and deposit tables are
 *   the moves of their transition tables, and the disbursement table's "accepted in" column is
 *   ALLOWED, so a generator bug cannot hide a drift;
 * - no other doc keeps a hand-written copy of these tables.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALLOWED } from '../../src/domain/disbursement-state';
import {
  DEPOSIT_INITIAL_STATUS,
  DEPOSIT_TRANSITIONS,
  PAYMENT_REQUEST_INITIAL_STATUS,
  PAYMENT_REQUEST_TRANSITIONS,
} from '../../src/domain/funding';
import { PAYOUT_TRANSITIONS } from '../../src/domain/payout-state';
import { fillMarkers, generatedSections, SECTIONS } from '../../tools/docs/state-tables';

const read = (path: string) => readFileSync(resolve(__dirname, '../..', path), 'utf8');
const doc = read('docs/states.md');

/** The text between a section's markers in docs/states.md. */
function section(name: string): string {
  const begin = doc.indexOf(`<!-- BEGIN GENERATED: ${name} `);
  const end = doc.indexOf(`<!-- END GENERATED: ${name} -->`);
  expect(begin, `markers of ${name}`).toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(begin);
  return doc.slice(doc.indexOf('-->', begin) + 3, end).trim();
}

/** `from -> to` of every table row of a section whose first two cells are statuses. */
function documentedMoves(name: string): string[] {
  return [...section(name).matchAll(/^\| (\(none\)|`[a-z_]+`) \| `([a-z_]+)` \|/gm)].map((m) => `${m[1]!.replaceAll('`', '')} -> ${m[2]}`);
}

const movesOf = (initial: readonly string[], transitions: Readonly<Record<string, readonly string[]>>) => [
  ...initial.map((s) => `(none) -> ${s}`),
  ...Object.entries(transitions).flatMap(([from, tos]) => tos.map((to) => `${from} -> ${to}`)),
];

describe('docs/states.md', () => {
  it('has a generated section for each object', () => {
    expect(Object.keys(SECTIONS)).toEqual(['payout', 'disbursement-a', 'disbursement-b', 'payout-c', 'payment-request', 'deposit']);
  });

  it.each(Object.keys(SECTIONS))('section %s is what tools/docs/state-tables.ts generates from the code (run `npm run docs:states`)', (name) => {
    expect(section(name)).toBe(SECTIONS[name]!());
  });

  it('is unchanged by regenerating it', () => {
    expect(fillMarkers(doc, generatedSections())).toBe(doc);
  });

  it('payout rows are exactly the moves of PAYOUT_TRANSITIONS plus the two entries', () => {
    expect(documentedMoves('payout').sort()).toEqual(movesOf(['submitted', 'pending'], PAYOUT_TRANSITIONS).sort());
  });

  it('payment request and deposit rows are exactly their transition tables', () => {
    expect(documentedMoves('payment-request').sort()).toEqual(movesOf([PAYMENT_REQUEST_INITIAL_STATUS], PAYMENT_REQUEST_TRANSITIONS).sort());
    expect(documentedMoves('deposit').sort()).toEqual(movesOf([DEPOSIT_INITIAL_STATUS], DEPOSIT_TRANSITIONS).sort());
  });

  it('the disbursement operations are accepted in the statuses of ALLOWED', () => {
    const accepted = [...section('disbursement-a').matchAll(/^\| ((?:`[a-z_]+`(?:, )?)+) \|/gm)].map((m) => m[1]!.replaceAll('`', '').split(', '));
    expect(accepted).toEqual(Object.values(ALLOWED).map((s) => [...s]));
  });

  it('no other doc keeps a hand-written state table', () => {
    const tableHeads = [/^\| Move \| When \|/m, /^\| from \| to \| trigger \|/m, /^\| from \| operation \| to \|/m, /^\| Surface B \| meaning \| core payout \|/m, /^\| Surface C \| core \| meaning \|/m];
    for (const path of ['docs/payouts.md', 'docs/disbursements.md', 'docs/getting-paid.md', 'docs/surface-b.md', 'docs/surface-c.md']) {
      const text = read(path);
      for (const head of tableHeads) expect(text, `${path} ${head}`).not.toMatch(head);
      expect(text, `${path} links docs/states.md`).toMatch(/states\.md#/);
    }
  });
});
