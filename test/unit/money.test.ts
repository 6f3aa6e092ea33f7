import { describe, expect, it } from 'vitest';
import {
  AMOUNT_INPUT_PATTERN,
  AmountFormatError,
  amountInputPattern,
  divDecimal,
  divRound,
  exponent,
  formatAmount,
  formatDecimal,
  mulDecimal,
  parseAmount,
  parseDecimal,
  percentOf,
  USDC,
} from '../../src/domain/money';

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AmountFormatError);
    return (e as AmountFormatError).reason;
  }
  throw new Error('expected an AmountFormatError');
}

describe('exponent', () => {
  it('is 6 for USDC, 0 for zero-decimal fiat, 2 otherwise', () => {
    expect(exponent(USDC)).toBe(6);
    expect(exponent('JPY')).toBe(0);
    expect(exponent('KRW')).toBe(0);
    expect(exponent('MXN')).toBe(2);
    expect(exponent('EUR')).toBe(2);
  });
});

describe('parseAmount', () => {
  it('parses into minor units of the currency', () => {
    expect(parseAmount('10.50', 'USD')).toBe(1050n);
    expect(parseAmount('10.5', 'USD')).toBe(1050n);
    expect(parseAmount('10', 'MXN')).toBe(1000n);
    expect(parseAmount('10.5', USDC)).toBe(10_500_000n);
    expect(parseAmount('0.000001', USDC)).toBe(1n);
    expect(parseAmount('123456.123456', USDC)).toBe(123_456_123_456n);
    expect(parseAmount('1500', 'JPY')).toBe(1500n);
  });

  it('refuses more decimals than the currency has (2 fiat, 6 USDC, 0 JPY)', () => {
    expect(reasonOf(() => parseAmount('10.123', 'USD'))).toBe('precision');
    expect(reasonOf(() => parseAmount('1.5', 'JPY'))).toBe('precision');
    expect(reasonOf(() => parseAmount('1.0', 'JPY'))).toBe('precision');
    // A seventh decimal is past USDC's limit too, and the message names the limit (issue #40).
    expect(reasonOf(() => parseAmount('0.1234567', USDC))).toBe('precision');
    expect(() => parseAmount('0.1234567', USDC)).toThrow('USDC amounts take at most 6 decimals');
    expect(() => parseAmount('10.123', 'USD')).toThrow('USD amounts take at most 2 decimals');
  });

  it('refuses malformed strings', () => {
    for (const bad of ['', '-1', '1e3', '1.', '.5', ' 1', '1,50', 'abc', '+1']) {
      expect(reasonOf(() => parseAmount(bad, 'USD'))).toBe('format');
    }
  });

  it('refuses more than 12 digits before the point (a bigint column overflowed: a 500 found by Schemathesis)', () => {
    expect(parseAmount('999999999999.99', 'USD')).toBe(99_999_999_999_999n);
    expect(parseAmount('999999999999.999999', USDC)).toBe(999_999_999_999_999_999n);
    for (const big of ['1000000000000', '0000000000001', '99999999999999999999999999.00']) {
      expect(reasonOf(() => parseAmount(big, 'USD'))).toBe('too_large');
    }
  });

  it('accepts exactly what the request documents\' pattern says', () => {
    const usd = new RegExp(amountInputPattern(2));
    const any = new RegExp(AMOUNT_INPUT_PATTERN);
    for (const v of ['1', '0.5', '12.34', '999999999999', '999999999999.99', '1000000000000', '0000000000001', '1.234', '1.', '-1']) {
      let parsed = true;
      try {
        parseAmount(v, 'USD');
      } catch {
        parsed = false;
      }
      expect(usd.test(v), v).toBe(parsed);
    }
    expect(any.test('1.123456')).toBe(true);
    expect(any.test('1234567890123.1')).toBe(false);
  });

  it('refuses zero unless allowed', () => {
    expect(reasonOf(() => parseAmount('0', USDC))).toBe('not_positive');
    expect(reasonOf(() => parseAmount('0.00', 'USD'))).toBe('not_positive');
    expect(parseAmount('0', USDC, { allowZero: true })).toBe(0n);
  });
});

