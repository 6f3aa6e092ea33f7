/**
 * Exchange-rate arithmetic of live pricing (docs/rates.md "Precision and rounding"). Pure and exact:
 * rates are decimal strings, computed as BigInt fractions, never floating point.
 *
 * Rules (the "stated rounding rule" the property tests in test/unit/rates-properties.test.ts prove):
 * 1. A rate is "1 unit of base buys <rate> units of quote", a decimal string with at most
 *    {@link RATE_SCALE} decimals.
 * 2. A cross rate is the exact product / quotient of its legs (triangulation), then truncated once
 *    (toward zero) to {@link RATE_SCALE} decimals. Truncation never raises a rate, so a USDC -> fiat
 *    rate is never above what the sources say.
 * 3. A spread of `bps` basis points lowers the exact reference rate by bps / 10 000, then the result
 *    is truncated once: applied = trunc(exact * (10 000 - bps) / 10 000).
 * 4. A conversion at a rate is exact, rounded to the destination's minor units by the pricing rules
 *    of src/domain/pricing.ts (floor for an amount paid out, ceil for an amount charged).
 */
import { type Decimal, parseDecimal } from './money';

/** Decimals kept in every live rate (10: at most 1e-10 below the exact cross rate). */
export const RATE_SCALE = 10;
/** 10^RATE_SCALE. */
const RATE_DENOMINATOR = 10n ** BigInt(RATE_SCALE);
/** Basis points in one whole (1 bp = 0.01 %). */
export const BPS = 10_000n;
/** The largest spread accepted, in basis points (50 %): a typo guard for configuration. */
export const MAX_SPREAD_BPS = 5_000;

/** An exact non-negative rational `n / d` (d > 0). */
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

/** One leg of a cross rate: a decimal rate, used as is or inverted (1 / rate). */
export interface RateLeg {
  rate: string;
  invert?: boolean;
}

/**
 * The exact cross rate of `legs` multiplied in order (an inverted leg divides). Example: USDC -> EUR
 * from USDC/USD 0.9998 and the ECB's EUR/USD 1.0865 is legs [{rate:'0.9998'}, {rate:'1.0865', invert:true}].
 * Throws Error for no legs or a non-positive leg.
 */
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

/**
 * `f` truncated (toward zero) to {@link RATE_SCALE} decimals, as a decimal string without trailing
 * zeros ("0.9201234567", "17.05"). Throws Error when the result would be zero (a rate too small
 * to state at this precision).
 */
export function formatRate(f: Fraction): string {
  const scaled = (f.n * RATE_DENOMINATOR) / f.d;
  if (scaled <= 0n) throw new Error('rate below the stated precision');
  const s = scaled.toString().padStart(RATE_SCALE + 1, '0');
  const int = s.slice(0, s.length - RATE_SCALE);
  const frac = s.slice(s.length - RATE_SCALE).replace(/0+$/, '');
  return frac ? `${int}.${frac}` : int;
}

/**
 * The USDC cost of a spread of `bps` basis points on `sourceMinor` micro-USDC, rounded half up to
 * the micro-USDC (what `fees.fx_spread` shows on a live quote; the spread itself is in the rate).
 */
export function spreadCost(sourceMinor: bigint, bps: number): bigint {
  if (!Number.isInteger(bps) || bps < 0 || bps > MAX_SPREAD_BPS) throw new Error(`spread must be 0 to ${MAX_SPREAD_BPS} bps, got ${bps}`);
  const n = sourceMinor * BigInt(bps);
  const q = n / BPS;
  return (n % BPS) * 2n >= BPS ? q + 1n : q;
}

/**
 * Relative move from `previous` to `next`, in basis points, rounded up (|next - previous| /
 * previous * 10 000). Used to refuse a source answer that jumped beyond the configured bound.
 */
export function moveBps(previous: string, next: string): bigint {
  const a = rateFraction(previous);
  const b = rateFraction(next);
  // |b - a| / a = |b.n*a.d - a.n*b.d| / (b.d * a.n)
  const diff = b.n * a.d - a.n * b.d;
  const num = (diff < 0n ? -diff : diff) * BPS;
  const den = b.d * a.n;
  return (num + den - 1n) / den;
}

/** Whether `a` <= `b` for two rate strings (exact). */
export function rateAtMost(a: string, b: string): boolean {
  const x = rateFraction(a);
  const y = rateFraction(b);
  return x.n * y.d <= y.n * x.d;
}
