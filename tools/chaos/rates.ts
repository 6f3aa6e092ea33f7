/**
 * Live rate faults and audit of the chaos run (docs/chaos.md "Live rates"; docs/rates.md). The stack
 * runs the rate test servers (tools/rate-sources) with Kraken's maximum age cut to
 * {@link CHAOS_KRAKEN_MAX_AGE} so an outage makes rates stale within the run. Faults, at fixed
 * fractions of the run:
 * - 25 %: Kraken fails (HTTP 503) and the ECB publishes an old file (stale) for max(20 s, 15 % of the
 *   run): USD and EUR lose their rate once Kraken's last answer passes its maximum age, so live
 *   ach_usd and sepa_eur are paused and their payouts refused with channel_unavailable (expected in
 *   that window, {@link expectedRateRefusal}); live deposits wait in the rail inbox;
 * - 55 % (at least 15 s after the outage): the ECB and Kraken answer garbage, then Kraken its error
 *   array, for 6 s (refused, counted);
 * - 70 %: the ECB's EUR/USD jumps 25 % for 6 s (refused: beyond RATE_MAX_MOVE_BPS);
 * - 80 %: the market moves a little (accepted: later conversions use the new rate).
 *
 * Audit: every live payout, quote and deposit in a currency other than USDC recorded its rate's
 * source and as-of; none was made after its rate's usable-until time (its oldest leg past its
 * maximum age) nor with an as-of older than the largest maximum age of its route; every payout
 * refused for want of a rate was refused inside an outage window.
 */
import { sql } from 'kysely';
import type { Db } from '../../src/db/schema';
import { parseRateRoutes } from '../../src/domain/rate-routes';
import type { RateSourceServer } from '../rate-sources/server';
import type { Check } from './audit';

/** Kraken's maximum age in the chaos stack (production: PT5M). */
export const CHAOS_KRAKEN_MAX_AGE = 'PT10S';
/** RATE_ROUTES of the chaos stack. */
export const CHAOS_RATE_ROUTES = `USD=kraken@${CHAOS_KRAKEN_MAX_AGE},EUR=ecb@P4D|kraken@${CHAOS_KRAKEN_MAX_AGE},MXN=banxico@P4D|ecb@P4D,BRL=ecb@P4D`;
/** The stack environment these faults need (passed to startStack by tools/chaos/index.ts). */
export const CHAOS_RATE_ENV: Record<string, string> = { RATE_ROUTES: CHAOS_RATE_ROUTES, RATE_REFRESH_INTERVAL: 'PT2S' };

/** Windows (ms since epoch) in which a live payout may be refused for want of a rate. */
const outages: Array<{ from: number; to: number }> = [];
/** Refusals seen by the traffic (at, message). */
const refusals: Array<{ at: number; inWindow: boolean; message: string }> = [];
/** Log lines of the faults (printed with the other faults). */
export const rateFaultLog: string[] = [];

/**
 * Whether a live POST /payouts answer is the expected refusal of an outage: 400
 * channel_unavailable naming a missing USDC rate, inside an outage window (from its start to 20 s
 * after its end: a refresh, the API's cache re-read, and a refresher restarted after a SIGKILL on a
 * loaded machine). Records it either way for the audit.
 */