describe('formatAmount', () => {
  it('shows exactly the fiat decimals, 2 to 6 for USDC, none for JPY', () => {
    expect(formatAmount(1050n, 'USD')).toBe('10.50');
    expect(formatAmount(5n, 'MXN')).toBe('0.05');
    expect(formatAmount(10_500_000n, USDC)).toBe('10.50');
    expect(formatAmount(123_456n, USDC)).toBe('0.123456');
    expect(formatAmount(1_000_000n, USDC)).toBe('1.00');
    expect(formatAmount(1500n, 'JPY')).toBe('1500');
    expect(formatAmount(-1050n, 'USD')).toBe('-10.50');
  });

  it('round-trips with parseAmount', () => {
    const cases: [string, string][] = [
      ['10.50', 'USD'],
      ['0.01', 'EUR'],
      ['99999999.99', 'MXN'],
      ['1500', 'JPY'],
      ['0.123456', USDC],
      ['10.50', USDC],
      ['1234.10', USDC],
    ];
    for (const [s, c] of cases) expect(formatAmount(parseAmount(s, c), c)).toBe(s);
    for (const minor of [1n, 99n, 100n, 123_456_789n]) {
      for (const c of ['USD', USDC, 'JPY']) expect(parseAmount(formatAmount(minor, c), c)).toBe(minor);
    }
  });
});

describe('decimals', () => {
  it('parses and formats exactly', () => {
    expect(parseDecimal('17.05')).toEqual({ digits: 1705n, scale: 2 });
    expect(formatDecimal(parseDecimal('17.0500'))).toBe('17.05');
    expect(formatDecimal(parseDecimal('0.000001'))).toBe('0.000001');
    expect(formatDecimal(parseDecimal('3'))).toBe('3');
    expect(() => parseDecimal('1.2.3')).toThrow();
    expect(() => parseDecimal('-1')).toThrow();
  });

  it('divides with the requested rounding', () => {
    expect(divRound(7n, 2n, 'floor')).toBe(3n);
    expect(divRound(7n, 2n, 'ceil')).toBe(4n);
    expect(divRound(7n, 2n, 'half_up')).toBe(4n);
    expect(divRound(5n, 4n, 'half_up')).toBe(1n);
    expect(divRound(8n, 2n, 'ceil')).toBe(4n);
  });

  it('converts USDC to a destination currency and back', () => {
    // 100 USDC * 17.05 = 1705.00 MXN = 170500 centavos.
    expect(mulDecimal(100_000_000n, parseDecimal('17.05'), USDC, 'MXN', 'floor')).toBe(170_500n);
    // 0.000001 USDC * 17.05 = 0.00001705 MXN: floors to 0 centavos, ceils to 1.
    expect(mulDecimal(1n, parseDecimal('17.05'), USDC, 'MXN', 'floor')).toBe(0n);
    expect(mulDecimal(1n, parseDecimal('17.05'), USDC, 'MXN', 'ceil')).toBe(1n);
    // 1000.00 MXN / 17.05 = 58.6510263... USDC -> 58.651027 rounded up.
    expect(divDecimal(100_000n, parseDecimal('17.05'), USDC, 'MXN', 'ceil')).toBe(58_651_027n);
    expect(divDecimal(100_000n, parseDecimal('17.05'), USDC, 'MXN', 'floor')).toBe(58_651_026n);
    expect(() => divDecimal(1n, parseDecimal('0'), USDC, 'MXN', 'ceil')).toThrow();
  });

  it('takes percentages rounded up', () => {
    expect(percentOf(100_000_000n, '0.35')).toBe(350_000n);
    expect(percentOf(100_000_000n, '1')).toBe(1_000_000n);
    expect(percentOf(1n, '0.5')).toBe(1n);
    expect(percentOf(0n, '0.5')).toBe(0n);
    expect(percentOf(10_000_001n, '0.3')).toBe(30_001n);
  });
});
