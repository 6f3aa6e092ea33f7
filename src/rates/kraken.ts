/**
 * Kraken's public Ticker (docs/rates.md "Kraken"): an HTTP 200 with a non-empty `error` array is a
 * failure; no time of its own, so as-of is the time of receipt.
 */
import { z } from 'zod';
import { decimalField, field, fetchText, RateSourceError, type RateSource, type RateSourceSettings, rateSourceModule, type SourceQuote } from './source';

export const KRAKEN_PAIRS: Readonly<Record<string, { base: string; quote: string }>> = {
  USDCUSD: { base: 'USDC', quote: 'USD' },
  USDCEUR: { base: 'USDC', quote: 'EUR' },
};

/** Throws RateSourceError ('source_error' for a non-empty error array, else 'unparseable'). */
export function parseKrakenTicker(text: string, receivedAt: Date): SourceQuote[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RateSourceError('unparseable', 'Kraken: the answer is not JSON');
  }
  const error = field(body, 'error');
  if (!Array.isArray(error)) throw new RateSourceError('unparseable', 'Kraken: no error array');
  if (error.length > 0) throw new RateSourceError('source_error', `Kraken: ${error.map(String).join(', ').slice(0, 200)}`);
  const result = field(body, 'result');
  if (!result || typeof result !== 'object' || Array.isArray(result)) throw new RateSourceError('unparseable', 'Kraken: no result object');
  const out: SourceQuote[] = [];
  for (const [pair, t] of Object.entries(result as Record<string, unknown>)) {
    const meaning = Object.hasOwn(KRAKEN_PAIRS, pair) ? KRAKEN_PAIRS[pair] : undefined;
    if (!meaning) continue;
    const a = field(t, 'a');
    const b = field(t, 'b');
    const c = field(t, 'c');
    if (!Array.isArray(a) || !Array.isArray(b)) throw new RateSourceError('unparseable', `Kraken ${pair}: no a/b arrays`);
    const ask = decimalField(a[0], `Kraken ${pair} ask`);
    const bid = decimalField(b[0], `Kraken ${pair} bid`);
    if (Array.isArray(c)) decimalField(c[0], `Kraken ${pair} last`);
    // bid above ask (a crossed book) is not an answer to use.
    const [bi, ai] = [bid, ask].map((v) => v.split('.'));
    const scale = Math.max((bi[1] ?? '').length, (ai[1] ?? '').length);
    const big = (p: string[]) => BigInt(p[0] + (p[1] ?? '').padEnd(scale, '0'));
    if (big(bi) > big(ai)) throw new RateSourceError('unparseable', `Kraken ${pair}: bid ${bid} above ask ${ask}`);
    out.push({ ...meaning, bid, ask, asOf: receivedAt });
  }
  if (out.length === 0) throw new RateSourceError('unparseable', 'Kraken: no known pair in the result');
  return out;
}

export function krakenSource(settings: RateSourceSettings): RateSource {
  return {
    id: 'kraken',
    async fetch() {
      const url = new URL(settings.url);
      url.searchParams.set('pair', Object.keys(KRAKEN_PAIRS).join(','));
      const text = await fetchText(url.toString(), settings, { Accept: 'application/json' });
      return parseKrakenTicker(text, settings.now());
    },
  };
}

/** The kraken module (docs/configuration.md "Live rates"). */
export const KRAKEN_MODULE = rateSourceModule({
  id: 'kraken',
  settings: {
    RATE_KRAKEN_URL: z.string().url().default('https://api.kraken.com/0/public/Ticker').describe('Kraken\'s public ticker (pairs USDCUSD, USDCEUR are added as `?pair=`)'),
  },
  connect: (s, context) => krakenSource({ url: s.RATE_KRAKEN_URL, ...context }),
});
