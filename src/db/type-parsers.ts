import pg from 'pg';

const INT8 = 20;
const TIMESTAMPTZ = 1184;
const ZERO = 48;

/** Positions of the digits of `YYYY-MM-DD HH:MM:SS`. */
const DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];

const num = (v: string, i: number, len: number) => {
  let n = 0;
  for (let k = i; k < i + len; k++) n = n * 10 + v.charCodeAt(k) - ZERO;
  return n;
};

/** A UTC session's timestamptz text, `YYYY-MM-DD HH:MM:SS[.f{1,6}]+00`, as a Date (ms, fraction truncated as pg does) without regular expressions; any other form through pg's own parser. */
export function parseTimestamptz(v: string): Date {
  const n = v.length;
  const utc = n >= 22 && n <= 29 && v.charCodeAt(n - 3) === 43 && v.charCodeAt(n - 2) === ZERO && v.charCodeAt(n - 1) === ZERO;
  const shaped = utc && v[4] === '-' && v[7] === '-' && v[10] === ' ' && v[13] === ':' && v[16] === ':' && (n === 22 || (v[19] === '.' && n >= 24));
  if (!shaped || !DIGITS.every((i) => isDigit(v, i)) || !fractionDigits(v, n)) return pg.types.getTypeParser(TIMESTAMPTZ, 'text')(v) as Date;
  let ms = 0;
  for (let k = 0; k < 3; k++) ms = ms * 10 + (20 + k <= n - 4 ? v.charCodeAt(20 + k) - ZERO : 0);
  return new Date(Date.UTC(num(v, 0, 4), num(v, 5, 2) - 1, num(v, 8, 2), num(v, 11, 2), num(v, 14, 2), num(v, 17, 2), ms));
}

const isDigit = (v: string, i: number) => {
  const c = v.charCodeAt(i);
  return c >= ZERO && c <= ZERO + 9;
};

const fractionDigits = (v: string, n: number) => {
  for (let i = 20; i <= n - 4; i++) if (!isDigit(v, i)) return false;
  return true;
};

/** The parsers of every PostgreSQL pool: int8 as `bigint` (money never passes a JS number), timestamptz by {@link parseTimestamptz}, the rest pg's own. */
export function pgTypeParser(oid: number, format?: string): (v: string) => unknown {
  if (oid === INT8) return (v: string) => BigInt(v);
  if (oid === TIMESTAMPTZ && format !== 'binary') return parseTimestamptz;
  return pg.types.getTypeParser(oid, format as 'text');
}
