/**
 * Which live rate a currency uses now (docs/rates.md "Sources, fallbacks and age"). Pure. The first
 * route source that states USDC -> C with every leg within its maximum age wins (directly, or
 * through USD times the USD route's USDC/USD). Bid prices selling USDC (payouts), ask buying (deposits).
 */
import { parseDuration } from './durations';
import { crossRate, type Fraction, formatRate, type RateLeg } from './rates';

/** One accepted observation of a source: 1 `base` buys `bid`..`ask` units of `quote` (decimal strings), as of `asOf`. */
export interface RateObservation {
  source: string;
  base: string;
  quote: string;
  bid: string;
  ask: string;
  asOf: Date;
}

export interface RouteSource {
  source: string;
  maxAgeMs: number;
}

export type RateRoutes = Readonly<Record<string, readonly RouteSource[]>>;

export interface ResolvedRate {
  currency: string;
  /** Exact bid-side rate (selling USDC), before truncation. */
  bidExact: Fraction;
  askExact: Fraction;
  bid: string;
  ask: string;
  /** The sources of the legs joined by '+', e.g. `ecb+kraken` (ECB cross, USDC/USD from Kraken). */
  source: string;
  asOf: Date;
  /** When the first leg passes its maximum age: the rate may not be used from then on. */
  usableUntil: Date;
}

/** No usable rate: every route source is stale or has no observation; `reasons` says why, per source. */
export interface MissingRate {
  currency: string;
  missing: true;
  reasons: string[];
}

/** Parses `CUR=source@maxAge|source@maxAge,...` (ISO 8601 durations). Throws Error naming the bad entry. */
export function parseRateRoutes(value: string): RateRoutes {
  const routes: Record<string, RouteSource[]> = {};
  for (const entry of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Z]{3,4})=(.+)$/.exec(entry);
    if (!m) throw new Error(`rate route "${entry}": expected CUR=source@maxAge|source@maxAge`);
    const sources = m[2].split('|').map((s) => {
      const sm = /^([a-z][a-z0-9_-]*)@(\S+)$/.exec(s.trim());
      if (!sm) throw new Error(`rate route "${entry}": "${s}" is not source@maxAge`);
      let maxAgeMs: number;
      try {
        maxAgeMs = parseDuration(sm[2]);
      } catch {
        throw new Error(`rate route "${entry}": "${sm[2]}" is not an ISO 8601 duration`);
      }
      if (maxAgeMs <= 0) throw new Error(`rate route "${entry}": maximum age must be positive`);
      return { source: sm[1], maxAgeMs };
    });
    routes[m[1]] = sources;
  }
  return routes;
}

/** Parses `key=integer` pairs (`sepa_eur=40,ach_usd=10`). Throws Error for a bad pair or a value outside 0..max. */
export function parseIntMap(value: string, max: number, what: string): Readonly<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const entry of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9_:-]+)=(\d+)$/.exec(entry);
    if (!m) throw new Error(`${what} "${entry}": expected key=integer`);
    const n = Number(m[2]);
    if (n > max) throw new Error(`${what} "${entry}": at most ${max}`);
    out[m[1]] = n;
  }
  return out;
}

type Book = ReadonlyMap<string, RateObservation>;
const key = (source: string, base: string, quote: string) => `${source}:${base}/${quote}`;

/** Indexes observations by source and pair (the latest as-of wins). */
export function rateBook(observations: readonly RateObservation[]): Book {
  const m = new Map<string, RateObservation>();
  for (const o of observations) {
    const k = key(o.source, o.base, o.quote);
    const prev = m.get(k);
    if (!prev || prev.asOf.getTime() <= o.asOf.getTime()) m.set(k, o);
  }
  return m;
}

interface Leg {
  leg: RateLeg;
  askLeg: RateLeg;
  obs: RateObservation;
  maxAgeMs: number;
}

/** The legs `source` states USD -> `currency` with (mid legs), or undefined. */
function usdLegs(book: Book, source: string, currency: string): Array<{ obs: RateObservation; invert: boolean }> | undefined {
  const direct = book.get(key(source, 'USD', currency));
  if (direct) return [{ obs: direct, invert: false }];
  const eurUsd = book.get(key(source, 'EUR', 'USD'));
  if (!eurUsd) return undefined;
  if (currency === 'EUR') return [{ obs: eurUsd, invert: true }];
  const eurC = book.get(key(source, 'EUR', currency));
  return eurC ? [{ obs: eurUsd, invert: true }, { obs: eurC, invert: false }] : undefined;
}

