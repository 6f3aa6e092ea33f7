import { validationError } from './errors';

/** Exact money arithmetic (docs/architecture.md "Money rules" 1): decimal strings on the wire, BigInt minor units inside. */

export const USDC = 'USDC';

const ZERO_DECIMAL = new Set(['JPY', 'KRW', 'CLP', 'VND', 'ISK', 'UGX', 'XOF', 'XAF', 'PYG', 'RWF']);
/** ISO 4217 currencies with 3 minor digits. */
const THREE_DECIMAL = new Set(['BHD', 'KWD', 'OMR', 'JOD', 'TND', 'IQD', 'LYD']);

/** Number of decimals in one unit of `currency`: 6 for USDC, 0 for zero-decimal fiat, 3 for BHD/KWD/..., else 2. */
export function exponent(currency: string): number {
  if (currency === USDC) return 6;
  if (THREE_DECIMAL.has(currency)) return 3;
  return ZERO_DECIMAL.has(currency) ? 0 : 2;
}

export class AmountFormatError extends Error {
  constructor(
    message: string,
    readonly reason: 'format' | 'precision' | 'not_positive' | 'too_large',
  ) {
    super(message);
    this.name = 'AmountFormatError';
  }
}

const AMOUNT_RE = /^(\d+)(?:\.(\d+))?$/;

/** At most 12 integer digits: in micro-USDC an amount fits a PostgreSQL bigint with room for a balance of several. */
export const MAX_AMOUNT_INTEGER_DIGITS = 12;

export function amountInputPattern(decimals: number): string {
  return `^[0-9]{1,${MAX_AMOUNT_INTEGER_DIGITS}}(\\.[0-9]{1,${decimals}})?$`;
}
export const AMOUNT_INPUT_PATTERN = amountInputPattern(6);

/** Parses a spec Amount into minor units; {@link AmountFormatError} when malformed, too long, too precise, or zero (unless `allowZero`). */
export function parseAmount(value: string, currency: string, opts: { allowZero?: boolean } = {}): bigint {
  const m = AMOUNT_RE.exec(value);
  if (!m) throw new AmountFormatError(`"${value}" is not a decimal amount like "10.50"`, 'format');
  if (m[1].length > MAX_AMOUNT_INTEGER_DIGITS) {
    throw new AmountFormatError(`amounts have at most ${MAX_AMOUNT_INTEGER_DIGITS} digits before the point (below one trillion)`, 'too_large');
  }
  const exp = exponent(currency);
  const frac = m[2] ?? '';
  if (frac.length > exp) {
    throw new AmountFormatError(`${currency} amounts take at most ${exp} decimals`, 'precision');
  }
  const minor = BigInt(m[1]) * 10n ** BigInt(exp) + BigInt(frac.padEnd(exp, '0') || '0');
  if (minor === 0n && !opts.allowZero) throw new AmountFormatError('amount must be greater than zero', 'not_positive');
  return minor;
}

/** Minor units as a decimal string: fiat with exactly its decimals, USDC with 2 to 6 (trailing zeros trimmed). */
export function formatAmount(minor: bigint, currency: string): string {
  const exp = exponent(currency);
  const neg = minor < 0n;
  const abs = neg ? -minor : minor;
  if (exp === 0) return `${neg ? '-' : ''}${abs}`;
  const base = 10n ** BigInt(exp);
  let frac = (abs % base).toString().padStart(exp, '0');
  if (currency === USDC) frac = frac.replace(/0+$/, '').padEnd(2, '0');
  return `${neg ? '-' : ''}${abs / base}.${frac}`;
}

/** A decimal number held exactly as `digits / 10^scale` (rates, percentages). */
export interface Decimal {
  digits: bigint;
  scale: number;
}

const DECIMAL_RE = /^(\d+)(?:\.(\d+))?$/;

export function parseDecimal(value: string): Decimal {
  const m = DECIMAL_RE.exec(value);
  if (!m) throw new Error(`"${value}" is not a decimal number`);
  const frac = m[2] ?? '';
  return { digits: BigInt(m[1] + frac), scale: frac.length };
}

export function formatDecimal(d: Decimal): string {
  if (d.scale === 0) return d.digits.toString();
  const s = d.digits.toString().padStart(d.scale + 1, '0');
  const int = s.slice(0, s.length - d.scale);
  const frac = s.slice(s.length - d.scale).replace(/0+$/, '');
  return frac ? `${int}.${frac}` : int;
}

/** Rounding of a division: floor (never pay out more), ceil (never charge less), half_up. */
export type Rounding = 'floor' | 'ceil' | 'half_up';

export function divRound(n: bigint, d: bigint, rounding: Rounding): bigint {
  const q = n / d;
  const r = n % d;
  if (r === 0n) return q;
  if (rounding === 'floor') return q;
  if (rounding === 'ceil') return q + 1n;
  return r * 2n >= d ? q + 1n : q;
}

/** `minor` of `from` times `factor`, in minor units of `to` (FX at a rate, or a percentage). */
export function mulDecimal(minor: bigint, factor: Decimal, from: string, to: string, rounding: Rounding): bigint {
  const n = minor * factor.digits * 10n ** BigInt(exponent(to));
  const d = 10n ** BigInt(factor.scale + exponent(from));
  return divRound(n, d, rounding);
}

/** Inverse of {@link mulDecimal}: prices a payout from its destination amount (round up). */
export function divDecimal(minorTo: bigint, factor: Decimal, from: string, to: string, rounding: Rounding): bigint {
  const n = minorTo * 10n ** BigInt(factor.scale + exponent(from));
  const d = factor.digits * 10n ** BigInt(exponent(to));
  if (d === 0n) throw new Error('division by a zero rate');
  return divRound(n, d, rounding);
}

/** `percent` of `minor` (percent as a decimal string such as "0.5" for 0.5 %), rounded up. */
export function percentOf(minor: bigint, percent: string): bigint {
  const p = parseDecimal(percent);
  return divRound(minor * p.digits, 100n * 10n ** BigInt(p.scale), 'ceil');
}

/** The one place a wire Amount becomes money; 400 validation_error naming `param` when not a valid non-zero Amount. */
export function parseAmountParam(value: unknown, currency: string, param: string): bigint {
  if (typeof value !== 'string') throw validationError(param, `${param} must be a decimal string such as "100.00"`);
  try {
    return parseAmount(value, currency);
  } catch (e) {
    if (e instanceof AmountFormatError) throw validationError(param, `${param}: ${e.message}`);
    throw e;
  }
}

/** An amount in minor units of its currency (micro-USDC for USDC; docs/architecture.md "Money rules"). */
export interface Money {
  minor: bigint;
  currency: string;
}
