/**
 * The in-process live rate cache (docs/rates.md "Cache"): lookups are synchronous; a read older than
 * RATE_CACHE_TTL starts one background re-read. Usability is decided at lookup from as-of and max
 * age, so a cached rate is never served stale.
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

export interface RateSettings {
  routes: RateRoutes;
  spreads: Readonly<Record<string, number>>;
  businessSpreads: Readonly<Record<string, number>>;
  depositSpreads: Readonly<Record<string, number>>;
  cacheTtlMs: number;
}
const settingsCache = new WeakMap<object, RateSettings>();

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

export function cachedBook(core: Pick<Core, 'db' | 'config'>): ReadonlyMap<string, RateObservation> {
  const entry = entries.get(core.db);
  if (!entry || Date.now() - entry.readAt > rateSettings(core.config).cacheTtlMs) void refreshRateCache(core).catch(() => undefined);
  return entry?.book ?? new Map();
}

/** Awaits the re-read of a cache older than RATE_CACHE_TTL, before a live price or refusal (docs/rates.md "Cache"). */
export async function freshRateCache(core: Pick<Core, 'db' | 'config'>): Promise<void> {
  const entry = entries.get(core.db);
  if (!entry || Date.now() - entry.readAt > rateSettings(core.config).cacheTtlMs) await refreshRateCache(core);
}

/** The live USDC -> `currency` rate usable now, or why there is none (synchronous). */
export function liveRate(core: Pick<Core, 'db' | 'config' | 'now'>, currency: string): ResolvedRate | MissingRate {
  return resolveRate(currency, rateSettings(core.config).routes, cachedBook(core), core.now());
}

/** Spread in bps of a live payout: business setting, then corridor, then `default`. */
export function spreadBps(config: Core['config'], businessId: string, channel: string): number {
  const s = rateSettings(config);
  return s.businessSpreads[`${businessId}:${channel}`] ?? s.spreads[channel] ?? s.spreads.default ?? 0;
}

export function depositSpreadBps(config: Core['config'], currency: string): number {
  return rateSettings(config).depositSpreads[currency] ?? 0;
}
