/**
 * Live prices from real rate sources (issue #33; docs/rates.md): the live sepa_eur channel over the
 * test bank, priced from the rate test servers (tools/rate-sources/server.ts) serving the ECB's
 * eurofxref-daily.xml and Kraken's Ticker. Expected rates are computed here, independently, from the
 * served decimal strings with exact BigInt arithmetic.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshRailHealth } from '../../src/core/rails/rail-adapters';
import { pollRailInbox } from '../../src/core/rails/inbox';
import { liveRate, refreshRateCache } from '../../src/core/rates/cache';
import { refreshRates } from '../../src/core/rates/refresher';
import { createQuote } from '../../src/core/quotes';
import { receiveDeposit } from '../../src/core/funding/deposits';
import type { Core } from '../../src/core/context';
import { metricsRegistry } from '../../src/core/metrics/registry';
import { startTestBank, type TestBank } from '../../tools/test-bank/bank';
import { skipWithoutTestSftpServer } from '../../tools/test-bank/sshd';
import { createHarness, type Harness } from '../helpers/harness';

const SKIP = skipWithoutTestSftpServer('test/e2e/live-rates.test.ts');

let h: Harness;
let bank: TestBank;
let dir: string;
let biz: { id: string; sandbox: string; live: string };

/** Decimal string -> [digits, 10^scale]. */
const frac = (s: string): [bigint, bigint] => {
  const [i, f = ''] = s.split('.');
  return [BigInt(i + f), 10n ** BigInt(f.length)];
};
/** n/d truncated to 10 decimals, trailing zeros trimmed. */
const trunc10 = (n: bigint, d: bigint): string => {
  const v = ((n * 10n ** 10n) / d).toString().padStart(11, '0');
  const f = v.slice(-10).replace(/0+$/, '');
  return f ? `${v.slice(0, -10)}.${f}` : v.slice(0, -10);
};
/** USDC -> EUR from Kraken's USDC/USD side and the ECB's EUR/USD, less `bps`. */
function expectedEur(usdcUsd: string, ecbUsd: string, bps: number): { reference: string; applied: string } {
  const [a, ad] = frac(usdcUsd);
  const [e, ed] = frac(ecbUsd);
  // (a/ad) / (e/ed) = a*ed / (ad*e)
  return { reference: trunc10(a * ed, ad * e), applied: trunc10(a * ed * BigInt(10_000 - bps), ad * e * 10_000n) };
}

