/**
 * The in-process live rate cache (docs/rates.md "Cache"; the model is Hyperswitch's rate cache):
 * every API and worker process keeps the accepted observations in memory and answers rate lookups
 * from it, synchronously, so pricing adds no round trip to a request. A read older than
 * RATE_CACHE_TTL starts one re-read of `fx_rate_observations` in the background (one at a time per
 * process: a lock against stampedes). Whether a rate may be used is decided at lookup time from its
 * as-of and its source's maximum age, so a cache that is a second old never serves a stale rate.
 */
import { parseDuration } from '../../domain/durations';
import { type MissingRate, parseIntMap, parseRateRoutes, type RateObservation, type RateRoutes, rateBook, resolveRate, type ResolvedRate } from '../../domain/rate-routes';
import type { Core } from '../context';
import { readObservations } from './store';

interface Entry {
  book: ReadonlyMap<string, RateObservation>;
  readAt: number;
  reading: Promise<void> | null;
}

const entries = new WeakMap<object, Entry>();

/** The parsed rate settings of a configuration (memoised per config object). */
export interface RateSettings {
  routes: RateRoutes;
  spreads: Readonly<Record<string, number>>;
  businessSpreads: Readonly<Record<string, number>>;
  depositSpreads: Readonly<Record<string, number>>;
  cacheTtlMs: number;
}
const settingsCache = new WeakMap<object, RateSettings>();

/** {@link RateSettings} of `config` (RATE_* variables; validated at start-up by src/config.ts). */
export function rateSettings(config: Core['config']): RateSettings {
  let s = settingsCache.get(config);
  if (!s) {
    s = {
      routes: parseRateRoutes(config.RATE_ROUTES),
      spreads: parseIntMap(config.RATE_SPREAD_BPS, 5000, 'RATE_SPREAD_BPS'),
      businessSpreads: parseIntMap(config.RATE_BUSINESS_SPREAD_BPS, 5000, 'RATE_BUSINESS_SPREAD_BPS'),
      depositSpreads: parseIntMap(config.RATE_DEPOSIT_SPREAD_BPS, 5000, 'RATE_DEPOSIT_SPREAD_BPS'),
      cacheTtlMs: parseDuration(config.RATE_CACHE_TTL),
    };
    settingsCache.set(config, s);
  }
  return s;
}

/** Re-reads the table into this process's cache now (the background refresh; tests and start-up await it). */
export async function refreshRateCache(core: Pick<Core, 'db'>): Promise<void> {
  let e = entries.get(core.db);
  if (!e) entries.set(core.db, (e = { book: new Map(), readAt: 0, reading: null }));
  const entry = e;
  entry.reading ??= readObservations(core.db)
    .then((obs) => {
      entry.book = rateBook(obs);
      entry.readAt = Date.now();
    })
    .finally(() => {
      entry.reading = null;
    });
  return entry.reading;
}

/** The cached observations of this process (starting a background re-read when older than the TTL). */
export function cachedBook(core: Pick<Core, 'db' | 'config'>): ReadonlyMap<string, RateObservation> {
  const entry = entries.get(core.db);
  if (!entry || Date.now() - entry.readAt > rateSettings(core.config).cacheTtlMs) void refreshRateCache(core).catch(() => undefined);
  return entry?.book ?? new Map();
}

/**
 * The live USDC -> `currency` rate usable at `core.now()`, or why there is none (docs/rates.md
 * "Sources, fallbacks and age"). Synchronous: answers from memory.
 */
export function liveRate(core: Pick<Core, 'db' | 'config' | 'now'>, currency: string): ResolvedRate | MissingRate {
  return resolveRate(currency, rateSettings(core.config).routes, cachedBook(core), core.now());
}

/** The spread in basis points of a live payout on `channel` for `businessId` (business setting first, then corridor, then `default`). */
export function spreadBps(config: Core['config'], businessId: string, channel: string): number {
  const s = rateSettings(config);
  return s.businessSpreads[`${businessId}:${channel}`] ?? s.spreads[channel] ?? s.spreads.default ?? 0;
}

/** The spread in basis points of a live deposit in `currency` (0 when not configured). */
export function depositSpreadBps(config: Core['config'], currency: string): number {
  return rateSettings(config).depositSpreads[currency] ?? 0;
}
