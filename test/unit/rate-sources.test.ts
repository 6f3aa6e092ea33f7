/**
 * The rate-source adapters parse each source's documented shape (docs/rates.md "The seam"), as the
 * rate test servers serve it (tools/rate-sources/server.ts), and refuse anything else with the
 * RateSourceError kind the refusal metric counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBanxicoSeries, banxicoSource } from '../../src/rates/banxico';
import { ecbSource, parseEcbDaily } from '../../src/rates/ecb';
import { krakenSource, parseKrakenTicker } from '../../src/rates/kraken';
import { RATE_SOURCES, RateSourceError } from '../../src/rates/index';
import { banxicoJson, defaultRateData, ecbXml, krakenTickerJson, type RateSourceServer, startRateSources } from '../../tools/rate-sources/server';

const kind = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof RateSourceError) return e.kind;
    throw e;
  }
  return 'parsed';
};

describe('ECB eurofxref-daily.xml', () => {
  it('reads the gesmes envelope: EUR-based mids as of the reference date, 12:15 UTC', () => {
    const q = parseEcbDaily(ecbXml('2026-11-25', { USD: '1.0865', JPY: '165.42' }));
    expect(q).toEqual([
      { base: 'EUR', quote: 'USD', bid: '1.0865', ask: '1.0865', asOf: new Date('2026-11-25T12:15:00Z') },
      { base: 'EUR', quote: 'JPY', bid: '165.42', ask: '165.42', asOf: new Date('2026-11-25T12:15:00Z') },
    ]);
  });

  it('refuses what is not that document', () => {
    expect(kind(() => parseEcbDaily('<html>503</html>'))).toBe('unparseable');
    expect(kind(() => parseEcbDaily(ecbXml('yesterday', { USD: '1.0865' })))).toBe('unparseable');
    expect(kind(() => parseEcbDaily(ecbXml('2026-11-25', { USD: 'one' })))).toBe('unparseable');
    expect(kind(() => parseEcbDaily(ecbXml('2026-11-25', { USD: '0' })))).toBe('unparseable');
    expect(kind(() => parseEcbDaily('<!DOCTYPE x [<!ENTITY e "1">]>' + ecbXml('2026-11-25', { USD: '1' })))).toBe('unparseable');
    expect(kind(() => parseEcbDaily(ecbXml('2026-11-25', {})))).toBe('unparseable');
  });
});

describe('Kraken Ticker', () => {
  const at = new Date('2026-11-26T10:00:00Z');
  it('reads bid (b[0]) and ask (a[0]) of the USDC pairs as strings, as of receipt', () => {
    const q = parseKrakenTicker(krakenTickerJson(defaultRateData().kraken, ['USDCUSD', 'USDCEUR']), at);
    expect(q).toEqual([
      { base: 'USDC', quote: 'USD', bid: '0.99980', ask: '0.99990', asOf: at },
      { base: 'USDC', quote: 'EUR', bid: '0.91990', ask: '0.92030', asOf: at },
    ]);
  });

  it('an HTTP 200 with an error array is a source error; other shapes are unparseable', () => {
    expect(kind(() => parseKrakenTicker('{"error":["EService:Unavailable"]}', at))).toBe('source_error');
    expect(kind(() => parseKrakenTicker('not json', at))).toBe('unparseable');
    expect(kind(() => parseKrakenTicker('{"result":{}}', at))).toBe('unparseable');
    expect(kind(() => parseKrakenTicker('{"error":[],"result":{"USDCUSD":{"a":[0.9999],"b":["0.9998"]}}}', at))).toBe('unparseable');
    expect(kind(() => parseKrakenTicker('{"error":[],"result":{"USDCUSD":{"a":["0.9990"],"b":["0.9998"]}}}', at))).toBe('unparseable'); // crossed
    expect(kind(() => parseKrakenTicker('{"error":[],"result":{"XBTUSD":{"a":["1"],"b":["1"]}}}', at))).toBe('unparseable');
  });
});

describe('Banxico SIE SF43718', () => {
  it('takes the latest datum with a value (N/E is skipped), MXN per USD, as of 18:00 UTC that day', () => {
    const q = parseBanxicoSeries(banxicoJson(new Date('2026-11-25T00:00:00Z'), '17.0512'));
    expect(q).toEqual([{ base: 'USD', quote: 'MXN', bid: '17.0512', ask: '17.0512', asOf: new Date('2026-11-25T18:00:00Z') }]);
  });

  it('refuses every datum N/E, a bad date and a bad number', () => {
    const all = JSON.stringify({ bmx: { series: [{ idSerie: 'SF43718', datos: [{ fecha: '22/11/2026', dato: 'N/E' }] }] } });
    expect(kind(() => parseBanxicoSeries(all))).toBe('unparseable');
    expect(kind(() => parseBanxicoSeries('{"bmx":{"series":[{"idSerie":"SF43718","datos":[{"fecha":"2026-11-25","dato":"17.05"}]}]}}'))).toBe('unparseable');
    expect(kind(() => parseBanxicoSeries('{"bmx":{"series":[{"idSerie":"SF43718","datos":[{"fecha":"25/11/2026","dato":"x"}]}]}}'))).toBe('unparseable');
    expect(kind(() => parseBanxicoSeries('{"bmx":{}}'))).toBe('unparseable');
  });
});

describe('the adapters over HTTP against the rate test servers', () => {
  let s: RateSourceServer;
  const settings = (url: string, token?: string) => ({ url, timeoutMs: 2000, now: () => new Date(), ...(token ? { token } : {}) });
  beforeAll(async () => {
    s = await startRateSources({ token: 'sie-token' });
  });
  afterAll(async () => s?.stop());

  it('the registry is a plain array of the three built-in modules, each made from the settings it is handed', async () => {
    expect(RATE_SOURCES.map((m) => m.id)).toEqual(['ecb', 'kraken', 'banxico']);
    const ecb = RATE_SOURCES[0].connect({ RATE_ECB_URL: s.env.RATE_ECB_URL }, { timeoutMs: 2000, now: () => new Date() });
    expect(ecb.id).toBe('ecb');
    expect((await ecb.fetch())[0]).toMatchObject({ base: 'EUR', quote: 'USD', bid: '1.0865' });
    const banxico = RATE_SOURCES[2].connect({ RATE_BANXICO_URL: s.env.RATE_BANXICO_URL, RATE_BANXICO_TOKEN: 'sie-token' }, { timeoutMs: 2000, now: () => new Date() });
    expect((await banxico.fetch())[0].bid).toBe('17.0512');
  });

  it('fetch, parse; fail and garbage are refused by kind; Banxico sends its token', async () => {
    expect((await ecbSource(settings(s.env.RATE_ECB_URL)).fetch())[0]).toMatchObject({ base: 'EUR', quote: 'USD', bid: '1.0865' });
    expect(await krakenSource(settings(s.env.RATE_KRAKEN_URL)).fetch()).toHaveLength(2);
    expect((await banxicoSource(settings(s.env.RATE_BANXICO_URL, 'sie-token')).fetch())[0].bid).toBe('17.0512');
    await expect(banxicoSource(settings(s.env.RATE_BANXICO_URL)).fetch()).rejects.toMatchObject({ kind: 'unreachable' });
    s.mode('kraken', 'fail');
    await expect(krakenSource(settings(s.env.RATE_KRAKEN_URL)).fetch()).rejects.toMatchObject({ kind: 'unreachable' });
    s.mode('kraken', 'error');
    await expect(krakenSource(settings(s.env.RATE_KRAKEN_URL)).fetch()).rejects.toMatchObject({ kind: 'source_error' });
    s.mode('ecb', 'garbage');
    await expect(ecbSource(settings(s.env.RATE_ECB_URL)).fetch()).rejects.toMatchObject({ kind: 'unparseable' });
    s.mode('banxico', 'garbage');
    await expect(banxicoSource(settings(s.env.RATE_BANXICO_URL, 'sie-token')).fetch()).rejects.toMatchObject({ kind: 'unparseable' });
    await expect(ecbSource(settings('http://127.0.0.1:1/x')).fetch()).rejects.toMatchObject({ kind: 'unreachable' });
  });
});