const midOf = (o: RateObservation) => (o.bid === o.ask ? o.bid : undefined);

/** The USDC -> `currency` rate at `now`, or why there is none (USDC itself is 1). */
export function resolveRate(currency: string, routes: RateRoutes, observations: Book | readonly RateObservation[], now: Date, depth = 0): ResolvedRate | MissingRate {
  const book: Book = observations instanceof Map ? observations : rateBook(observations as readonly RateObservation[]);
  if (currency === 'USDC') {
    const one = { n: 1n, d: 1n };
    return { currency, bidExact: one, askExact: one, bid: '1', ask: '1', source: 'par', asOf: now, usableUntil: new Date(8.64e15) };
  }
  const route = routes[currency];
  if (!route || route.length === 0) return { currency, missing: true, reasons: [`no rate source is configured for ${currency}`] };
  const reasons: string[] = [];
  const fresh = (o: RateObservation, maxAgeMs: number) => now.getTime() - o.asOf.getTime() <= maxAgeMs;
  for (const { source, maxAgeMs } of route) {
    let legs: Leg[] | undefined;
    const direct = book.get(key(source, 'USDC', currency));
    if (direct) {
      legs = [{ leg: { rate: direct.bid }, askLeg: { rate: direct.ask }, obs: direct, maxAgeMs }];
    } else if (currency !== 'USD' && depth === 0) {
      const viaUsd = usdLegs(book, source, currency);
      if (viaUsd) {
        const usd = resolveRate('USD', routes, book, now, depth + 1);
        if ('missing' in usd) {
          reasons.push(`${source}: needs USDC/USD, which has no usable rate (${usd.reasons.join('; ')})`);
          continue;
        }
        const stale = viaUsd.find((l) => !fresh(l.obs, maxAgeMs));
        if (stale) {
          reasons.push(`${source}: ${stale.obs.base}/${stale.obs.quote} as of ${stale.obs.asOf.toISOString()} is older than its maximum age`);
          continue;
        }
        const legsMid = viaUsd.map((l) => ({ rate: midRate(l.obs), invert: l.invert }));
        const bidExact = mul(usd.bidExact, crossRate(legsMid));
        const askExact = mul(usd.askExact, crossRate(legsMid));
        const oldest = viaUsd.reduce((a, l) => (l.obs.asOf < a ? l.obs.asOf : a), usd.asOf);
        const until = viaUsd.reduce((a, l) => {
          const t = new Date(l.obs.asOf.getTime() + maxAgeMs);
          return t < a ? t : a;
        }, usd.usableUntil);
        return { currency, bidExact, askExact, bid: formatRate(bidExact), ask: formatRate(askExact), source: `${source}+${usd.source}`, asOf: oldest, usableUntil: until };
      }
    }
    if (!legs) {
      reasons.push(`${source}: has no observation for USDC/${currency}`);
      continue;
    }
    const stale = legs.find((l) => !fresh(l.obs, l.maxAgeMs));
    if (stale) {
      reasons.push(`${source}: ${stale.obs.base}/${stale.obs.quote} as of ${stale.obs.asOf.toISOString()} is older than its maximum age`);
      continue;
    }
    const bidExact = crossRate(legs.map((l) => l.leg));
    const askExact = crossRate(legs.map((l) => l.askLeg));
    const o = legs[0].obs;
    return { currency, bidExact, askExact, bid: formatRate(bidExact), ask: formatRate(askExact), source, asOf: o.asOf, usableUntil: new Date(o.asOf.getTime() + maxAgeMs) };
  }
  return { currency, missing: true, reasons };
}

/** The mid of an observation: bid when bid = ask, else the exact midpoint truncated to the stated precision. */
function midRate(o: RateObservation): string {
  const m = midOf(o);
  if (m !== undefined) return m;
  const b = crossRate([{ rate: o.bid }]);
  const a = crossRate([{ rate: o.ask }]);
  return formatRate({ n: b.n * a.d + a.n * b.d, d: 2n * a.d * b.d });
}

function mul(a: Fraction, b: Fraction): Fraction {
  return { n: a.n * b.n, d: a.d * b.d };
}
