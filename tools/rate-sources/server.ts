/**
 * Rate test servers (docs/rates.md "Test servers"): one HTTP server on 127.0.0.1, port 0, that
 * serves the three documented shapes the live rate adapters read, with controls to change the data,
 * make a source stale, fail or answer garbage:
 *
 * - `GET /ecb/eurofxref-daily.xml`: the ECB's gesmes:Envelope with `Cube > Cube[time] > Cube[currency][rate]`;
 * - `GET /kraken/0/public/Ticker?pair=USDCUSD,USDCEUR`: Kraken's `{ error: [], result: { PAIR: { a, b, c, ... } } }`
 *   (mode `error`: HTTP 200 with `error: ["EService:Unavailable"]`, as Kraken does);
 * - `GET /banxico/SieAPIRest/service/v1/series/SF43718/datos/oportuno`: Banxico SIE
 *   `{ bmx: { series: [ { idSerie, titulo, datos: [ { fecha: dd/mm/yyyy, dato } ] } ] } }`, with an
 *   `N/E` datum for the day before (the documented non-business-day value); the `Bmx-Token` header is
 *   required when a token is set.
 *
 * Modes per source: `ok`; `stale` (ECB and Banxico publish a date `staleDays` old; Kraken, whose
 * ticker carries no time, stops answering: HTTP 503, so what we accepted last ages); `fail` (HTTP
 * 503); `garbage` (HTTP 200 with a body that is not the documented shape); `error` (Kraken only:
 * the error array).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a source answers. */
export type RateSourceMode = 'ok' | 'stale' | 'fail' | 'garbage' | 'error';

/** Served data: decimal strings exactly as each source publishes them. */
export interface RateSourceData {
  /** ECB: 1 EUR buys <rate> of each currency. */
  ecb: Record<string, string>;
  /** Kraken: bid, ask and last of each pair. */
  kraken: Record<string, { bid: string; ask: string; last: string }>;
  /** Banxico FIX: MXN per USD. */
  banxicoFix: string;
}

/** A running rate test server. */
export interface RateSourceServer {
  url: string;
  /** The RATE_* environment that points the service at this server. */
  env: Record<string, string>;
  data: RateSourceData;
  /** Replaces part of the served data (the next answer serves it). */
  set(patch: Partial<RateSourceData>): void;
  /** Sets how a source answers. */
  mode(source: 'ecb' | 'kraken' | 'banxico', mode: RateSourceMode): void;
  /** How many requests each source received. */
  hits: Record<'ecb' | 'kraken' | 'banxico', number>;
  stop(): Promise<void>;
}

/** Default data: realistic late-2026 levels (USDC/USD a hair below par; EUR/USD 1.0865; FIX 17.0512). */
export function defaultRateData(): RateSourceData {
  return {
    ecb: { USD: '1.0865', JPY: '165.42', GBP: '0.8421', CHF: '0.9387', MXN: '18.5283', BRL: '6.3245', INR: '96.412', AUD: '1.6785' },
    kraken: {
      USDCUSD: { bid: '0.99980', ask: '0.99990', last: '0.99985' },
      USDCEUR: { bid: '0.91990', ask: '0.92030', last: '0.92010' },
    },
    banxicoFix: '17.0512',
  };
}

const day = (d: Date) => d.toISOString().slice(0, 10);
const dmy = (d: Date) => `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${d.getUTCFullYear()}`;

