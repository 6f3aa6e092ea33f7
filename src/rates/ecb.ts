/**
 * The ECB's euro reference rates (`eurofxref-daily.xml`; docs/rates.md "ECB"): EUR-based mids; as-of
 * is the reference date at 12:15 UTC (never younger than the 14:10 CET concertation).
 */
import { z } from 'zod';
import { lazyPackage } from '../lazy-package';
import { decimalField, field, fetchText, RateSourceError, type RateSource, type RateSourceSettings, rateSourceModule, type SourceQuote } from './source';

type FastXmlParser = typeof import('fast-xml-parser');
const parser = lazyPackage<FastXmlParser, InstanceType<FastXmlParser['XMLParser']>>('fast-xml-parser', (m) =>
  new m.XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', removeNSPrefix: true, processEntities: false }));

/** Throws RateSourceError('unparseable') when it is not that shape. */
export function parseEcbDaily(xml: string): SourceQuote[] {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new RateSourceError('unparseable', 'ECB: DOCTYPE or ENTITY declarations are refused');
  let doc: unknown;
  try {
    doc = parser().parse(xml, true);
  } catch (e) {
    throw new RateSourceError('unparseable', `ECB: not well-formed XML (${(e as Error).message.slice(0, 80)})`);
  }
  const envelope = field(doc, 'Envelope');
  const dayCube = field(field(envelope, 'Cube'), 'Cube');
  if (!envelope || !dayCube || Array.isArray(dayCube)) throw new RateSourceError('unparseable', 'ECB: no gesmes:Envelope > Cube > Cube[time]');
  const time = field(dayCube, '@_time');
  if (typeof time !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(time)) throw new RateSourceError('unparseable', 'ECB: Cube[time] is not a date');
  const asOf = new Date(`${time}T12:15:00Z`);
  if (Number.isNaN(asOf.getTime())) throw new RateSourceError('unparseable', 'ECB: Cube[time] is not a date');
  const inner = field(dayCube, 'Cube');
  const cubes: unknown[] = Array.isArray(inner) ? inner : inner ? [inner] : [];
  if (cubes.length === 0) throw new RateSourceError('unparseable', 'ECB: no Cube[currency][rate]');
  return cubes.map((c) => {
    const currency = field(c, '@_currency');
    if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) throw new RateSourceError('unparseable', 'ECB: Cube[currency] is not a currency code');
    const rate = decimalField(field(c, '@_rate'), `ECB ${currency} rate`);
    return { base: 'EUR', quote: currency, bid: rate, ask: rate, asOf };
  });
}

export function ecbSource(settings: RateSourceSettings): RateSource {
  return {
    id: 'ecb',
    async fetch() {
      return parseEcbDaily(await fetchText(settings.url, settings, { Accept: 'application/xml' }));
    },
  };
}

/** The ecb module (docs/configuration.md "Live rates"). */
export const ECB_MODULE = rateSourceModule({
  id: 'ecb',
  settings: {
    RATE_ECB_URL: z.string().url().default('https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml').describe('the ECB euro reference rates'),
  },
  connect: (s, context) => ecbSource({ url: s.RATE_ECB_URL, ...context }),
});