async function waitFor<T>(fn: () => Promise<T | undefined | false | null>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A refresher round that surely fetched after the served data changed: the background refresher
 * may have a fetch in flight from before (a round joins it), so the second round starts after it.
 */
const round = async () => {
  await refreshRates(h.core);
  return refreshRates(h.core);
};

const recipient = { type: 'bank_account', holder_name: 'Marie Curie', iban: 'FR1420041010050500013M02606', recipient_kind: 'individual' };
const quote = (body: Record<string, unknown>) => h.request('POST', '/v1/quotes', { key: biz.live, body: { channel: 'sepa_eur', ...body } });
const payout = (body: Record<string, unknown>) => h.request('POST', '/v1/payouts', { key: biz.live, body: { channel: 'sepa_eur', recipient, ...body } });
const sepaStatus = async () => (await h.request('GET', '/v1/channels', { key: biz.live })).body.data.find((c: any) => c.id === 'sepa_eur').status;

beforeAll(async () => {
  if (SKIP) return;
  dir = mkdtempSync(join(tmpdir(), 'test-bank-rates-'));
  bank = await startTestBank({ dir, pollMs: 100 });
  h = await createHarness({
    env: {
      ...Object.fromEntries(Object.entries(bank.env).filter(([k]) => k.startsWith('RAIL_SEPA_'))),
      RAIL_SEPA_POLL_INTERVAL: 'PT0.3S',
      // Kraken's legs may be 4 s old here, so "every EUR source stale" takes seconds, not minutes.
      RATE_ROUTES: 'USD=kraken@PT4S,EUR=ecb@P4D|kraken@PT4S',
      RATE_SPREAD_BPS: 'default=50,sepa_eur=40',
      RATE_DEPOSIT_SPREAD_BPS: 'EUR=25',
      // The refresher runs every second (the harness's default); a test that changes the served
      // data runs a round itself (refreshRates) so the next quote sees it.
    },
  });
  await refreshRailHealth(h.core);
  // No inbox poller workflow: its id is one per rail and namespace, and test/e2e/live-sepa-rail.test.ts
  // runs one for SEPA; this file reads the bank's outbox itself (pollRailInbox).
  biz = await h.business();
}, 120_000);

afterAll(async () => {
  await h?.close();
  await bank?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(SKIP)('live rates from the rate sources', () => {
  it('a live EUR deposit converts at the ask side of the live rate with the deposit spread, recorded on the deposit', async () => {
    const va = await h.request('POST', '/v1/virtual-accounts', { key: biz.live, body: { currency: 'EUR' } });
    expect(va.status, JSON.stringify(va.body)).toBe(201);
    const row = await h.db.selectFrom('virtual_accounts').select('account_identifier').where('id', '=', va.body.id).executeTakeFirstOrThrow();
    bank.credit({ creditorIban: row.account_identifier, amountMinor: '500000', debtorName: 'Client AG', debtorIban: 'DE02120300000000202051', remittance: 'Top up', reference: 'RATES-0001' });
    const dep = await waitFor(
      async () => (await pollRailInbox(h.core, 'sepa_credit_transfer')) && h.db.selectFrom('deposits').selectAll().where('business_id', '=', biz.id).where('environment', '=', 'live').where('status', '=', 'credited').executeTakeFirst(),
      'the live deposit credited',
    );
    // Buying USDC with EUR: the ask side, 0.99990 / 1.0865 EUR per USDC.
    const ask = expectedEur('0.99990', '1.0865', 0).reference;
    expect(dep.rate).toBe(ask);
    expect(dep.rate_source).toBe('ecb+kraken');
    expect(dep.fx_spread_bps).toBe(25);
    const [n, d] = frac(ask);
    const gross = (500000n * 10n ** 4n * d) / n; // 5000.00 EUR in micro-USDC, floor
    expect(dep.gross_amount).toBe(gross);
    expect(dep.fee_fx_spread).toBe((gross * 25n + 9_999n) / 10_000n);
    const wire = await h.request('GET', `/v1/deposits/${dep.id}`, { key: biz.live });
    expect(wire.body.rate_details).toMatchObject({ source: 'ecb+kraken', spread_bps: 25, reference_rate: ask });
  });

  it('a live deposit whose rate expired while its transaction waited (a database failover) is not recorded; the retry prices it again', async () => {
    const va = await h.request('POST', '/v1/virtual-accounts', { key: biz.live, body: { currency: 'EUR' } });
    expect(va.status, JSON.stringify(va.body)).toBe(201);
    await round();
    // The clock jumps 10 minutes as the deposit's transaction begins: what waiting out a failover
    // (DATABASE_FAILOVER_WAIT) does to a rate priced just before (Kraken's legs: usable 4 s here).
    let shift = 0;
    const db = new Proxy(h.core.db, {
      get(target, prop) {
        if (prop === 'transaction') shift = 600_000;
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const waited = { ...h.core, db, now: () => new Date(Date.now() + shift) } as Core;
    const caller = { businessId: biz.id, environment: 'live' as const, keyId: 'key_test', role: 'owner' as const, policy: null };
    const input = { source: 'virtual_account' as const, virtualAccountId: va.body.id, amount: '10.00', currency: 'EUR', externalId: 'failover-rate-1' };
    await expect(receiveDeposit(waited, caller, input)).rejects.toThrow(/rate expired before the deposit was recorded/);
    const none = await h.db.selectFrom('deposits').select('id').where('business_id', '=', biz.id).where('external_id', '=', 'failover-rate-1').execute();
    expect(none).toHaveLength(0);
    const retried = await receiveDeposit(h.core, caller, input);
    const row = await h.db.selectFrom('deposits').selectAll().where('id', '=', retried.deposit.id).executeTakeFirstOrThrow();
    expect(retried.created).toBe(true);
    expect(row.rate_usable_until!.getTime()).toBeGreaterThanOrEqual(row.created_at.getTime());
  });

  it("a live EUR quote's rate is the served ECB and ticker rate less the corridor spread, with its source, as-of and the spread's cost", async () => {
    const r = await quote({ source_amount: '1000' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const want = expectedEur('0.99980', '1.0865', 40);
    expect(r.body.rate).toBe(want.applied);
    expect(r.body.rate_details).toMatchObject({ reference_rate: want.reference, source: 'ecb+kraken', spread_bps: 40 });
    // The oldest leg is the ECB's publication (yesterday, 12:15 UTC).
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect(r.body.rate_details.as_of).toBe(`${yesterday}T12:15:00.000Z`);
    // destination = floor(1000 * rate) in cents; the spread's cost 1000 * 0.40 % = 4.00 USDC, not charged on top.
    const [n, d] = frac(want.applied);
    expect(r.body.destination_amount).toBe(((1000n * 100n * n) / d / 100n).toString() + '.' + ((1000n * 100n * n) / d % 100n).toString().padStart(2, '0'));
    expect(r.body.fees.fx_spread).toBe('4.00');
    const row = await h.db.selectFrom('quotes').selectAll().where('id', '=', r.body.id).executeTakeFirstOrThrow();
    expect(row.rate_source).toBe('ecb+kraken');
    expect(row.fee_total).toBe(row.fee_provider + row.fee_service);
  });

  it('changing the served data changes the next quote; a quote within its 60 s keeps its rate for its payout', async () => {
    const before = await quote({ source_amount: '100' });
    expect(before.status).toBe(201);
    h.rates.set({ ecb: { ...h.rates.data.ecb, USD: '1.0921' }, kraken: { ...h.rates.data.kraken, USDCUSD: { bid: '0.99970', ask: '0.99995', last: '0.99980' } } });
    await round();
    const after = await quote({ source_amount: '100' });
    expect(after.body.rate).toBe(expectedEur('0.99970', '1.0921', 40).applied);
    expect(after.body.rate).not.toBe(before.body.rate);
    // The earlier quote, still within its 60 s, prices its payout at its own rate.
    const p = await payout({ quote_id: before.body.id });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    expect(p.body.rate).toBe(before.body.rate);
    expect(p.body.destination_amount).toBe(before.body.destination_amount);
    expect(p.body.rate_details).toEqual(before.body.rate_details);
    const row = await h.db.selectFrom('payouts').select(['rate_source', 'rate_as_of', 'reference_rate', 'fx_spread_bps']).where('id', '=', p.body.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ rate_source: 'ecb+kraken', reference_rate: before.body.rate_details.reference_rate, fx_spread_bps: 40 });
    // Without a quote a payout is priced now, at the new rate.
    const fresh = await payout({ source_amount: '100' });
    expect(fresh.status).toBe(201);
    expect(fresh.body.rate).toBe(after.body.rate);
  });

  it('an answer that does not parse, a source error and a jump beyond the bound are refused, counted and never used', async () => {
    const refusals = async (reason: string) => {
      const m = (await metricsRegistry.getSingleMetric('fx_rate_refusals_total')!.get()).values;
      return m.filter((v) => v.labels.reason === reason).reduce((s, v) => s + v.value, 0);
    };
    const rateBefore = (await quote({ source_amount: '100' })).body.rate;
    const unparseable = await refusals('unparseable');
    h.rates.mode('kraken', 'garbage');
    h.rates.mode('ecb', 'garbage');
    let outcomes = await round();
    expect(outcomes.find((o) => o.source === 'kraken')!.refused[0].reason).toBe('unparseable');
    expect(outcomes.find((o) => o.source === 'ecb')!.refused[0].reason).toBe('unparseable');
    expect(await refusals('unparseable')).toBeGreaterThanOrEqual(unparseable + 2);
    h.rates.mode('kraken', 'error');
    outcomes = await round();
    expect(outcomes.find((o) => o.source === 'kraken')!.refused[0]).toMatchObject({ reason: 'source_error', detail: expect.stringContaining('EService:Unavailable') });
    // The ECB's USD jumps 20 %: refused against the last accepted, the quote keeps the accepted rate.
    h.rates.mode('kraken', 'ok');
    h.rates.mode('ecb', 'ok');
    h.rates.set({ ecb: { ...h.rates.data.ecb, USD: '1.3105' } });
    const moved = await refusals('moved_beyond_bound');
    outcomes = await round();
    expect(outcomes.find((o) => o.source === 'ecb')!.refused[0].reason).toBe('moved_beyond_bound');
    expect(await refusals('moved_beyond_bound')).toBeGreaterThanOrEqual(moved + 1);
    expect((await quote({ source_amount: '100' })).body.rate).toBe(rateBefore);
    h.rates.set({ ecb: { ...h.rates.data.ecb, USD: '1.0921' } });
  });

  it("a process whose rate cache went stale while idle re-reads it before pricing: the refresher's newer rates are used, not refused", async () => {
    // Another process's view of the same database: its own cache entry (keyed by the db object).
    const api = { ...h.core, db: h.core.db.withoutPlugins() };
    const caller = { businessId: biz.id, environment: 'live' as const, keyId: 'key_test', role: 'owner' as const, policy: null };
    await refreshRateCache(api);
    expect('missing' in liveRate(api, 'EUR')).toBe(false);
    // Idle past Kraken's 4 s: the refresher (another process) keeps storing fresh rates meanwhile.
    await new Promise((r) => setTimeout(r, 4_500));
    await round();
    // The cached book alone would refuse: its Kraken leg is older than its maximum age.
    expect('missing' in liveRate(api, 'EUR')).toBe(true);
    const q = await createQuote(api, caller, { channel: 'sepa_eur', sourceAmount: '100' });
    expect(q.price.live?.source).toBe('ecb+kraken');
    expect(q.price.live!.usableUntil.getTime()).toBeGreaterThan(Date.now());
  }, 30_000);

  it('with every EUR source stale, live sepa_eur is paused and quotes and payouts answer 400 channel_unavailable naming the rate; back without a restart', async () => {
    expect(await sepaStatus()).toBe('live');
    h.rates.mode('ecb', 'stale');
    h.rates.mode('kraken', 'fail');
    await round();
    // Kraken's last accepted answer passes its 4 s; the ECB cross needs USDC/USD from Kraken too.
    await waitFor(async () => (await sepaStatus()) === 'paused', 'sepa_eur paused', 15_000);
    const q = await quote({ source_amount: '100' });
    expect(q.status).toBe(400);
    expect(q.body.error).toMatchObject({ code: 'channel_unavailable', param: 'channel' });
    expect(q.body.error.message).toMatch(/USDC\/EUR/);
    const p = await payout({ source_amount: '100' });
    expect(p.status).toBe(400);
    expect(p.body.error).toMatchObject({ code: 'channel_unavailable', param: 'channel' });
    expect(p.body.error.message).toMatch(/USDC\/EUR/);
    const metrics = (await metricsRegistry.getSingleMetric('fx_rate_available')!.get()).values;
    expect(metrics.find((v) => v.labels.currency === 'EUR')?.value).toBe(0);

    h.rates.mode('kraken', 'ok');
    h.rates.mode('ecb', 'ok');
    await round();
    expect(await sepaStatus()).toBe('live');
    const again = await quote({ source_amount: '100' });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    const ok = await payout({ source_amount: '100' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  }, 60_000);
});
