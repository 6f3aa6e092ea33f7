/**
 * Live rate metrics (docs/operations.md "Metrics", alerts FxRateStale, FxRateUnavailable,
 * FxRateRefused). Label values are fixed sets: currencies of RATE_ROUTES, source ids, refusal reasons.
 */
import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from '../metrics/registry';
import { type RateObservation, type RateRoutes, resolveRate } from '../../domain/rate-routes';

/** Label names (docs/operations.md lists them). */
export const RATE_METRIC_LABELS = {
  fx_rate_age_seconds: ['currency', 'source'],
  fx_rate_available: ['currency'],
  fx_rate_refusals_total: ['source', 'reason'],
} as const;

/** Why a source answer was not used: the RateSourceError kinds, and `moved_beyond_bound`. */
export type RefusalReason = 'unreachable' | 'unparseable' | 'source_error' | 'moved_beyond_bound';

let watched: { routes: RateRoutes; book: () => ReadonlyMap<string, RateObservation>; now: () => Date } | undefined;

/** Points the age and availability gauges at a process's rate book (the refresher calls it). */
export function watchRates(w: NonNullable<typeof watched>): void {
  watched = w;
}

/** The observation `source` states `currency` with (USDC/C, USD/C, EUR/C or, for EUR, EUR/USD). */
function legOf(book: ReadonlyMap<string, RateObservation>, source: string, currency: string): RateObservation | undefined {
  const get = (b: string, q: string) => book.get(`${source}:${b}/${q}`);
  return get('USDC', currency) ?? get('USD', currency) ?? (currency === 'EUR' ? get('EUR', 'USD') : get('EUR', currency));
}

/** Age in seconds of each route source's observation for each currency (absent: no observation yet). */
export const rateAge = new Gauge({
  name: 'fx_rate_age_seconds',
  help: 'Age of the latest accepted rate of each route source for each currency, in seconds (now - as_of).',
  labelNames: RATE_METRIC_LABELS.fx_rate_age_seconds,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    if (!watched) return;
    const book = watched.book();
    const now = watched.now().getTime();
    for (const [currency, sources] of Object.entries(watched.routes)) {
      for (const { source } of sources) {
        const o = legOf(book, source, currency);
        if (o) this.set({ currency, source }, Math.max(0, (now - o.asOf.getTime()) / 1000));
      }
    }
  },
});

/** 1 when the currency has a usable live rate now, 0 when its live channels are paused for want of one. */
export const rateAvailable = new Gauge({
  name: 'fx_rate_available',
  help: 'Whether a usable live rate exists for the currency now (1) or its live channels are paused (0).',
  labelNames: RATE_METRIC_LABELS.fx_rate_available,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    if (!watched) return;
    const book = watched.book();
    const now = watched.now();
    for (const currency of Object.keys(watched.routes)) {
      this.set({ currency }, 'missing' in resolveRate(currency, watched.routes, book, now) ? 0 : 1);
    }
  },
});

/** Source answers refused (never used), by source and reason. */
export const rateRefusals = new Counter({
  name: 'fx_rate_refusals_total',
  help: 'Rate source answers refused and never used, by source and reason (unreachable, unparseable, source_error, moved_beyond_bound).',
  labelNames: RATE_METRIC_LABELS.fx_rate_refusals_total,
  registers: [metricsRegistry],
});
