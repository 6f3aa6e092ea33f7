/** Live rate metrics (docs/operations.md "Metrics"); label values are fixed sets. */
import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from '../metrics/registry';
import { type RateObservation, type RateRoutes, resolveRate } from '../../domain/rate-routes';

export const RATE_METRIC_LABELS = {
  fx_rate_age_seconds: ['currency', 'source'],
  fx_rate_available: ['currency'],
  fx_rate_refusals_total: ['source', 'reason'],
} as const;

export type RefusalReason = 'unreachable' | 'unparseable' | 'source_error' | 'moved_beyond_bound';

let watched: { routes: RateRoutes; book: () => ReadonlyMap<string, RateObservation>; now: () => Date } | undefined;

export function watchRates(w: NonNullable<typeof watched>): void {
  watched = w;
}

function legOf(book: ReadonlyMap<string, RateObservation>, source: string, currency: string): RateObservation | undefined {
  const get = (b: string, q: string) => book.get(`${source}:${b}/${q}`);
  return get('USDC', currency) ?? get('USD', currency) ?? (currency === 'EUR' ? get('EUR', 'USD') : get('EUR', currency));
}

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

/** 0 when the currency's live channels are paused for want of a rate. */
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

export const rateRefusals = new Counter({
  name: 'fx_rate_refusals_total',
  help: 'Rate source answers refused and never used, by source and reason (unreachable, unparseable, source_error, moved_beyond_bound).',
  labelNames: RATE_METRIC_LABELS.fx_rate_refusals_total,
  registers: [metricsRegistry],
});
