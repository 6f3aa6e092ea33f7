import { randomBytes, randomFillSync, randomInt } from 'node:crypto';

/**
 * Resource ids `<prefix>_<26 chars>` (ms timestamp + random, Crockford base32): they sort by creation
 * time, also within one millisecond of one process (the random part of the last id, plus one, as
 * ULID's monotonic mode). Not for workflow code (node:crypto).
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix =
  | 'biz' | 'key' | 'qt' | 'rcp' | 'po' | 'att' | 'evt' | 'we' | 'whd' | 'dsb' | 'dsi' | 'rev' | 'req' | 'rct' | 'va' | 'dep' | 'plink' | 'preq'
  | 'ntf' | 'msg' | 'cbt' | 'ctu' | 'tca' | 'rf' | 'stm' | 'tbr' | 'cda' | 'csw' | 'nmsg'
  | 'aud' | 'cref'
  | 'scr' | 'slv' | 'scc'
  | 'cpay';

export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  let ts = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    ts = ALPHABET[t % 32] + ts;
    t = Math.floor(t / 32);
  }
  const rand = now === last.ms ? increment(last.rand) : undefined;
  last.ms = now;
  last.rand = rand ?? randomPart();
  return `${prefix}_${ts}${last.rand}`;
}

const last = { ms: -1, rand: '' };

const pool = { bytes: Buffer.alloc(4096), at: 4096 }; // drawn 4 KiB at a time, as randomUUID does

function randomPart(): string {
  if (pool.at + 16 > pool.bytes.length) {
    randomFillSync(pool.bytes);
    pool.at = 0;
  }
  let rand = '';
  for (let i = pool.at; i < pool.at + 16; i++) rand += ALPHABET[pool.bytes[i]! % 32];
  pool.at += 16;
  return rand;
}

/** `rand` plus one in base 32; undefined when it is all `z` (a fresh random part follows). */
function increment(rand: string): string | undefined {
  const chars = rand.split('');
  for (let i = chars.length - 1; i >= 0; i--) {
    const d = ALPHABET.indexOf(chars[i]!);
    if (d < 31) {
      chars[i] = ALPHABET[d + 1]!;
      return chars.join('');
    }
    chars[i] = '0';
  }
  return undefined;
}

/** A URL-safe random secret of `bytes` bytes. */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

export function randomDigits(n: number): string {
  return Array.from({ length: n }, () => String(randomInt(10))).join('');
}