export function expectedRateRefusal(status: number, body: unknown): boolean {
  const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
  if (status !== 400 || error?.code !== 'channel_unavailable' || !/no usable USDC\//.test(error.message ?? '')) return false;
  const now = Date.now();
  const inWindow = outages.some((o) => now >= o.from && now <= o.to + 20_000);
  refusals.push({ at: now, inWindow, message: error.message ?? '' });
  return inWindow;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the rate faults over the traffic period [start, until] (returns when done). */
export async function rateFaults(rates: RateSourceServer, start: number, until: number, say: (line: string) => void): Promise<void> {
  const span = until - start;
  const at = (f: number) => start + span * f;
  const waitUntil = async (t: number) => {
    const ms = t - Date.now();
    if (ms > 0) await sleep(ms);
  };
  const note = (line: string) => {
    say(`rates: ${line}`);
    rateFaultLog.push(line);
  };

  await waitUntil(at(0.25));
  const outageMs = Math.max(20_000, span * 0.15);
  outages.push({ from: Date.now(), to: Date.now() + outageMs });
  rates.mode('kraken', 'fail');
  rates.mode('ecb', 'stale');
  note(`Kraken failing and the ECB stale for ${(outageMs / 1000).toFixed(0)} s (rates go stale ${CHAOS_KRAKEN_MAX_AGE} after Kraken's last answer)`);
  await sleep(outageMs);
  rates.mode('kraken', 'ok');
  rates.mode('ecb', 'ok');
  outages[outages.length - 1]!.to = Date.now();
  note('Kraken and the ECB back');

  // Kraken must answer for a while first: garbage right after the outage would extend it.
  await waitUntil(Math.max(at(0.55), Date.now() + 15_000));
  // Six seconds of no usable Kraken answer can add to a stale one: a window of its own.
  outages.push({ from: Date.now(), to: Date.now() + 6000 });
  rates.mode('ecb', 'garbage');
  rates.mode('kraken', 'garbage');
  note('the ECB and Kraken answer garbage');
  await sleep(3000);
  rates.mode('kraken', 'error');
  note("Kraken answers its error array (HTTP 200, error ['EService:Unavailable'])");
  await sleep(3000);
  rates.mode('ecb', 'ok');
  rates.mode('kraken', 'ok');

  await waitUntil(at(0.7));
  const usd = rates.data.ecb.USD!;
  rates.set({ ecb: { ...rates.data.ecb, USD: (Number(usd) * 1.25).toFixed(4) } });
  note(`the ECB's EUR/USD jumps 25 % to ${rates.data.ecb.USD} (beyond the bound: refused)`);
  await sleep(6000);
  rates.set({ ecb: { ...rates.data.ecb, USD: usd } });

  await waitUntil(at(0.8));
  rates.set({ ecb: { ...rates.data.ecb, USD: '1.0880' }, kraken: { ...rates.data.kraken, USDCUSD: { bid: '0.99975', ask: '0.99988', last: '0.99980' } } });
  note('the market moves: ECB EUR/USD 1.0880, Kraken USDC/USD 0.99975/0.99988 (accepted)');
}

/** The audit checks of live rates (see the file header). */
export async function auditRates(db: Db): Promise<Check[]> {
  const routes = parseRateRoutes(CHAOS_RATE_ROUTES);
  const maxAge = (currency: string) => Math.max(0, ...(routes[currency] ?? []).map((s) => s.maxAgeMs), ...(routes.USD ?? []).map((s) => s.maxAgeMs));
  const rows = await sql<{ kind: string; id: string; currency: string; at: Date; rate_source: string | null; rate_as_of: Date | null; rate_usable_until: Date | null; quote_id: string | null }>`
    select 'payout' as kind, id, destination_currency as currency, created_at as at, rate_source, rate_as_of, rate_usable_until, quote_id
      from payouts where environment = 'live' and destination_currency <> 'USDC'
    union all
    select 'quote', id, destination_currency, created_at, rate_source, rate_as_of, rate_usable_until, null
      from quotes where environment = 'live'
    union all
    select 'deposit', id, currency, created_at, rate_source, rate_as_of, rate_usable_until, null
      from deposits where environment = 'live' and currency <> 'USDC'`.execute(db);
  const unrecorded: string[] = [];
  const pastUsable: string[] = [];
  const tooOld: string[] = [];
  // Pricing happens in the request a moment before the row's created_at: 1 s of tolerance.
  const TOLERANCE_MS = 1000;
  for (const r of rows.rows) {
    if (r.kind === 'payout' && r.quote_id) continue; // priced by its quote, checked as a quote
    if (!r.rate_source || !r.rate_as_of || !r.rate_usable_until) {
      unrecorded.push(`${r.kind} ${r.id}`);
      continue;
    }
    const at = new Date(r.at).getTime();
    if (at > new Date(r.rate_usable_until).getTime() + TOLERANCE_MS) pastUsable.push(`${r.kind} ${r.id} at ${new Date(r.at).toISOString()}, usable until ${new Date(r.rate_usable_until).toISOString()}`);
    if (at - new Date(r.rate_as_of).getTime() > maxAge(r.currency) + TOLERANCE_MS) tooOld.push(`${r.kind} ${r.id}: as of ${new Date(r.rate_as_of).toISOString()}`);
  }
  const outside = refusals.filter((x) => !x.inWindow);
  const stored = await db.selectFrom('fx_rate_observations').select(['source', 'base', 'quote', 'bid']).execute();
  const ecbUsd = stored.find((o) => o.source === 'ecb' && o.quote === 'USD')?.bid;
  return [
    {
      name: 'live rates: every live conversion recorded its rate, none used a rate past its maximum age',
      ok: rows.rows.length > 0 && unrecorded.length === 0 && pastUsable.length === 0 && tooOld.length === 0,
      detail:
        `${rows.rows.length} live payouts, quotes and deposits; ${unrecorded.length} without a recorded rate [${unrecorded.slice(0, 3).join('; ')}], ` +
        `${pastUsable.length} after their rate's usable-until [${pastUsable.slice(0, 3).join('; ')}], ${tooOld.length} older than the route's maximum age [${tooOld.slice(0, 3).join('; ')}]`,
    },
    {
      name: 'live rates: refusals for want of a rate only during a source outage; the refused jump never stored',
      ok: outside.length === 0 && ecbUsd !== undefined && Number(ecbUsd) < 1.2,
      detail: `${refusals.length} payouts refused with channel_unavailable (missing rate), ${outside.length} outside an outage window [${outside.slice(0, 2).map((x) => x.message.slice(0, 120)).join('; ')}]; stored ECB EUR/USD ${ecbUsd ?? 'none'}`,
    },
  ];
}
