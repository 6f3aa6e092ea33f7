import { describe, expect, it } from 'vitest';
import { findChannel } from '../../src/domain/channels';
import { ApiError } from '../../src/domain/errors';
import { price } from '../../src/domain/pricing';
import { formatFees } from '../../src/wire/surface-a/fees';
import { midRate } from '../../src/sandbox/fx';

// spei_mxn: provider 0.3 % + 0.25 USDC, service 0.5 %, FX spread 0.35 %, limits 1 - 50,000 USDC.
const spei = findChannel('spei_mxn')!;

function apiErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected an ApiError');
}

describe('price from a source amount', () => {
  it('converts at the mid rate and charges fees on top', () => {
    const p = price({ channel: spei, midRate: '17.05', sourceAmount: 100_000_000n });
    // 100 USDC * 17.05 = 1705.00 MXN.
    expect(p.destinationAmount).toBe(170_500n);
    expect(p.destinationCurrency).toBe('MXN');
    expect(p.sourceCurrency).toBe('USDC');
    expect(p.rate).toBe('17.05');
    // provider 0.3 % of 100 = 0.30 + 0.25 flat = 0.55; service 0.5 % = 0.50; FX 0.35 % = 0.35.
    expect(p.fees).toEqual({ provider: 550_000n, service: 500_000n, fxSpread: 350_000n, total: 1_400_000n });
    expect(p.debitTotal).toBe(101_400_000n);
    expect(formatFees(p)).toEqual({ provider: '0.55', service: '0.50', fx_spread: '0.35', total: '1.40', currency: 'USDC' });
  });

  it('floors the destination and rounds each fee up', () => {
    const p = price({ channel: spei, midRate: '17.05', sourceAmount: 10_000_001n });
    // 10.000001 * 17.05 = 170.50001705 MXN -> 170.50 (floor).
    expect(p.destinationAmount).toBe(17_050n);
    // provider: 0.3 % of 10.000001 = 0.030000003 -> 0.030001, + 0.25 = 0.280001
    // service:  0.5 % = 0.050000005 -> 0.050001;  FX: 0.35 % = 0.0350000035 -> 0.035001
    expect(p.fees).toEqual({ provider: 280_001n, service: 50_001n, fxSpread: 35_001n, total: 365_003n });
    expect(p.debitTotal).toBe(10_365_004n);
    expect(formatFees(p).total).toBe('0.365003');
  });

  it('handles zero-decimal currencies', () => {
    const jpy = findChannel('bank_jpy')!;
    // 12.345678 USDC * 152.3 = 1880.2467... JPY -> 1880 yen.
    const p = price({ channel: jpy, midRate: '152.3', sourceAmount: 12_345_678n });
    expect(p.destinationAmount).toBe(1880n);
  });

  it('does not convert on same-currency channels', () => {
    const ach = findChannel('ach_usd')!;
    // 25.999999 USDC -> 25.99 USD (floor to cents); fees: 0 % + 0.50 flat, service 0.5 % = 0.129999995 -> 0.13.
    const p = price({ channel: ach, midRate: midRate('USD'), sourceAmount: 25_999_999n });
    expect(p.destinationAmount).toBe(2599n);
    expect(p.fees).toEqual({ provider: 500_000n, service: 130_000n, fxSpread: 0n, total: 630_000n });
  });
});

describe('price from a destination amount', () => {
  it('rounds the source up so the recipient gets at least what was asked', () => {
    const p = price({ channel: spei, midRate: '17.05', destinationAmount: 100_000n });
    // 1000.00 MXN / 17.05 = 58.65102639... USDC -> 58.651027 (ceil).
    expect(p.sourceAmount).toBe(58_651_027n);
    expect(p.destinationAmount).toBe(100_000n);
    // provider: 0.3 % = 0.175953081 -> 0.175954 + 0.25 = 0.425954
    // service:  0.5 % = 0.293255135 -> 0.293256;  FX: 0.35 % = 0.2052785945 -> 0.205279
    expect(p.fees).toEqual({ provider: 425_954n, service: 293_256n, fxSpread: 205_279n, total: 924_489n });
    expect(p.debitTotal).toBe(58_651_027n + 924_489n);
    // The source buys at least the destination back.
    expect(price({ channel: spei, midRate: '17.05', sourceAmount: p.sourceAmount }).destinationAmount).toBe(100_000n);
  });

  it('works for zero-decimal currencies', () => {
    // 10000 JPY / 152.3 = 65.65988181... -> 65.659882 USDC.
    const p = price({ channel: findChannel('bank_jpy')!, midRate: '152.3', destinationAmount: 10_000n });
    expect(p.sourceAmount).toBe(65_659_882n);
  });
});

describe('limits', () => {
  it('refuses a source amount below the minimum, naming source_amount', () => {
    const e = apiErrorOf(() => price({ channel: spei, midRate: '17.05', sourceAmount: 999_999n }));
    expect(e.status).toBe(400);
    expect(e.code).toBe('amount_out_of_range');
    expect(e.param).toBe('source_amount');
    expect(e.message).toContain('between 1.00 and 50000.00 USDC');
  });

  it('accepts the bounds themselves', () => {
    expect(price({ channel: spei, midRate: '17.05', sourceAmount: 1_000_000n }).sourceAmount).toBe(1_000_000n);
    expect(price({ channel: spei, midRate: '17.05', sourceAmount: 50_000_000_000n }).sourceAmount).toBe(50_000_000_000n);
  });

  it('refuses a destination amount whose source exceeds the maximum, naming destination_amount', () => {
    // 1,000,000.00 MXN needs about 58,651 USDC > 50,000.
    const e = apiErrorOf(() => price({ channel: spei, midRate: '17.05', destinationAmount: 100_000_000n }));
    expect(e.code).toBe('amount_out_of_range');
    expect(e.param).toBe('destination_amount');
  });

  it('refuses anything but exactly one amount (programming error)', () => {
    expect(() => price({ channel: spei, midRate: '17.05' })).toThrow(Error);
    expect(() => price({ channel: spei, midRate: '17.05', sourceAmount: 1n, destinationAmount: 1n })).toThrow(Error);
  });
});
