/** Text for NACHA files (docs/rails-ach.md "Text"), transliterated; our own records keep the original. Pure. */
import { transliterate } from '../transliterate';

export const NACHA_CHARACTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,-/'&()+*:;=?!#@%";

const NACHA_CHAR = new Set(NACHA_CHARACTERS);

/** Typographic punctuation the transliteration keeps, mapped to ASCII. */
const PUNCTUATION: Array<[string, string]> = [
  ['\u2018', "'"], ['\u2019', "'"], ['\u201A', "'"], ['\u2032', "'"], ['`', "'"],
  ['\u2010', '-'], ['\u2011', '-'], ['\u2012', '-'], ['\u2013', '-'], ['\u2014', '-'], ['\u2212', '-'],
];

export function isNachaText(text: string): boolean {
  for (const ch of text) if (!NACHA_CHAR.has(ch)) return false;
  return true;
}

/** Transliterates, upper-cases, blanks what is outside the set, collapses spaces, cuts to `width`. Never throws; may return `''`. */
export function toNachaText(text: string, width: number): string {
  if (!(width > 0)) return '';
  const upper = transliterate(text.normalize('NFC'), { customReplacements: PUNCTUATION }).toUpperCase();
  let out = '';
  for (const ch of upper) out += NACHA_CHAR.has(ch) ? ch : ' ';
  return out.replace(/ +/g, ' ').trim().slice(0, width).trim();
}
