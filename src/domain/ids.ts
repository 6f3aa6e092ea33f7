import { randomBytes, randomInt } from 'node:crypto';

/**
 * Resource identifiers: `<prefix>_<26 chars>`, a 10-char millisecond timestamp then 16 random
 * chars in Crockford base32, so ids sort by creation time (lists page by id) and never collide.
 * Not for workflow code (uses node:crypto); workflows receive ids from activities.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix =
  | 'biz' | 'key' | 'qt' | 'rcp' | 'po' | 'att' | 'evt' | 'we' | 'whd' | 'dsb' | 'dsi' | 'rev' | 'req' | 'rct' | 'va' | 'dep' | 'plink' | 'preq'
  | 'ntf' | 'msg' | 'cbt' | 'ctu' | 'tca' | 'rf' | 'stm' | 'tbr' | 'cda' | 'csw' | 'nmsg'
  | 'aud';

/** A new time-ordered id such as `po_01j9z3k4m5n6p7q8r9s0t1v2w3`. */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  let ts = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    ts = ALPHABET[t % 32] + ts;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rand = '';
  for (const b of bytes) rand += ALPHABET[b % 32];
  return `${prefix}_${ts}${rand}`;
}

/** A URL-safe random secret of `bytes` bytes (API keys, webhook secrets, receipt tokens). */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** `n` random decimal digits (account numbers drawn in a range), e.g. `randomDigits(4)` -> "0381". */
export function randomDigits(n: number): string {
  return Array.from({ length: n }, () => String(randomInt(10))).join('');
}
