/**
 * The rate domain's exact cases and refusals (docs/rates.md): route resolution's fallbacks, ages,
 * reasons and provenance, settings parsing, and the guards of the money, pricing and rate code. With
 * test/unit/rates-properties.test.ts this is what the mutation run scores (docs/testing.md).
 */
import { describe, expect, it } from 'vitest';
import { findChannel } from '../../src/domain/channels';
import { ApiError } from '../../src/domain/errors';
import { AmountFormatError, divDecimal, formatAmount, formatDecimal, parseAmountParam, parseDecimal, USDC } from '../../src/domain/money';
import { price } from '../../src/domain/pricing';
import { formatRateDetails } from '../../src/wire/surface-a/fees';
import { parseIntMap, parseRateRoutes, type RateObservation, rateBook, resolveRate } from '../../src/domain/rate-routes';
import { crossRate, formatRate, lessSpread, moveBps, rateAtMost, rateFraction, spreadCost } from '../../src/domain/rates';

const now = new Date('2026-11-26T15:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const obs = (source: string, base: string, quote: string, bid: string, ask: string, age: number): RateObservation => ({ source, base, quote, bid, ask, asOf: ago(age) });
const MIN = 60_000;
const DAY = 86_400_000;
const routes = parseRateRoutes('USD=kraken@PT5M,EUR=ecb@P4D|kraken@PT5M,MXN=banxico@P4D|ecb@P4D');

describe('resolveRate', () => {
  it('the ECB cross: bid and ask from USDC/USD, as-of the oldest leg, usable until the first leg passes its age', () => {
    const r = resolveRate('EUR', routes, [obs('kraken', 'USDC', 'USD', '0.9998', '1.0002', 30_000), obs('ecb', 'EUR', 'USD', '1.25', '1.25', DAY)], now);
    expect(r).toMatchObject({ currency: 'EUR', source: 'ecb+kraken', bid: '0.79984', ask: '0.80016', asOf: ago(DAY), usableUntil: new Date(ago(30_000).getTime() + 5 * MIN) });
    // ECB newer than Kraken: as-of is Kraken's, usable until the ECB's 4 days unless Kraken ends first.
    const r2 = resolveRate('EUR', routes, [obs('kraken', 'USDC', 'USD', '1', '1', 10_000), obs('ecb', 'EUR', 'USD', '1.25', '1.25', 0)], now);
    expect(r2).toMatchObject({ asOf: ago(10_000), usableUntil: new Date(ago(10_000).getTime() + 5 * MIN) });
    const r3 = resolveRate('EUR', parseRateRoutes('USD=kraken@P10D,EUR=ecb@P4D'), [obs('kraken', 'USDC', 'USD', '1', '1', 0), obs('ecb', 'EUR', 'USD', '1.25', '1.25', DAY)], now);
    expect(r3).toMatchObject({ asOf: ago(DAY), usableUntil: new Date(ago(DAY).getTime() + 4 * DAY) });
  });

  it('a leg with bid and ask counts at its mid; a direct pair at its own bid and ask', () => {
    const r = resolveRate('MXN', routes, [obs('kraken', 'USDC', 'USD', '1', '1', 0), obs('banxico', 'USD', 'MXN', '16.95', '17.1', 0)], now);
    expect(r).toMatchObject({ bid: '17.025', ask: '17.025', source: 'banxico+kraken' });
    const d = resolveRate('EUR', parseRateRoutes('EUR=kraken@PT5M'), [obs('kraken', 'USDC', 'EUR', '0.91', '0.93', 0)], now);
    expect(d).toMatchObject({ bid: '0.91', ask: '0.93', source: 'kraken' });
  });

  it('exactly at its maximum age a source is still used; a millisecond later the fallback is', () => {
    const base = [obs('kraken', 'USDC', 'USD', '1', '1', 0), obs('kraken', 'USDC', 'EUR', '0.9', '0.9', 0)];
    expect(resolveRate('EUR', routes, [...base, obs('ecb', 'EUR', 'USD', '1.25', '1.25', 4 * DAY)], now)).toMatchObject({ source: 'ecb+kraken' });
    expect(resolveRate('EUR', routes, [...base, obs('ecb', 'EUR', 'USD', '1.25', '1.25', 4 * DAY + 1)], now)).toMatchObject({ source: 'kraken', bid: '0.9' });
  });

  it('says why each source was not used', () => {
    expect(resolveRate('EUR', routes, [obs('ecb', 'EUR', 'USD', '1.25', '1.25', 0)], now)).toEqual({
      currency: 'EUR',
      missing: true,
      reasons: ['ecb: needs USDC/USD, which has no usable rate (kraken: has no observation for USDC/USD)', 'kraken: has no observation for USDC/EUR'],
    });
    const stale = resolveRate('EUR', routes, [obs('kraken', 'USDC', 'USD', '1', '1', 0), obs('ecb', 'EUR', 'USD', '1.25', '1.25', 5 * DAY), obs('kraken', 'USDC', 'EUR', '0.9', '0.9', 6 * MIN)], now);
    expect(stale).toEqual({
      currency: 'EUR',
      missing: true,
      reasons: [
        `ecb: EUR/USD as of ${ago(5 * DAY).toISOString()} is older than its maximum age`,
        `kraken: USDC/EUR as of ${ago(6 * MIN).toISOString()} is older than its maximum age`,
      ],
    });
    expect(resolveRate('KES', routes, [], now)).toEqual({ currency: 'KES', missing: true, reasons: ['no rate source is configured for KES'] });
    expect(resolveRate('KES', { KES: [] }, [], now)).toMatchObject({ missing: true });
  });

  it('USD is never triangulated through itself; a cross source cannot state USD', () => {
    const r = resolveRate('USD', parseRateRoutes('USD=ecb@P4D'), [obs('ecb', 'EUR', 'USD', '1.25', '1.25', 0)], now);
    expect(r).toEqual({ currency: 'USD', missing: true, reasons: ['ecb: has no observation for USDC/USD'] });
    // The USD leg of a cross is resolved once: no cross of a cross.
    const viaEcbUsd = resolveRate('EUR', parseRateRoutes('USD=ecb@P4D,EUR=ecb@P4D'), [obs('ecb', 'EUR', 'USD', '1.25', '1.25', 0)], now);
    expect(viaEcbUsd).toMatchObject({ missing: true });
  });

  it('USDC is par; a cross without the EUR/USD leg is not a cross', () => {
    expect(resolveRate('USDC', {}, [], now)).toMatchObject({ bid: '1', ask: '1', source: 'par', bidExact: { n: 1n, d: 1n } });
    const r = resolveRate('GBP', parseRateRoutes('USD=kraken@PT5M,GBP=ecb@P4D'), [obs('kraken', 'USDC', 'USD', '1', '1', 0), obs('ecb', 'EUR', 'GBP', '0.8', '0.8', 0)], now);
    expect(r).toMatchObject({ missing: true, reasons: ['ecb: has no observation for USDC/GBP'] });
    const g = resolveRate('GBP', parseRateRoutes('USD=kraken@PT5M,GBP=ecb@P4D'), [obs('kraken', 'USDC', 'USD', '1', '1', 0), obs('ecb', 'EUR', 'USD', '1.25', '1.25', 0), obs('ecb', 'EUR', 'GBP', '0.8', '0.8', 0)], now);
    expect(g).toMatchObject({ bid: '0.64', source: 'ecb+kraken' });
  });

  it('rateBook keeps the latest observation of each source and pair', () => {
    const book = rateBook([obs('ecb', 'EUR', 'USD', '1.1', '1.1', DAY), obs('ecb', 'EUR', 'USD', '1.2', '1.2', 0), obs('ecb', 'EUR', 'USD', '1.3', '1.3', 2 * DAY)]);
    expect(book.get('ecb:EUR/USD')?.bid).toBe('1.2');
    expect(book.size).toBe(1);
    const same = rateBook([obs('ecb', 'EUR', 'USD', '1.1', '1.1', 0), obs('ecb', 'EUR', 'USD', '1.2', '1.2', 0)]);
    expect(same.get('ecb:EUR/USD')?.bid).toBe('1.2');
  });
});

describe('settings', () => {
  it('parseRateRoutes trims entries and refuses anything else', () => {
    expect(parseRateRoutes(' USD=kraken@PT5M , EUR=ecb@P4D| kraken@PT5M ,')).toEqual({
      USD: [{ source: 'kraken', maxAgeMs: 5 * MIN }],
      EUR: [{ source: 'ecb', maxAgeMs: 4 * DAY }, { source: 'kraken', maxAgeMs: 5 * MIN }],
    });
    for (const bad of ['xEUR=ecb@P4D', 'EUR=ecb@P4Dx x', 'EUR=Ecb@P4D', 'EUR=ecb@P4D|', 'EUR=ecb@nope', 'EUR=ecb@PT0S']) expect(() => parseRateRoutes(bad), bad).toThrow(/rate route/);
    expect(() => parseRateRoutes('EUR=ecb@P4D extra')).toThrow('is not source@maxAge');
    expect(() => parseRateRoutes('EUR=ecb@P1Y')).toThrow('is not an ISO 8601 duration');
    expect(() => parseRateRoutes('EUR')).toThrow('expected CUR=source@maxAge');
    expect(() => parseRateRoutes('EUR=ecb@0')).toThrow('maximum age must be positive');
  });

  it('parseIntMap reads key=integer pairs up to the maximum', () => {
    expect(parseIntMap(' default=50 ,sepa_eur=40,bus_1:ach_usd=0,', 5000, 'X')).toEqual({ default: 50, sepa_eur: 40, 'bus_1:ach_usd': 0 });
    expect(parseIntMap('a=5000', 5000, 'X')).toEqual({ a: 5000 });
    expect(parseIntMap('', 5000, 'X')).toEqual({});
    expect(() => parseIntMap('a=5001', 5000, 'X')).toThrow('X "a=5001": at most 5000');
    for (const bad of ['a', 'a=-1', 'a=1.5', 'a b=1', '=1', 'a=1x', 'xa=1 y']) expect(() => parseIntMap(bad, 5000, 'X'), bad).toThrow('X "');
    expect(() => parseIntMap('a=x', 5000, 'X')).toThrow('expected key=integer');
  });
});

describe('rate arithmetic guards', () => {
  it('refuses non-positive rates, no legs, out-of-range spreads and rates below the precision', () => {
    expect(() => rateFraction('0')).toThrow('rate must be positive, got "0"');
    expect(rateFraction('0.5')).toEqual({ n: 5n, d: 10n });
    expect(() => crossRate([])).toThrow('crossRate: no legs');
    expect(() => formatRate({ n: 1n, d: 10n ** 11n })).toThrow('rate below the stated precision');
    expect(formatRate({ n: 1n, d: 10n ** 10n })).toBe('0.0000000001');
    expect(formatRate({ n: 5n, d: 1n })).toBe('5');
    for (const bps of [-1, 1.5, 5001]) {
      expect(() => lessSpread({ n: 1n, d: 1n }, bps)).toThrow('spread must be 0 to 5000 bps');
      expect(() => spreadCost(1n, bps)).toThrow('spread must be 0 to 5000 bps');
    }
    expect(formatRate(lessSpread({ n: 1n, d: 1n }, 5000))).toBe('0.5');
    expect(spreadCost(10_000n, 5000)).toBe(5_000n);
    expect(spreadCost(10_000n, 0)).toBe(0n);
  });

  it('moveBps in both directions; rateAtMost is <=', () => {
    expect(moveBps('1.1', '1.0')).toBe(910n); // 0.1 / 1.1 = 909.09.. bps, rounded up
    expect(moveBps('1.0', '1.1')).toBe(1000n);
    expect(rateAtMost('1', '1')).toBe(true);
    expect(rateAtMost('1.1', '1')).toBe(false);
    expect(rateAtMost('0.9', '1')).toBe(true);
  });

  it('formatRateDetails renders the wire provenance', () => {
    expect(formatRateDetails({ referenceRate: '0.92', source: 'ecb+kraken', asOf: now, spreadBps: 40 })).toEqual({ reference_rate: '0.92', source: 'ecb+kraken', as_of: '2026-11-26T15:00:00.000Z', spread_bps: 40 });
  });
});

describe('pricing and money guards', () => {
  const spei = findChannel('spei_mxn')!;
  const apiError = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return e;
    }
    return undefined;
  };
  it('price refuses both or neither amount, a zero rate and zero amounts; out of range names the amount given', () => {
    expect(() => price({ channel: spei, midRate: '17', sourceAmount: 1n, destinationAmount: 1n })).toThrow('price: give exactly one of sourceAmount and destinationAmount');
    expect(() => price({ channel: spei, midRate: '17' })).toThrow('exactly one');
    expect(() => price({ channel: spei, midRate: '0', sourceAmount: 10_000_000n })).toThrow('price: rate must be positive, got "0"');
    expect(() => price({ channel: spei, midRate: '17', sourceAmount: 0n })).toThrow('price: sourceAmount must be positive');
    expect(() => price({ channel: spei, midRate: '17', destinationAmount: 0n })).toThrow('price: destinationAmount must be positive');
    const e = apiError(() => price({ channel: spei, midRate: '17.05', destinationAmount: 100n })) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect([e.code, e.param]).toEqual(['amount_out_of_range', 'destination_amount']);
    expect(e.message).toBe('destination_amount on spei_mxn needs a source amount of 0.058652 USDC; it must be between 1.00 and 50000.00 USDC');
    const s = apiError(() => price({ channel: spei, midRate: '17.05', sourceAmount: 100n })) as ApiError;
    expect([s.param, s.message]).toEqual(['source_amount', 'source_amount on spei_mxn must be between 1.00 and 50000.00 USDC']);
  });

  it('parseAmountParam: 400 validation_error naming the param', () => {
    expect(parseAmountParam('1.50', 'USD', 'amount')).toBe(150n);
    const notString = apiError(() => parseAmountParam(5, 'USD', 'amount')) as ApiError;
    expect([notString.code, notString.param, notString.message]).toEqual(['validation_error', 'amount', 'amount must be a decimal string such as "100.00"']);
    const bad = apiError(() => parseAmountParam('1.234', 'USD', 'amount')) as ApiError;
    expect([bad.code, bad.param, bad.message]).toEqual(['validation_error', 'amount', 'amount: USD amounts take at most 2 decimals']);
    expect(apiError(() => parseAmountParam('1.234', 'BHD', 'amount'))).toBeUndefined();
  });

  it('formatting and parsing edge cases', () => {
    expect(formatAmount(-5n, 'JPY')).toBe('-5');
    expect(formatAmount(5n, 'JPY')).toBe('5');
    expect(formatAmount(0n, 'USD')).toBe('0.00');
    expect(formatAmount(-150n, 'USD')).toBe('-1.50');
    expect(formatAmount(1_500n, 'BHD')).toBe('1.500');
    expect(formatAmount(1_500_000n, USDC)).toBe('1.50');
    expect(formatDecimal({ digits: 5n, scale: 0 })).toBe('5');
    expect(() => parseDecimal('abc')).toThrow('"abc" is not a decimal number');
    expect(() => divDecimal(1n, { digits: 0n, scale: 0 }, USDC, 'USD', 'ceil')).toThrow('division by a zero rate');
    expect(new AmountFormatError('x', 'format').name).toBe('AmountFormatError');
  });
});
