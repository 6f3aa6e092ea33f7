/**
 * Banxico's SIE series SF43718, the FIX in MXN per USD (docs/rates.md "Banxico"); `dato` is `N/E` on
 * days without a FIX; as-of is the date at 18:00 UTC.
 */
import { z } from 'zod';
import { decimalField, field, fetchText, RateSourceError, type RateSource, type RateSourceSettings, rateSourceModule, type SourceQuote } from './source';

export const BANXICO_FIX_SERIES = 'SF43718';

/** The latest numeric datum; RateSourceError('unparseable') otherwise (also when all are N/E). */
export function parseBanxicoSeries(text: string): SourceQuote[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RateSourceError('unparseable', 'Banxico: the answer is not JSON');
  }
  const series = field(field(body, 'bmx'), 'series');
  if (!Array.isArray(series)) throw new RateSourceError('unparseable', 'Banxico: no bmx.series array');
  const fix: unknown = series.find((s: unknown) => field(s, 'idSerie') === BANXICO_FIX_SERIES) ?? (series.length === 1 ? series[0] : undefined);
  const datos = field(fix, 'datos');
  if (!Array.isArray(datos)) throw new RateSourceError('unparseable', `Banxico: no series ${BANXICO_FIX_SERIES} with datos`);
  let best: SourceQuote | undefined;
  for (const d of datos as unknown[]) {
    const fecha = field(d, 'fecha');
    const dato = field(d, 'dato');
    const m = typeof fecha === 'string' ? /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(fecha) : null;
    if (!m) throw new RateSourceError('unparseable', `Banxico: fecha ${JSON.stringify(fecha)} is not dd/mm/yyyy`);
    if (dato === 'N/E') continue;
    const rate = decimalField(typeof dato === 'string' ? dato.replace(/,/g, '') : dato, `Banxico ${fecha}`);
    const asOf = new Date(`${m[3]}-${m[2]}-${m[1]}T18:00:00Z`);
    if (Number.isNaN(asOf.getTime())) throw new RateSourceError('unparseable', `Banxico: fecha ${fecha} is not a date`);
    if (!best || asOf > best.asOf) best = { base: 'USD', quote: 'MXN', bid: rate, ask: rate, asOf };
  }
  if (!best) throw new RateSourceError('unparseable', 'Banxico: no datum with a value (every one N/E)');
  return [best];
}

export function banxicoSource(settings: RateSourceSettings): RateSource {
  return {
    id: 'banxico',
    async fetch() {
      const headers: Record<string, string> = { Accept: 'application/json' };
      if (settings.token) headers['Bmx-Token'] = settings.token;
      return parseBanxicoSeries(await fetchText(settings.url, settings, headers));
    },
  };
}

/** The banxico module (docs/configuration.md "Live rates"). */
export const BANXICO_MODULE = rateSourceModule({
  id: 'banxico',
  settings: {
    RATE_BANXICO_URL: z.string().url().default('https://www.banxico.org.mx/SieAPIRest/service/v1/series/SF43718/datos/oportuno').describe('the MXN FIX (Banxico SIE, series SF43718 `datos/oportuno`)'),
    RATE_BANXICO_TOKEN: z.string().min(1).optional().describe('Banxico SIE query token, sent as `Bmx-Token`'),
  },
  connect: (s, context) => banxicoSource({ url: s.RATE_BANXICO_URL, ...(s.RATE_BANXICO_TOKEN ? { token: s.RATE_BANXICO_TOKEN } : {}), ...context }),
});
