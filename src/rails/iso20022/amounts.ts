/**
 * Amounts in ISO 20022 files (docs/rails.md "ISO 20022 schemas"): the files carry decimal text
 * (`123.45`), the service integer minor units as decimal strings (`"12345"`). Converted by string
 * operations and `bigint` only, never through floating point.
 */

const MINOR = /^(0|[1-9][0-9]*)$/;

/**
 * Formats integer minor units (`"12345"`) as the file's decimal text with two decimals (`"123.45"`).
 * Throws an `Error` when `minor` is not a non-negative integer in decimal digits.
 */
export function minorToDecimal(minor: string): string {
  if (!MINOR.test(minor)) throw new Error(`amount ${JSON.stringify(minor)} is not integer minor units`);
  const padded = minor.padStart(3, '0');
  return `${padded.slice(0, -2)}.${padded.slice(-2)}`;
}

/**
 * Parses the file's decimal text (`"123.45"`, `"7"`, `"0.5"`) to integer minor units (`"12345"`,
 * `"700"`, `"50"`) with at most `fractionDigits` decimals (2 for EUR). Returns `null` for anything
 * else (a sign, an exponent, a third decimal, an empty string).
 */
export function decimalToMinor(text: string, fractionDigits = 2): string | null {
  const m = /^([0-9]+)(?:\.([0-9]*))?$/.exec(text.trim());
  if (!m) return null;
  const fraction = m[2] ?? '';
  if (fraction.length > fractionDigits) return null;
  return BigInt(m[1] + fraction.padEnd(fractionDigits, '0')).toString();
}

/** Sums integer minor units given as decimal strings (`bigint`, no limit). Throws like {@link minorToDecimal}. */
export function sumMinor(amounts: readonly string[]): string {
  let total = 0n;
  for (const a of amounts) {
    if (!MINOR.test(a)) throw new Error(`amount ${JSON.stringify(a)} is not integer minor units`);
    total += BigInt(a);
  }
  return total.toString();
}