/** The ECB document for `date` (YYYY-MM-DD). */
export function ecbXml(date: string, rates: Record<string, string>): string {
  const cubes = Object.entries(rates)
    .map(([c, r]) => `\t\t\t<Cube currency='${c}' rate='${r}'/>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
\t<Cube>
\t\t<Cube time='${date}'>
${cubes}
\t\t</Cube>
\t</Cube>
</gesmes:Envelope>
`;
}

/** Kraken's Ticker body for `pairs`. */
export function krakenTickerJson(pairs: RateSourceData['kraken'], wanted: string[]): string {
  const result: Record<string, unknown> = {};
  for (const p of wanted) {
    const t = pairs[p];
    if (!t) continue;
    result[p] = { a: [t.ask, '1', '1.000'], b: [t.bid, '1', '1.000'], c: [t.last, '10.00000000'], v: ['100000.0', '200000.0'], p: [t.last, t.last], t: [100, 200], l: [t.bid, t.bid], h: [t.ask, t.ask], o: t.last };
  }
  return JSON.stringify({ error: [], result });
}

/** Banxico's SIE answer for the FIX on `date`, with an N/E datum for the day before. */
export function banxicoJson(date: Date, fix: string): string {
  const before = new Date(date.getTime() - 86_400_000);
  return JSON.stringify({
    bmx: { series: [{ idSerie: 'SF43718', titulo: 'Tipo de cambio Pesos por dólar E.U.A. Tipo de cambio para solventar obligaciones denominadas en moneda extranjera Fecha de determinación (FIX)', datos: [{ fecha: dmy(before), dato: 'N/E' }, { fecha: dmy(date), dato: fix }] }] },
  });
}

/**
 * Starts the server. `now` dates what ECB and Banxico publish (default: the wall clock; ECB's and
 * Banxico's dates are yesterday's, so their as-of is always in the past); `token` makes Banxico
 * require `Bmx-Token`; `staleDays` how old a `stale` publication is (default 10).
 */
export async function startRateSources(opts: { now?: () => Date; token?: string; staleDays?: number; data?: RateSourceData } = {}): Promise<RateSourceServer> {
  const now = opts.now ?? (() => new Date());
  const staleDays = opts.staleDays ?? 10;
  const data = opts.data ?? defaultRateData();
  const modes: Record<'ecb' | 'kraken' | 'banxico', RateSourceMode> = { ecb: 'ok', kraken: 'ok', banxico: 'ok' };
  const hits = { ecb: 0, kraken: 0, banxico: 0 };
  const published = (m: RateSourceMode) => new Date(now().getTime() - (m === 'stale' ? staleDays : 1) * 86_400_000);

  const send = (res: ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET') return send(res, 405, 'text/plain', 'method not allowed');
    if (url.pathname === '/ecb/eurofxref-daily.xml') {
      hits.ecb++;
      const m = modes.ecb;
      if (m === 'fail') return send(res, 503, 'text/html', '<html><body>Service Unavailable</body></html>');
      if (m === 'garbage') return send(res, 200, 'text/xml', '<?xml version="1.0"?><gesmes:Envelope xmlns:gesmes="x"><Cube><Cube time="tomorrow"><Cube currency="USD" rate="one"/></Cube></Cube>');
      return send(res, 200, 'text/xml', ecbXml(day(published(m)), data.ecb));
    }
    if (url.pathname === '/kraken/0/public/Ticker') {
      hits.kraken++;
      const m = modes.kraken;
      if (m === 'fail' || m === 'stale') return send(res, 503, 'text/plain', 'Service Unavailable');
      if (m === 'garbage') return send(res, 200, 'application/json', '{"error":[],"result":{"USDCUSD":{"a":["NaN"],"b":[null]}}}');
      if (m === 'error') return send(res, 200, 'application/json', JSON.stringify({ error: ['EService:Unavailable'] }));
      const wanted = (url.searchParams.get('pair') ?? '').split(',').filter(Boolean);
      if (wanted.some((p) => !data.kraken[p])) return send(res, 200, 'application/json', JSON.stringify({ error: ['EQuery:Unknown asset pair'] }));
      return send(res, 200, 'application/json', krakenTickerJson(data.kraken, wanted));
    }
    if (url.pathname === '/banxico/SieAPIRest/service/v1/series/SF43718/datos/oportuno') {
      hits.banxico++;
      if (opts.token && req.headers['bmx-token'] !== opts.token) return send(res, 401, 'application/json', '{"error":{"mensaje":"Token inválido"}}');
      const m = modes.banxico;
      if (m === 'fail') return send(res, 503, 'text/plain', 'Service Unavailable');
      if (m === 'garbage') return send(res, 200, 'application/json', '{"bmx":{"series":[{"idSerie":"SF43718","datos":[{"fecha":"2026-11-26","dato":"17,05"}]}]}}');
      return send(res, 200, 'application/json', banxicoJson(published(m), data.banxicoFix));
    }
    send(res, 404, 'text/plain', 'not found');
  };
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: {
      RATE_ECB_URL: `${url}/ecb/eurofxref-daily.xml`,
      RATE_KRAKEN_URL: `${url}/kraken/0/public/Ticker`,
      RATE_BANXICO_URL: `${url}/banxico/SieAPIRest/service/v1/series/SF43718/datos/oportuno`,
      ...(opts.token ? { RATE_BANXICO_TOKEN: opts.token } : {}),
      RATE_FETCH_TIMEOUT: 'PT2S',
    },
    data,
    set(patch) {
      Object.assign(data, patch);
    },
    mode(source, mode) {
      modes[source] = mode;
    },
    hits,
    async stop() {
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
