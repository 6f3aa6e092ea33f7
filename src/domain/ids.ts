import { randomBytes, randomInt } from 'node:crypto';

/**
 * Resource ids `<prefix>_<26 chars>` (ms timestamp + random, Crockford base32): they sort by creation
 * time. Not for workflow code (node:crypto).
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix =
  | 'biz' | 'key' | 'qt' | 'rcp' | 'po' | 'att' | 'evt' | 'we' | 'whd' | 'dsb' | 'dsi' | 'rev' | 'req' | 'rct' | 'va' | 'dep' | 'plink' | 'preq'
  | 'ntf' | 'msg' | 'cbt' | 'ctu' | 'tca' | 'rf' | 'stm' | 'tbr' | 'cda' | 'csw' | 'nmsg'
  | 'aud';

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

/** A URL-safe random secret of `bytes` bytes. */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

export function randomDigits(n: number): string {
  return Array.from({ length: n }, () => String(randomInt(10))).join('');
}
