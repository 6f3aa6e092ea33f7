/**
 * Money math of live pricing, proven with properties (fast-check; docs/rates.md "Precision and
 * rounding"): conversion and rounding to each currency's minor units (0 for JPY and KRW, 3 for BHD
 * and KWD), triangulation, spreads, deposit conversion and route resolution. Every expectation is
 * computed here from exact rationals, independently of the code under test.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findChannel } from '../../src/domain/channels';
import { convertDeposit } from '../../src/domain/funding';
import { divDecimal, exponent, mulDecimal, parseDecimal, USDC } from '../../src/domain/money';
import { price } from '../../src/domain/pricing';
import { type RateObservation, parseRateRoutes, resolveRate } from '../../src/domain/rate-routes';
import { crossRate, formatRate, lessSpread, moveBps, RATE_SCALE, rateAtMost, spreadCost } from '../../src/domain/rates';

/** Cases per property: 400, fewer under mutation testing (stryker.vitest.config.ts). */
const RUNS = { numRuns: Number(process.env.RATES_PROPERTY_RUNS ?? 400) };
const CURRENCIES = ['USD', 'EUR', 'MXN', 'JPY', 'KRW', 'BHD', 'KWD'] as const;

/** A positive decimal string with up to `maxScale` decimals and a value in a realistic rate range. */
const rateArb = (maxScale = RATE_SCALE) =>
  fc
    .tuple(fc.bigInt({ min: 1n, max: 10n ** 16n }), fc.integer({ min: 0, max: maxScale }))
    .map(([digits, scale]) => {
      const s = digits.toString().padStart(scale + 1, '0');
      const str = scale === 0 ? s : `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
      return str;
    })
    .filter((s) => {
      const d = parseDecimal(s);
      // between 0.0001 and 1 000 000 units per unit: every currency pair that exists.
      return d.digits * 10_000n >= 10n ** BigInt(d.scale) && d.digits <= 1_000_000n * 10n ** BigInt(d.scale);
    });

/** Exact value of a decimal string as [numerator, denominator]. */
const exact = (s: string): [bigint, bigint] => {
  const d = parseDecimal(s);
  return [d.digits, 10n ** BigInt(d.scale)];
};

const microUsdc = fc.bigInt({ min: 1n, max: 50_000_000_000n }); // up to 50 000 USDC (the largest channel limit)

describe('conversion at a rate rounds to the currency minor units, never against the rule', () => {
  it('minor units: USDC 6, JPY/KRW 0, BHD/KWD 3, EUR/USD/MXN 2', () => {
    expect([USDC, 'JPY', 'KRW', 'BHD', 'KWD', 'EUR', 'USD', 'MXN'].map(exponent)).toEqual([6, 0, 0, 3, 3, 2, 2, 2]);
  });

  it('paid out: floor(source x rate) in minor units: at most what the source buys, less than one minor unit below it', () => {
    fc.assert(
      fc.property(microUsdc, rateArb(), fc.constantFrom(...CURRENCIES), (source, rate, currency) => {
        const dest = mulDecimal(source, parseDecimal(rate), USDC, currency, 'floor');
        const [n, d] = exact(rate);
        // exact destination in minor units = source * n / d * 10^exp / 10^6
        const N = source * n * 10n ** BigInt(exponent(currency));
        const D = d * 10n ** 6n;
        expect(dest * D <= N).toBe(true);
        expect(N < (dest + 1n) * D).toBe(true);
      }),
      RUNS,
    );
  });

  it('charged: ceil(destination / rate) in micro-USDC: the recipient gets at least what was asked, overpaid by less than one micro-USDC', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 12n }), rateArb(), fc.constantFrom(...CURRENCIES), (dest, rate, currency) => {
        const source = divDecimal(dest, parseDecimal(rate), USDC, currency, 'ceil');
        const [n, d] = exact(rate);
        // source * rate (in destination minor units) >= dest, and (source - 1) * rate < dest.
        const buys = (s: bigint) => s * n * 10n ** BigInt(exponent(currency));
        const want = dest * d * 10n ** 6n;
        expect(buys(source) >= want).toBe(true);
        expect(buys(source - 1n) < want).toBe(true);
      }),
      RUNS,
    );
  });
});

describe('triangulation to the stated precision', () => {
  it('a cross rate is truncated once: r <= exact < r + 10^-10, for any legs, inverted or not', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ rate: rateArb(8), invert: fc.boolean() }), { minLength: 1, maxLength: 3 }), (legs) => {
        const f = crossRate(legs);
        let n = 1n;
        let d = 1n;
        for (const l of legs) {
          const [a, b] = exact(l.rate);
          if (l.invert) [n, d] = [n * b, d * a];
          else [n, d] = [n * a, d * b];
        }
        expect(f.n * d).toBe(n * f.d); // the exact cross is exact
        let r: string;
        try {
          r = formatRate(f);
        } catch {
          // below 10^-10: refused, never rounded to zero
          expect(n * 10n ** 10n < d).toBe(true);
          return;
        }
        const [rn, rd] = exact(r);
        expect(rn * d <= n * rd).toBe(true);
        expect(n * rd * 10n ** 10n < (rn * 10n ** 10n + rd) * d).toBe(true);
      }),
      RUNS,
    );
  });

  it('USDC -> EUR from USDC/USD and the ECB EUR/USD: the bid side is never above the ask side', () => {
    fc.assert(
      fc.property(rateArb(5), rateArb(5), rateArb(4), (a, b, ecb) => {
        const [bid, ask] = rateAtMost(a, b) ? [a, b] : [b, a];
        const rBid = formatRate(crossRate([{ rate: bid }, { rate: ecb, invert: true }]));
        const rAsk = formatRate(crossRate([{ rate: ask }, { rate: ecb, invert: true }]));
        expect(rateAtMost(rBid, rAsk)).toBe(true);
      }),
      RUNS,
    );
  });
});

describe('spreads', () => {
  it('the applied rate is the exact reference less bps, truncated once; never above the reference; 0 bps is the reference', () => {
    fc.assert(
      fc.property(rateArb(), fc.integer({ min: 0, max: 5000 }), (rate, bps) => {
        const f = crossRate([{ rate }]);
        const applied = formatRate(lessSpread(f, bps));
        const [an, ad] = exact(applied);
        const [n, d] = exact(rate);
        const N = n * BigInt(10_000 - bps);
        const D = d * 10_000n;
        expect(an * D <= N * ad).toBe(true);
        expect(N * ad * 10n ** 10n < (an * 10n ** 10n + ad) * D).toBe(true);
        expect(rateAtMost(applied, formatRate(f))).toBe(true);
        if (bps === 0) expect(applied).toBe(formatRate(f));
      }),
      RUNS,
    );
  });

  it('a live price: destination = floor(source x applied rate), within one minor unit of the exact spread-adjusted value; the spread cost is shown, not charged on top', () => {
    const channels = ['sepa_eur', 'ach_usd', 'spei_mxn', 'bank_jpy'].map((id) => findChannel(id)!);
    fc.assert(
      fc.property(fc.constantFrom(...channels), rateArb(6), fc.integer({ min: 0, max: 300 }), fc.bigInt({ min: 1n, max: 10n ** 10n }), (channel, ref, bps, extra) => {
        const min = 10n ** 6n * 1000n; // inside every channel's limits
        const source = min + (extra % (5_000_000_000n - min));
        const reference = crossRate([{ rate: ref }]);
        let p;
        try {
          p = price({ channel, midRate: '1', sourceAmount: source, live: { referenceRate: reference, spreadBps: bps, source: 'ecb+kraken', asOf: new Date(0), usableUntil: new Date(1) } });
        } catch (e) {
          if ((e as { code?: string }).code === 'amount_out_of_range') return;
          throw e;
        }
        const [n, d] = exact(ref);
        const exp = 10n ** BigInt(exponent(channel.currency));
        // exact value in destination minor units: source/10^6 * ref * (1 - bps/10^4) * 10^exp
        const N = source * n * BigInt(10_000 - bps) * exp;
        const D = 10n ** 6n * d * 10_000n;
        const floorExact = N / D;
        expect(p.destinationAmount <= floorExact).toBe(true);
        expect(p.destinationAmount >= floorExact - 1n).toBe(true);
        expect(p.rate).toBe(formatRate(lessSpread(reference, bps)));
        expect(p.live).toMatchObject({ referenceRate: formatRate(reference), spreadBps: bps });
        // spread cost half up: |cost * 10^4 - source * bps| <= 10^4 / 2
        const diff = p.fees.fxSpread * 10_000n - source * BigInt(bps);
        expect(diff <= 5_000n && diff > -5_000n).toBe(true);
        expect(p.fees.total).toBe(p.fees.provider + p.fees.service);
        expect(p.debitTotal).toBe(source + p.fees.total);
      }),
      RUNS,
    );
  });

  it('spreadCost rounds half up and is exact at whole micro-USDC', () => {
    expect(spreadCost(1_000_000n, 40)).toBe(4_000n);
    expect(spreadCost(1n, 5_000)).toBe(1n); // 0.5 -> 1
    expect(spreadCost(1n, 4_999)).toBe(0n);
    expect(() => spreadCost(1n, 5_001)).toThrow();
    expect(() => lessSpread({ n: 1n, d: 1n }, -1)).toThrow();
  });

  it("a card deposit's processing fee is the processor's fee at the deposit's rate, rounded up; without it, 2.9 % + 0.30", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 100n, max: 10n ** 9n }), fc.bigInt({ min: 0n, max: 10n ** 6n }), rateArb(6), fc.constantFrom('EUR', 'USD', 'MXN'), (amount, fee, rate, currency) => {
        const c = convertDeposit(amount, currency, rate, 'card', 0, fee);
        const [n, d] = exact(rate);
        // fee micro-USDC = fee * d * 10^4 / n, rounded up
        expect(c.fees.processing * n >= fee * d * 10n ** 4n).toBe(true);
        expect((c.fees.processing - 1n) * n < fee * d * 10n ** 4n).toBe(true);
        expect(c.fees.total).toBe(c.fees.fxSpread + c.fees.processing);
        expect(c.netAmount).toBe(c.grossAmount - c.fees.total);
        const plain = convertDeposit(amount, currency, rate, 'card', 0, null);
        expect(plain.fees.processing).toBe(convertDeposit(amount, currency, rate, 'card', 0).fees.processing);
        // Not a card: no processing fee, whatever is passed.
        expect(convertDeposit(amount, currency, rate, 'virtual_account', 0, fee).fees.processing).toBe(0n);
      }),
      RUNS,
    );
    expect(convertDeposit(10_000n, 'USD', '1', 'card').fees.processing).toBe(3_200_000n);
    expect(convertDeposit(10_000n, 'USD', '1', 'card', 0, 175n).fees.processing).toBe(1_750_000n);
  });

  it('a live deposit: gross = floor(amount / ask rate) in micro-USDC; the spread fee rounds up; the credit never exceeds what the amount buys', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 9n }), rateArb(6), fc.integer({ min: 0, max: 500 }), fc.constantFrom('EUR', 'USD', 'MXN'), (amount, rate, bps, currency) => {
        const c = convertDeposit(amount, currency, rate, 'virtual_account', bps);
        const [n, d] = exact(rate);
        // gross micro-USDC = amount / 10^2 / (n/d) * 10^6 = amount * d * 10^4 / n
        const N = amount * d * 10n ** 4n;
        expect(c.grossAmount * n <= N).toBe(true);
        expect(N < (c.grossAmount + 1n) * n).toBe(true);
        expect(c.fees.fxSpread * 10_000n >= c.grossAmount * BigInt(bps)).toBe(true);
        expect((c.fees.fxSpread - 1n) * 10_000n < c.grossAmount * BigInt(bps)).toBe(true);
        expect(c.netAmount).toBe(c.grossAmount - c.fees.total);
        expect(c.rate).toBe(rate);
      }),
      RUNS,
    );
  });
});

describe('the move bound', () => {
  it('moveBps is the relative move rounded up: 0 for the same rate, >= the exact move', () => {
    fc.assert(
      fc.property(rateArb(6), rateArb(6), (a, b) => {
        expect(moveBps(a, a)).toBe(0n);
        const m = moveBps(a, b);
        const [an, ad] = exact(a);
        const [bn, bd] = exact(b);
        const diff = bn * ad - an * bd;
        const absDiff = diff < 0n ? -diff : diff;
        // m >= |b - a| / a * 10^4 and m - 1 < it
        expect(m * bd * an >= absDiff * 10_000n).toBe(true);
        expect((m - 1n) * bd * an < absDiff * 10_000n).toBe(true);
      }),
      RUNS,
    );
    expect(moveBps('1.0865', '1.0921')).toBe(52n);
  });
});

describe('route resolution: never a rate past its maximum age', () => {
  const routes = parseRateRoutes('USD=kraken@PT5M,EUR=ecb@P4D|kraken@PT5M,MXN=banxico@P4D|ecb@P4D');
  const now = new Date('2026-11-26T15:00:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const MIN = 60_000;
  const DAY = 86_400_000;

  it('whenever a rate is given, every leg it used is within its maximum age, and usableUntil is after now', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 * MIN }),
        fc.integer({ min: 0, max: 20 * MIN }),
        fc.integer({ min: 0, max: 8 * DAY }),
        fc.integer({ min: 0, max: 8 * DAY }),
        fc.constantFrom('EUR', 'MXN', 'USD'),
        (krakenUsdAge, krakenEurAge, ecbAge, banxicoAge, currency) => {
          const obs: RateObservation[] = [
            { source: 'kraken', base: 'USDC', quote: 'USD', bid: '0.9998', ask: '0.9999', asOf: ago(krakenUsdAge) },
            { source: 'kraken', base: 'USDC', quote: 'EUR', bid: '0.9199', ask: '0.9203', asOf: ago(krakenEurAge) },
            { source: 'ecb', base: 'EUR', quote: 'USD', bid: '1.0865', ask: '1.0865', asOf: ago(ecbAge) },
            { source: 'ecb', base: 'EUR', quote: 'MXN', bid: '18.5283', ask: '18.5283', asOf: ago(ecbAge) },
            { source: 'banxico', base: 'USD', quote: 'MXN', bid: '17.0512', ask: '17.0512', asOf: ago(banxicoAge) },
          ];
          const r = resolveRate(currency, routes, obs, now);
          const usdFresh = krakenUsdAge <= 5 * MIN;
          const expectSource =
            currency === 'USD'
              ? usdFresh ? 'kraken' : undefined
              : currency === 'EUR'
                ? usdFresh && ecbAge <= 4 * DAY ? 'ecb+kraken' : krakenEurAge <= 5 * MIN ? 'kraken' : undefined
                : usdFresh && banxicoAge <= 4 * DAY ? 'banxico+kraken' : usdFresh && ecbAge <= 4 * DAY ? 'ecb+kraken' : undefined;
          if (expectSource === undefined) {
            expect('missing' in r).toBe(true);
            if ('missing' in r) expect(r.reasons.length).toBeGreaterThan(0);
            return;
          }
          expect('missing' in r).toBe(false);
          if ('missing' in r) return;
          expect(r.source).toBe(expectSource);
          expect(r.usableUntil.getTime()).toBeGreaterThanOrEqual(now.getTime());
          expect(now.getTime() - r.asOf.getTime()).toBeLessThanOrEqual(4 * DAY);
          expect(rateAtMost(r.bid, r.ask)).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it('the ECB cross of MXN divides EUR/MXN by EUR/USD; USDC is 1', () => {
    const obs: RateObservation[] = [
      { source: 'kraken', base: 'USDC', quote: 'USD', bid: '1', ask: '1', asOf: now },
      { source: 'ecb', base: 'EUR', quote: 'USD', bid: '1.25', ask: '1.25', asOf: now },
      { source: 'ecb', base: 'EUR', quote: 'MXN', bid: '20', ask: '20', asOf: now },
    ];
    const r = resolveRate('MXN', parseRateRoutes('USD=kraken@PT5M,MXN=ecb@P4D'), obs, now);
    expect('missing' in r ? r.reasons : r.bid).toBe('16');
    expect(resolveRate('USDC', routes, [], now)).toMatchObject({ bid: '1', ask: '1' });
    expect(resolveRate('KES', routes, [], now)).toMatchObject({ missing: true, reasons: ['no rate source is configured for KES'] });
  });

  it('route settings are parsed strictly', () => {
    expect(parseRateRoutes('EUR=ecb@P4D|kraken@PT5M')).toEqual({ EUR: [{ source: 'ecb', maxAgeMs: 4 * DAY }, { source: 'kraken', maxAgeMs: 5 * MIN }] });
    for (const bad of ['EUR', 'EUR=ecb', 'EUR=ecb@P1Y', 'eur=ecb@P1D', 'EUR=ecb@PT0S']) expect(() => parseRateRoutes(bad), bad).toThrow();
  });
});
