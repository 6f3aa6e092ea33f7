/**
 * The rate-source seam (docs/rates.md "The seam"): every live exchange rate comes from a
 * {@link RateSource}, registered by id in {@link registerRateSource}. Adapters talk to one published
 * format each (the ECB's euro reference rates, Kraken's public ticker, Banxico's SIE series; a rail
 * partner's own quote the same way) and return {@link SourceQuote}s; they never touch our database:
 * src/core/rates decides what is accepted, stores it and serves it.
 */

/** One pair a source quoted: 1 `base` buys `bid`..`ask` units of `quote` (decimal strings; a mid-only source gives bid = ask). */
export interface SourceQuote {
  base: string;
  quote: string;
  bid: string;
  ask: string;
  /** When the source says the rate was set (its publication time), else when we received it. */
  asOf: Date;
}

/** What a source needs to fetch: its endpoint, a credential if it takes one, and a time limit. */
export interface RateSourceSettings {
  url: string;
  token?: string;
  timeoutMs: number;
  /** The clock (the time of receipt of sources that carry no time of their own). */
  now: () => Date;
}

/** A source of live rates (docs/rates.md "The seam"). */
export interface RateSource {
  /** Stable id used in routes, metrics and the `rate_source` of every quote (`ecb`, `kraken`, `banxico`). */
  readonly id: string;
  /**
   * Fetches the source's current rates. Throws {@link RateSourceError}: `unreachable` (network,
   * timeout, HTTP status other than 200), `unparseable` (an answer not in the documented shape),
   * `source_error` (the source answered with its own error, e.g. Kraken's `error` array).
   */
  fetch(): Promise<SourceQuote[]>;
}

/** Why a source's answer was not used. */
export type RateSourceErrorKind = 'unreachable' | 'unparseable' | 'source_error';

/** A failed fetch, by kind (what the refusal metric counts). */
export class RateSourceError extends Error {
  override readonly name = 'RateSourceError';
  constructor(
    readonly kind: RateSourceErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** Builds a source from its settings. */
export type RateSourceFactory = (settings: RateSourceSettings) => RateSource;

const factories = new Map<string, RateSourceFactory>();

/** Registers a source kind under `id` (a second registration of the same id replaces the first). */
export function registerRateSource(id: string, factory: RateSourceFactory): void {
  factories.set(id, factory);
}

/** The factory registered as `id`, or undefined. */
export function rateSourceFactory(id: string): RateSourceFactory | undefined {
  return factories.get(id);
}

/** Ids of every registered source. */
export function registeredRateSources(): string[] {
  return [...factories.keys()];
}

const DECIMAL = /^\d{1,12}(\.\d{1,12})?$/;

/** `value` when it is a positive decimal string (at most 12 digits each side), else throws RateSourceError('unparseable'). */
export function decimalField(value: unknown, what: string): string {
  if (typeof value !== 'string' || !DECIMAL.test(value.trim()) || /^0+(\.0+)?$/.test(value.trim())) {
    throw new RateSourceError('unparseable', `${what} is not a positive decimal: ${JSON.stringify(value)?.slice(0, 40)}`);
  }
  return value.trim();
}

/** GETs `url` and returns the body text; throws RateSourceError('unreachable') on a network error, timeout or non-200 status. */
export async function fetchText(url: string, settings: Pick<RateSourceSettings, 'timeoutMs'>, headers: Record<string, string> = {}): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(settings.timeoutMs), redirect: 'error' });
  } catch (e) {
    throw new RateSourceError('unreachable', `${url}: ${(e as Error).message}`);
  }
  const text = await res.text().catch((e: Error) => {
    throw new RateSourceError('unreachable', `${url}: ${e.message}`);
  });
  if (res.status !== 200) throw new RateSourceError('unreachable', `${url}: HTTP ${res.status}`);
  if (text.length > 1_000_000) throw new RateSourceError('unparseable', `${url}: answer larger than 1 MB`);
  return text;
}

/** Member `key` of an untrusted parsed value (JSON or XML), or undefined when it is not an object. */
export function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}
