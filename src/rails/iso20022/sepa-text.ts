/**
 * Text for SEPA credit transfers: the EPC's basic Latin character set (docs/rails.md "ISO 20022
 * schemas", Text): `a-z A-Z 0-9`, space and `/ - ? : ( ) . , ' +`. Names and remittance text are converted
 * with a maintained transliteration library (`@sindresorhus/transliterate`), so `José Núñez` leaves
 * as `Jose Nunez`; our own records keep the original.
 */
import transliterate from '@sindresorhus/transliterate';

/** One character of the EPC SEPA basic character set. */
const SEPA_CHAR = /[A-Za-z0-9/\-?:().,'+ ]/;
/** Text that needs no conversion: SEPA characters, words separated by single spaces, no space at either end. */
const SEPA_TEXT = /^[A-Za-z0-9/\-?:().,'+]+(?: [A-Za-z0-9/\-?:().,'+]+)*$/;

/** Typographic punctuation the transliteration keeps, mapped to its SEPA counterpart. */
const PUNCTUATION: Array<[string, string]> = [
  ['\u2018', "'"], ['\u2019', "'"], ['\u201A', "'"], ['\u2032', "'"], ['`', "'"],
  ['\u2010', '-'], ['\u2011', '-'], ['\u2012', '-'], ['\u2013', '-'], ['\u2014', '-'], ['\u2212', '-'],
];

/** The result of {@link toSepaText}: the converted text, or why it cannot be carried. */
export type SepaTextResult = { ok: true; value: string } | { ok: false; reason: string };

/**
 * Converts `text` to the SEPA character set: transliterates (`ü` -> `ue`, `ñ` -> `n`, Cyrillic to
 * Latin), maps typographic quotes and dashes, collapses every run of whitespace to one space and
 * trims. Answers `ok: false` when a character still cannot be carried after that (the reason names
 * each one, e.g. `"&", "@"`), when nothing is left, or when the result is longer than `maxLength`
 * characters. Pure; never throws.
 */
export function toSepaText(text: string, maxLength: number): SepaTextResult {
  // Already SEPA text, single-spaced and trimmed (most names and references): nothing to convert.
  if (SEPA_TEXT.test(text)) {
    return text.length <= maxLength ? { ok: true, value: text } : { ok: false, reason: `is ${text.length} characters in the SEPA character set, more than ${maxLength}` };
  }
  const converted = transliterate(text.normalize('NFC'), { customReplacements: PUNCTUATION })
    .replace(/\s+/gu, ' ')
    .trim();
  const bad = [...new Set([...converted].filter((ch) => !SEPA_CHAR.test(ch)))];
  if (bad.length > 0) {
    const names = bad.map((ch) => JSON.stringify(ch)).join(', ');
    return { ok: false, reason: `cannot be carried in the SEPA character set: ${names}` };
  }
  if (converted.length === 0) return { ok: false, reason: 'is empty' };
  if (converted.length > maxLength) {
    return { ok: false, reason: `is ${converted.length} characters in the SEPA character set, more than ${maxLength}` };
  }
  return { ok: true, value: converted };
}

/**
 * Whether `id` is a SEPA identifier (message, payment information or end-to-end id): 1 to 35
 * characters of the SEPA set, no space, not starting or ending with `/` and without `//` (docs/rails.md
 * "ISO 20022 schemas", Text). Pure.
 */
export function isSepaIdentifier(id: string, maxLength = 35): boolean {
  return (
    id.length >= 1 &&
    id.length <= maxLength &&
    /^[A-Za-z0-9/\-?:().,'+]+$/.test(id) &&
    !id.startsWith('/') &&
    !id.endsWith('/') &&
    !id.includes('//')
  );
}
