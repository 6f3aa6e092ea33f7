import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseTimestamptz, pgTypeParser } from '../../src/db/type-parsers';

const pgOwn = pg.types.getTypeParser(1184, 'text') as (v: string) => Date;

/** PostgreSQL's text form, for a UTC session, of the instant `ms` plus `micros` microseconds (trailing zeros of the fraction dropped, as PostgreSQL does). */
const pgText = (ms: number, micros: number) => {
  const iso = new Date(ms).toISOString();
  const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
};

describe('the timestamptz parser (src/db/type-parsers.ts)', () => {
  it("reads a UTC session's timestamps to the millisecond, as pg's own parser does", () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }), fc.integer({ min: 0, max: 999 }), (ms, micros) => {
        const text = pgText(ms, micros);
        expect(parseTimestamptz(text).getTime()).toBe(ms);
        expect(parseTimestamptz(text).getTime()).toBe(pgOwn(text).getTime());
      }),
      { numRuns: 2000 },
    );
  });

  it('reads whole seconds and every fraction length', () => {
    expect(parseTimestamptz('2026-11-28 13:24:00+00').toISOString()).toBe('2026-11-28T13:24:00.000Z');
    expect(parseTimestamptz('2026-11-28 13:24:00.5+00').toISOString()).toBe('2026-11-28T13:24:00.500Z');
    expect(parseTimestamptz('2026-11-28 13:24:00.05+00').toISOString()).toBe('2026-11-28T13:24:00.050Z');
    expect(parseTimestamptz('2026-11-28 13:24:00.123456+00').toISOString()).toBe('2026-11-28T13:24:00.123Z');
  });

  it("leaves every other form to pg's own parser", () => {
    for (const text of ['2026-11-28 14:24:00.25+01', '2026-11-28 08:54:00+05:30', '0044-03-15 12:00:00+00 BC', '20261-01-01 00:00:00+00', 'infinity', '-infinity', '2026-11-28 1x:24:00+00']) {
      const ours = parseTimestamptz(text);
      const theirs = pgOwn(text);
      expect(ours instanceof Date ? ours.getTime() : ours).toEqual(theirs instanceof Date ? theirs.getTime() : theirs);
    }
    expect(parseTimestamptz('2026-11-28 14:24:00.25+01').toISOString()).toBe('2026-11-28T13:24:00.250Z');
  });

  it('gives int8 as bigint and timestamptz through the fast reader; other types stay pg\'s', () => {
    expect(pgTypeParser(20)('9007199254740993')).toBe(9007199254740993n);
    expect(pgTypeParser(1184)).toBe(parseTimestamptz);
    expect(pgTypeParser(1082)).toBe(pg.types.getTypeParser(1082, 'text'));
  });
});
