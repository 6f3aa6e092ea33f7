/**
 * Text for NACHA files (docs/rails-ach.md "Text"; Nacha Operating Rules, Appendix One
 * "ACH File Exchange Specifications", alphanumeric fields): we write upper-case `A-Z`, `0-9`, space
 * and `. , - / ' & ( ) + * : ; = ? ! # @ %`. Names and addenda text are transliterated with a
 * maintained library (`@sindresorhus/transliterate`, as src/rails/iso20022/sepa-text.ts does), so
 * `José Núñez` leaves as `JOSE NUNEZ`; our own records keep the original. Pure: no I/O.
 */
import transliterate from '@sindresorhus/transliterate';

/** Every character a NACHA alphanumeric field we write may hold. */
export const NACHA_CHARACTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,-/'&()+*:;=?!#@%";

const NACHA_CHAR = new Set(NACHA_CHARACTERS);

/** Typographic punctuation the transliteration keeps, mapped to its ASCII counterpart. */
const PUNCTUATION: Array<[string, string]> = [
  ['\u2018', "'"], ['\u2019', "'"], ['\u201A', "'"], ['\u2032', "'"], ['`', "'"],
  ['\u2010', '-'], ['\u2011', '-'], ['\u2012', '-'], ['\u2013', '-'], ['\u2014', '-'], ['\u2212', '-'],
];

/** Whether every character of `text` is in {@link NACHA_CHARACTERS}. Pure. */
export function isNachaText(text: string): boolean {
  for (const ch of text) if (!NACHA_CHAR.has(ch)) return false;
  return true;
}

/**
 * Converts `text` (a name, addenda text) to the NACHA set: transliterates (`ü` -> `ue`, `ñ` -> `n`,
 * Cyrillic to Latin), maps typographic quotes and dashes, upper-cases, turns every character still
 * outside the set into a space, collapses whitespace runs to one space, trims, then cuts to `width`
 * characters (and trims again). Never throws; may return `''` (nothing carriable, or `width` <= 0).
 */
export function toNachaText(text: string, width: number): string {
  if (!(width > 0)) return '';
  const upper = transliterate(text.normalize('NFC'), { customReplacements: PUNCTUATION }).toUpperCase();
  let out = '';
  for (const ch of upper) out += NACHA_CHAR.has(ch) ? ch : ' ';
  return out.replace(/ +/g, ' ').trim().slice(0, width).trim();
}
