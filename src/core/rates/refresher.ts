/**
 * The live rate refresher (docs/rates.md "Refresher"), in every worker process. It polls only the
 * sources of the currencies a live route uses ({@link liveRateCurrencies}), none for the sandbox
 * (which prices from its own table, docs/sandbox.md "Adapters"). Refused answers are
 * counted and logged, never stored; one fetch in flight per source and process; the upsert never
 * moves a pair back in time, so several workers may fetch the same source.
 */
import { CHANNELS } from '../../domain/channels';
import { parseDuration } from '../../domain/durations';
import { USDC } from '../../domain/money';
import type { RateObservation } from '../../domain/rate-routes';
import { moveBps } from '../../domain/rates';
import { RATE_SOURCES, RateSourceError, type RateSource, type RateSourceModule } from '../../rates/index';
import type { Core } from '../context';
import { liveRailConnection } from '../rails/rail-adapters';
import { cachedBook, rateSettings, refreshRateCache } from './cache';
import { rateRefusals, type RefusalReason, watchRates } from './metrics';
import { readObservations, storeObservations } from './store';

/** The currencies polled: `live` ({@link liveRateCurrencies}, the default), `routes` (all RATE_ROUTES names; the test harness) or a list. */
export type RatePolling = 'live' | 'routes' | readonly string[];

/**
 * The currencies a live route needs a rate for, sorted: those of the channels whose rail has a live
 * connection configured; never USDC, never for the sandbox (docs/rates.md "Refresher").
 */
export function liveRateCurrencies(core: Core): string[] {
  const currencies = new Set(CHANNELS.filter((c) => c.currency !== USDC && liveRailConnection(core, c.rail)).map((c) => c.currency));
  return [...currencies].sort();
}

/** The currencies `polling` selects, of those RATE_ROUTES routes. */
function polledCurrencies(core: Core, polling: RatePolling): string[] {
  const routed = Object.keys(rateSettings(core.config).routes);
  const wanted = polling === 'routes' ? routed : polling === 'live' ? liveRateCurrencies(core) : polling;
  return wanted.filter((c) => routed.includes(c));
}

/** The sources RATE_ROUTES names for `currencies` (default: all), from src/rates/index.ts (an unknown id is logged and skipped). */
export function routeSources(core: Core, modules: readonly RateSourceModule[] = RATE_SOURCES, currencies?: readonly string[]): RateSource[] {
  const routes = rateSettings(core.config).routes;
  const ids = new Set(Object.entries(routes).filter(([c]) => !currencies || currencies.includes(c)).flatMap(([, r]) => r.map((s) => s.source)));
  const timeoutMs = parseDuration(core.config.RATE_FETCH_TIMEOUT);
  const out: RateSource[] = [];
  for (const id of ids) {
    const module = modules.find((m) => m.id === id);
    if (!module) {
      core.log.error({ source: id }, 'RATE_ROUTES names a rate source that is not registered');
      continue;
    }
    out.push(module.connect(core.config, { timeoutMs, now: core.now }));
  }
  return out;
}

export interface RefreshOutcome {
  source: string;
  accepted: number;
  refused: Array<{ reason: RefusalReason; detail: string }>;
}

const inFlight = new WeakMap<object, Map<string, Promise<RefreshOutcome>>>();

// Sources that stay unreachable (offline in dev) are said so once, until they answer again (docs/rates.md "Refresher").
const unreachableSaid = new WeakMap<object, Set<string>>();

function refuse(core: Core, out: RefreshOutcome, reason: RefusalReason, detail: string): void {
  rateRefusals.inc({ source: out.source, reason });
  out.refused.push({ reason, detail });
  let said = unreachableSaid.get(core.db);
  if (!said) unreachableSaid.set(core.db, (said = new Set()));
  if (reason === 'unreachable') {
    if (said.has(out.source)) return core.log.debug({ source: out.source, reason, detail }, 'rate source answer refused');
    said.add(out.source);
    return core.log.warn({ source: out.source, reason, detail }, 'rate source unreachable; said once until it answers again (counted in the refusals metric)');
  }
  core.log.warn({ source: out.source, reason, detail }, 'rate source answer refused');
}

