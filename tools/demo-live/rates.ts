/**
 * The live rates part of `npm run demo:live` (docs/rates.md): a live EUR quote with its rate's
 * source, age and spread, computed from what the rate test servers (tools/rate-sources) serve; then
 * the sources go down (Kraken failing, the ECB stale) and, once Kraken's last answer passes its
 * maximum age ({@link DEMO_RATE_ENV}: 6 s), a quote is refused with channel_unavailable naming the
 * missing rate; then the sources come back and quotes work again, without a restart.
 */
import type { RateSourceServer } from '../rate-sources/server';

/** The service environment of this part: Kraken's maximum age cut to 6 s so an outage shows within the demo. */
export const DEMO_RATE_ENV: Record<string, string> = {
  RATE_ROUTES: 'USD=kraken@PT6S,EUR=ecb@P4D|kraken@PT6S,MXN=banxico@P4D|ecb@P4D,BRL=ecb@P4D',
  RATE_REFRESH_INTERVAL: 'PT1S',
};

/** What the demo needs from its caller: the service's base URL, the live key, and the rate servers. */
export interface RatesDemo {
  base: string;
  liveKey: string;
  rates: RateSourceServer;
}

async function postQuote(d: RatesDemo): Promise<{ status: number; body: any }> {
  const res = await fetch(`${d.base}/v1/quotes`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ channel: 'sepa_eur', source_amount: '1000.00' }),
  });
  return { status: res.status, body: await res.json() };
}

async function waitFor<T>(fn: () => Promise<T | null>, timeoutMs: number): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) return null;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Runs the part; throws when a step does not behave as docs/rates.md says. */
export async function ratesDemo(d: RatesDemo): Promise<void> {
  console.log('\n--- live rates (docs/rates.md) ---');
  const k = d.rates.data.kraken.USDCUSD!;
  console.log(`rate sources serve: ECB EUR/USD ${d.rates.data.ecb.USD}; Kraken USDC/USD bid ${k.bid} ask ${k.ask}`);
  const q = await postQuote(d);
  if (q.status !== 201) throw new Error(`live EUR quote: ${q.status} ${JSON.stringify(q.body)}`);
  const r = q.body.rate_details;
  const ageS = ((Date.parse(q.body.created_at) - Date.parse(r.as_of)) / 1000).toFixed(0);
  console.log(
    `live quote ${q.body.id}: 1000.00 USDC -> ${q.body.destination_amount} EUR at ${q.body.rate} ` +
      `(reference ${r.reference_rate} from ${r.source}, as of ${r.as_of}, ${ageS} s old; spread ${r.spread_bps} bps = fees.fx_spread ${q.body.fees.fx_spread} USDC, in the rate)`,
  );

  d.rates.mode('kraken', 'fail');
  d.rates.mode('ecb', 'stale');
  console.log('rate sources down: Kraken answers 503, the ECB publishes a 10-day-old file ...');
  const refused = await waitFor(async () => {
    const x = await postQuote(d);
    return x.status === 400 ? x : null;
  }, 30_000);
  if (!refused) throw new Error('no quote was refused while every EUR source was down');
  console.log(`refused quote: ${refused.status} ${refused.body.error.code} (param ${refused.body.error.param}): ${refused.body.error.message}`);

  d.rates.mode('kraken', 'ok');
  d.rates.mode('ecb', 'ok');
  const back = await waitFor(async () => {
    const x = await postQuote(d);
    return x.status === 201 ? x : null;
  }, 30_000);
  if (!back) throw new Error('quotes did not come back after the sources recovered');
  console.log(`sources back: quote ${back.body.id} at ${back.body.rate} (${back.body.rate_details.source}), no restart`);
}
