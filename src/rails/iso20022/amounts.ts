/** Amounts in ISO 20022 files: decimal text <-> integer minor units as strings, by `bigint`, never floating point. */

const MINOR = /^(0|[1-9][0-9]*)$/;

/** `"12345"` -> `"123.45"`; throws an `Error` when `minor` is not non-negative decimal digits. */
export function minorToDecimal(minor: string): string {
  if (!MINOR.test(minor)) throw new Error(`amount ${JSON.stringify(minor)} is not integer minor units`);
  const padded = minor.padStart(3, '0');
  return `${padded.slice(0, -2)}.${padded.slice(-2)}`;
}

/** `"123.45"` -> `"12345"` with at most `fractionDigits` decimals; `null` for anything else (sign, exponent). */
export function decimalToMinor(text: string, fractionDigits = 2): string | null {
  const m = /^([0-9]+)(?:\.([0-9]*))?$/.exec(text.trim());
  if (!m) return null;
  const fraction = m[2] ?? '';
  if (fraction.length > fractionDigits) return null;
  return BigInt(m[1] + fraction.padEnd(fractionDigits, '0')).toString();
}

/** Throws like {@link minorToDecimal}. */
export function sumMinor(amounts: readonly string[]): string {
  let total = 0n;
  for (const a of amounts) {
    if (!MINOR.test(a)) throw new Error(`amount ${JSON.stringify(a)} is not integer minor units`);
    total += BigInt(a);
  }
  return total.toString();
}
