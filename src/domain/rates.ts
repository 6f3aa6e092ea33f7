/**
 * Exchange-rate arithmetic, exact (BigInt fractions); rounding rules in docs/rates.md "Precision and
 * rounding". Cross rates and spreads are exact, then truncated once (never raised).
 */
import { type Decimal, parseDecimal } from './money';

/** Decimals kept in every live rate (10: at most 1e-10 below the exact cross rate). */
export const RATE_SCALE = 10;
const RATE_DENOMINATOR = 10n ** BigInt(RATE_SCALE);
export const BPS = 10_000n;
/** A typo guard for configuration (50 %). */
export const MAX_SPREAD_BPS = 5_000;

export interface Fraction {
  n: bigint;
  d: bigint;
}

/** The exact value of a decimal rate string. Throws Error for a string that is not a positive decimal. */
export function rateFraction(rate: string): Fraction {
  const dec: Decimal = parseDecimal(rate);
  if (dec.digits <= 0n) throw new Error(`rate must be positive, got "${rate}"`);
  return { n: dec.digits, d: 10n ** BigInt(dec.scale) };
}

export interface RateLeg {
  rate: string;
  invert?: boolean;
}

/** The exact cross rate of `legs` in order (an inverted leg divides). Throws Error for no legs or a non-positive leg. */
export function crossRate(legs: readonly RateLeg[]): Fraction {
  if (legs.length === 0) throw new Error('crossRate: no legs');
  let n = 1n;
  let d = 1n;
  for (const leg of legs) {
    const f = rateFraction(leg.rate);
    if (leg.invert) {
      n *= f.d;
      d *= f.n;
    } else {
      n *= f.n;
      d *= f.d;
    }
  }
  return { n, d };
}

/** `f` lowered by a spread of `bps` basis points (exact). Throws Error for bps outside 0..{@link MAX_SPREAD_BPS}. */
export function lessSpread(f: Fraction, bps: number): Fraction {
  if (!Number.isInteger(bps) || bps < 0 || bps > MAX_SPREAD_BPS) throw new Error(`spread must be 0 to ${MAX_SPREAD_BPS} bps, got ${bps}`);
  return { n: f.n * (BPS - BigInt(bps)), d: f.d * BPS };
}

/** `f` truncated to {@link RATE_SCALE} decimals, trailing zeros trimmed; throws Error when that is zero. */
export function formatRate(f: Fraction): string {
  const scaled = (f.n * RATE_DENOMINATOR) / f.d;
  if (scaled <= 0n) throw new Error('rate below the stated precision');
  const s = scaled.toString().padStart(RATE_SCALE + 1, '0');
  const int = s.slice(0, s.length - RATE_SCALE);
  const frac = s.slice(s.length - RATE_SCALE).replace(/0+$/, '');
  return frac ? `${int}.${frac}` : int;
}

/** The spread's cost on `sourceMinor` micro-USDC, rounded half up (`fees.fx_spread`; the spread itself is in the rate). */
export function spreadCost(sourceMinor: bigint, bps: number): bigint {
  if (!Number.isInteger(bps) || bps < 0 || bps > MAX_SPREAD_BPS) throw new Error(`spread must be 0 to ${MAX_SPREAD_BPS} bps, got ${bps}`);
  const n = sourceMinor * BigInt(bps);
  const q = n / BPS;
  return (n % BPS) * 2n >= BPS ? q + 1n : q;
}

/** Relative move in basis points, rounded up (refuses a source answer that jumped too far). */
export function moveBps(previous: string, next: string): bigint {
  const a = rateFraction(previous);
  const b = rateFraction(next);
  // |b - a| / a = |b.n*a.d - a.n*b.d| / (b.d * a.n)
  const diff = b.n * a.d - a.n * b.d;
  const num = (diff < 0n ? -diff : diff) * BPS;
  const den = b.d * a.n;
  return (num + den - 1n) / den;
}

export function rateAtMost(a: string, b: string): boolean {
  const x = rateFraction(a);
  const y = rateFraction(b);
  return x.n * y.d <= y.n * x.d;
}