export function refreshSource(core: Core, source: RateSource): Promise<RefreshOutcome> {
  let flights = inFlight.get(core.db);
  if (!flights) inFlight.set(core.db, (flights = new Map()));
  const running = flights.get(source.id);
  if (running) return running;
  const f = flights;
  const p = (async (): Promise<RefreshOutcome> => {
    const out: RefreshOutcome = { source: source.id, accepted: 0, refused: [] };
    let quotes;
    try {
      quotes = await source.fetch();
    } catch (e) {
      if (e instanceof RateSourceError) refuse(core, out, e.kind, e.message);
      else refuse(core, out, 'unparseable', (e as Error).message);
      return out;
    }
    if (unreachableSaid.get(core.db)?.delete(source.id)) core.log.info({ source: source.id }, 'rate source answers again');
    const fetchedAt = core.now();
    const maxMove = BigInt(core.config.RATE_MAX_MOVE_BPS);
    const previous = new Map((await readObservations(core.db)).filter((o) => o.source === source.id).map((o) => [`${o.base}/${o.quote}`, o]));
    const accepted: RateObservation[] = [];
    for (const q of quotes) {
      const last = previous.get(`${q.base}/${q.quote}`);
      if (last) {
        const moved = [moveBps(last.bid, q.bid), moveBps(last.ask, q.ask)].reduce((a, b) => (a > b ? a : b));
        if (moved > maxMove) {
          refuse(core, out, 'moved_beyond_bound', `${q.base}/${q.quote} moved ${moved} bps from ${last.bid}/${last.ask} to ${q.bid}/${q.ask} (bound ${maxMove})`);
          continue;
        }
      }
      // A publication time later than receipt (a source's nominal time of day) counts from receipt.
      accepted.push({ source: source.id, ...q, asOf: q.asOf > fetchedAt ? fetchedAt : q.asOf });
    }
    await storeObservations(core.db, accepted, fetchedAt);
    out.accepted = accepted.length;
    return out;
  })().finally(() => f.delete(source.id));
  flights.set(source.id, p);
  return p;
}

/** One round: fetches the sources of the currencies `polling` selects (default: those a live route uses), then re-reads the cache. */
export async function refreshRates(core: Core, polling: RatePolling = 'live'): Promise<RefreshOutcome[]> {
  const outcomes = await Promise.all(routeSources(core, RATE_SOURCES, polledCurrencies(core, polling)).map((s) => refreshSource(core, s).catch((e: Error) => ({ source: s.id, accepted: 0, refused: [{ reason: 'unreachable' as const, detail: e.message }] }))));
  await refreshRateCache(core);
  return outcomes;
}

/** Starts the refresher (first round in the background unless `awaitFirst`), logging once what it polls; returns its stop function. */
export async function startRateRefresher(core: Core, opts: { awaitFirst?: boolean; polling?: RatePolling } = {}): Promise<() => Promise<void>> {
  const every = parseDuration(core.config.RATE_REFRESH_INTERVAL);
  const currencies = polledCurrencies(core, opts.polling ?? 'live');
  // Ages are reported for the polled currencies only: an unpolled one would only grow old.
  const routes = Object.fromEntries(Object.entries(rateSettings(core.config).routes).filter(([c]) => currencies.includes(c)));
  watchRates({ routes, book: () => cachedBook(core), now: core.now });
  if (currencies.length === 0) {
    core.log.info('live rates: none polled, no live channel needs one (no live rail is configured; the sandbox prices from its own table; docs/rates.md "Refresher")');
  } else {
    core.log.info({ currencies, sources: routeSources(core, RATE_SOURCES, currencies).map((r) => r.id) }, 'live rates polled for the currencies of the live channels');
  }
  const polling = currencies;
  let current: Promise<unknown> = refreshRates(core, polling).catch((e: Error) => core.log.error({ err: e }, 'rate refresh failed'));
  if (opts.awaitFirst) await current;
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    current = refreshRates(core, polling).catch((e: Error) => core.log.error({ err: e }, 'rate refresh failed'));
  }, every);
  timer.unref?.();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await current;
  };
}
