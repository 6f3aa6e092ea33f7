/** Text for SEPA transfers (docs/rails.md "ISO 20022 schemas", Text), transliterated; our records keep the original. */
import { transliterate } from '../transliterate';

const SEPA_CHAR = /[A-Za-z0-9/\-?:().,'+ ]/;
/** Single-spaced, trimmed SEPA text: nothing to convert. */
const SEPA_TEXT = /^[A-Za-z0-9/\-?:().,'+]+(?: [A-Za-z0-9/\-?:().,'+]+)*$/;

/** Typographic punctuation the transliteration keeps, mapped to its SEPA counterpart. */
const PUNCTUATION: Array<[string, string]> = [
  ['\u2018', "'"], ['\u2019', "'"], ['\u201A', "'"], ['\u2032', "'"], ['`', "'"],
  ['\u2010', '-'], ['\u2011', '-'], ['\u2012', '-'], ['\u2013', '-'], ['\u2014', '-'], ['\u2212', '-'],
];

export type SepaTextResult = { ok: true; value: string } | { ok: false; reason: string };

/** `ok: false` (naming each bad character) when it cannot be carried, is empty, or exceeds `maxLength`. Never throws. */
export function toSepaText(text: string, maxLength: number): SepaTextResult {
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

/** 1 to 35 SEPA characters, no space, no leading/trailing `/`, no `//`. */
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
