import { describe, expect, it } from 'vitest';
import { decimalToMinor, minorToDecimal, sumMinor } from '../../src/rails/iso20022/amounts';
import { isSepaIdentifier, toSepaText } from '../../src/rails/iso20022/sepa-text';

describe('toSepaText (EPC SEPA character set)', () => {
  it('transliterates accented names: José Núñez -> Jose Nunez', () => {
    expect(toSepaText('José Núñez', 70)).toEqual({ ok: true, value: 'Jose Nunez' });
    expect(toSepaText('Łódź Ærø', 70)).toEqual({ ok: true, value: 'Lodz AEro' });
    expect(toSepaText('Привет', 70)).toEqual({ ok: true, value: 'Privet' });
  });

  it('keeps the allowed punctuation and maps typographic quotes and dashes', () => {
    expect(toSepaText("Inv/42-A? (x): 1.000,50 'y' +z", 140)).toEqual({ ok: true, value: "Inv/42-A? (x): 1.000,50 'y' +z" });
    expect(toSepaText('O’Brien – Ltd', 70)).toEqual({ ok: true, value: "O'Brien - Ltd" });
  });

  it('collapses whitespace and trims', () => {
    expect(toSepaText('  Ann \t\n  Lee\u00a0 ', 70)).toEqual({ ok: true, value: 'Ann Lee' });
  });

  it('refuses characters that cannot be carried, naming them', () => {
    const r = toSepaText('Smith & Co @ 北京', 70);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toContain('"&"');
      expect(r.reason).toContain('"@"');
      expect(r.reason).toContain('"北"');
    }
    expect(toSepaText('a_b', 70).ok).toBe(false);
    expect(toSepaText('say "hi"', 70).ok).toBe(false);
  });

  it('refuses text longer than the limit after conversion, and empty text', () => {
    expect(toSepaText('Müller', 6)).toEqual({ ok: false, reason: expect.stringContaining('7 characters') }); // "Mueller"
    expect(toSepaText('Müller', 7)).toEqual({ ok: true, value: 'Mueller' });
    expect(toSepaText('   ', 70).ok).toBe(false);
  });
});

describe('isSepaIdentifier', () => {
  it('takes 1 to 35 SEPA characters without spaces, leading or trailing "/" or "//"', () => {
    expect(isSepaIdentifier('po-1')).toBe(true);
    expect(isSepaIdentifier('A'.repeat(35))).toBe(true);
    expect(isSepaIdentifier('A'.repeat(36))).toBe(false);
    expect(isSepaIdentifier('')).toBe(false);
    expect(isSepaIdentifier('a b')).toBe(false);
    expect(isSepaIdentifier('/ab')).toBe(false);
    expect(isSepaIdentifier('ab/')).toBe(false);
    expect(isSepaIdentifier('a//b')).toBe(false);
    expect(isSepaIdentifier('po_1')).toBe(false);
  });
});

describe('amounts (string and bigint arithmetic)', () => {
  it('formats minor units with two decimals', () => {
    expect(minorToDecimal('12345')).toBe('123.45');
    expect(minorToDecimal('5')).toBe('0.05');
    expect(minorToDecimal('0')).toBe('0.00');
    expect(minorToDecimal('99999999999999999999')).toBe('999999999999999999.99');
    expect(() => minorToDecimal('1.5')).toThrow();
    expect(() => minorToDecimal('-1')).toThrow();
    expect(() => minorToDecimal('012')).toThrow();
  });

  it('parses decimal text to minor units, refusing a third decimal', () => {
    expect(decimalToMinor('123.45')).toBe('12345');
    expect(decimalToMinor('7')).toBe('700');
    expect(decimalToMinor('0.5')).toBe('50');
    expect(decimalToMinor('0.10')).toBe('10');
    expect(decimalToMinor('123.456')).toBeNull();
    expect(decimalToMinor('-1.00')).toBeNull();
    expect(decimalToMinor('1e3')).toBeNull();
    expect(decimalToMinor('')).toBeNull();
  });

  it('sums beyond the range of floating point exactly', () => {
    expect(sumMinor(['10', '20'])).toBe('30'); // 0.10 + 0.20, which float makes 0.30000000000000004
    expect(sumMinor(['9007199254740993', '1'])).toBe('9007199254740994');
  });
});
