/**
 * Matching after OFAC's method (docs/screening.md "Matching"): normalised names, stop words that
 * never score alone, token order, and the disambiguators that lower, clear or confirm a name hit.
 */
import { describe, expect, it } from 'vitest';
import type { ListEntry } from '../../../src/screening/entry';
import { SANDBOX_LIST } from '../../../src/screening/lists/sandbox-list';
import { buildIndex, matchSubject } from '../../../src/screening/match';

const entries: ListEntry[] = [
  ...SANDBOX_LIST.entries,
  { id: 'E1', kind: 'entity', names: [{ name: 'GLOBAL PETRO TRADING CORP', type: 'primary' }], datesOfBirth: [], countries: ['IR'], identifiers: [], programs: ['X'] },
  { id: 'E2', kind: 'individual', names: [{ name: 'MÜLLER, Jürgen', type: 'primary' }], datesOfBirth: ['1961-05-02'], countries: ['DE'], identifiers: [{ type: 'passport', value: 'C01X00T47' }], programs: ['X'] },
  { id: 'E3', kind: 'entity', names: [{ name: 'CORP LTD', type: 'primary' }], datesOfBirth: [], countries: [], identifiers: [], programs: ['X'] },
];
const index = buildIndex('test', 'slv_test', entries);
const screen = (s: Parameters<typeof matchSubject>[1], min = 0.88) => matchSubject(index, s, min);

describe('names', () => {
  it('transliterates other scripts before comparing', () => {
    const cyrillic = buildIndex('test', 'slv_test', [{ id: 'C1', kind: 'individual', names: [{ name: 'TESTOV, Ivan', type: 'primary' }], datesOfBirth: [], countries: [], identifiers: [], programs: [] }]);
    expect(matchSubject(cyrillic, { name: 'Иван Тестов' }, 0.88)[0]).toMatchObject({ entry: { id: 'C1' }, score: 1 });
  });

  it('matches across case, accents, transliteration, punctuation and token order', () => {
    for (const name of ['Jurgen Muller', 'jürgen müller', 'MULLER, JURGEN', 'Müller Jürgen.']) {
      const [hit] = screen({ name, kind: 'individual' });
      expect(hit, name).toMatchObject({ entry: { id: 'E2' }, matchedName: 'MÜLLER, Jürgen' });
      expect(hit!.score, name).toBeGreaterThanOrEqual(0.88);
    }
  });

  it('scores a near spelling below an exact one, and keeps score, entry, list, version and reason', () => {
    const [exact] = screen({ name: 'Sandy Sanctioned' });
    const [near] = screen({ name: 'Sandi Sanctionned' });
    expect(exact).toMatchObject({ list: 'test', versionId: 'slv_test', entry: { id: 'SBX-1' }, score: 1 });
    expect(near!.entry.id).toBe('SBX-1');
    expect(near!.score).toBeLessThan(1);
    expect(near!.score).toBeGreaterThanOrEqual(0.88);
    expect(near!.reason).toMatch(/SANCTIONED, Sandy.*scored 0\.9/);
  });

  it('never lets stop words score alone', () => {
    expect(screen({ name: 'CORP LTD' })).toEqual([]);
    expect(screen({ name: 'Bank Corp SA Inc', kind: 'entity' })).toEqual([]);
    // "Global Petro Trading Corp" shares only stop words and one word with "Acme Trading Corp".
    expect(screen({ name: 'Acme Trading Corp', kind: 'entity' })).toEqual([]);
    expect(screen({ name: 'Global Petro Trading Corporation Ltd', kind: 'entity' })[0]).toMatchObject({ entry: { id: 'E1' }, score: 1 });
  });

  it('leaves unrelated names clear', () => {
    expect(screen({ name: 'Maria Garcia Lopez', kind: 'individual' })).toEqual([]);
  });
});

describe('disambiguators', () => {
  it('a date of birth that differs lowers the hit below the minimum (clears it); a fitting one keeps it', () => {
    const plain = screen({ name: 'Jurgen Muller' })[0]!;
    expect(screen({ name: 'Jurgen Muller', dateOfBirth: '1990-01-01' })).toEqual([]);
    const lowered = screen({ name: 'Jurgen Muller', dateOfBirth: '1990-01-01' }, 0.5)[0]!;
    expect(lowered.score).toBeLessThan(plain.score);
    expect(lowered.disambiguators).toEqual(['date_of_birth_differs']);
    expect(screen({ name: 'Jurgen Muller', dateOfBirth: '1961' })[0]!.disambiguators).toEqual(['date_of_birth_matches']);
  });

  it('a country that differs lowers the hit; one that fits raises it', () => {
    const plain = screen({ name: 'Jurgen Mueller' }, 0.5)[0]!;
    const elsewhere = screen({ name: 'Jurgen Mueller', country: 'FR' }, 0.5)[0]!;
    const here = screen({ name: 'Jurgen Mueller', country: 'Germany' }, 0.5)[0]!;
    expect(elsewhere.score).toBeLessThan(plain.score);
    expect(here.score).toBeGreaterThan(plain.score);
    expect([elsewhere.disambiguators, here.disambiguators]).toEqual([['country_differs'], ['country_matches']]);
  });

  it('an identifier of the same type that differs lowers the hit; an equal one with the exact name confirms it', () => {
    expect(screen({ name: 'Jurgen Muller', identifiers: [{ type: 'passport', value: 'X1234' }] }, 0.5)[0]!.disambiguators).toEqual(['identifier_differs']);
    const confirmed = screen({ name: 'Jürgen Müller', identifiers: [{ value: 'c01x00t47' }] })[0]!;
    expect(confirmed).toMatchObject({ confirmed: true, disambiguators: ['identifier_matches'] });
    expect(screen({ name: 'Jurgen Muler', identifiers: [{ value: 'C01X00T47' }] })[0]!.confirmed).toBe(false); // not the exact name
  });

  it('a person screened against an entity (or the reverse) is lowered', () => {
    const asEntity = screen({ name: 'Sandbox Sanctioned Trading', kind: 'entity' }, 0.5).find((h) => h.entry.id === 'SBX-2')!;
    const asPerson = screen({ name: 'Sandbox Sanctioned Trading', kind: 'individual' }, 0.5).find((h) => h.entry.id === 'SBX-2')!;
    expect(asEntity).toMatchObject({ disambiguators: [], score: 1 });
    expect(asPerson).toMatchObject({ disambiguators: ['kind_differs'], score: 0.85 });
  });
});
