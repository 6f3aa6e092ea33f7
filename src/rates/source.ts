import type { z } from 'zod';
import type { SeamModule, SeamSettings } from '../seams/module';

/**
 * The rate-source seam (docs/rates.md "The seam"): adapters speak one published format each and
 * never touch our database; src/core/rates decides what is accepted.
 */

/** One pair a source quoted: 1 `base` buys `bid`..`ask` units of `quote` (decimal strings; a mid-only source gives bid = ask). */
export interface SourceQuote {
  base: string;
  quote: string;
  bid: string;
  ask: string;
  /** Publication time, else time of receipt. */
  asOf: Date;
}

export interface RateSourceSettings {
  url: string;
  token?: string;
  timeoutMs: number;
  now: () => Date;
}

export interface RateSource {
  /** Stable id used in routes, metrics and `rate_source` (`ecb`, `kraken`, `banxico`). */
  readonly id: string;
  /** Throws {@link RateSourceError} `unreachable`, `unparseable` or `source_error`. */
  fetch(): Promise<SourceQuote[]>;
}

export type RateSourceErrorKind = 'unreachable' | 'unparseable' | 'source_error';

export class RateSourceError extends Error {
  override readonly name = 'RateSourceError';
  constructor(
    readonly kind: RateSourceErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export type RateSourceFactory = (settings: RateSourceSettings) => RateSource;

/** Shared by every source: one fetch's timeout in ms. */
export interface RateSourceContext {
  timeoutMs: number;
  now: () => Date;
}

/** One rate-source module (docs/rates.md "The seam"): its id as RATE_ROUTES names it, its variables, its source. */
export interface RateSourceModule<S extends SeamSettings = SeamSettings> extends SeamModule<S> {
  connect(settings: z.infer<z.ZodObject<S>>, context: RateSourceContext): RateSource;
}

/** Declares a module with its settings' type checked against `connect` (an identity). */
export function rateSourceModule<S extends SeamSettings>(m: RateSourceModule<S>): RateSourceModule<S> {
  return m;
}

const DECIMAL = /^\d{1,12}(\.\d{1,12})?$/;

/** A positive decimal string (at most 12 digits each side), else RateSourceError('unparseable'). */
export function decimalField(value: unknown, what: string): string {
  if (typeof value !== 'string' || !DECIMAL.test(value.trim()) || /^0+(\.0+)?$/.test(value.trim())) {
    throw new RateSourceError('unparseable', `${what} is not a positive decimal: ${JSON.stringify(value)?.slice(0, 40)}`);
  }
  return value.trim();
}

/** GETs `url`; RateSourceError('unreachable') on a network error, timeout or non-200. */
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

export function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}
