import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureNachaValidator, skipWithoutNachaValidator, validateNacha } from '../../tools/nacha/validator';

/**
 * The independent NACHA validator (tools/nacha/validator.ts: PyPI achlens, pinned; issue #20,
 * docs/nacha-validator.md) on hand-written files in test/fixtures/nacha/: a correct PPD credit file
 * (two entries, 22 to checking 011401533 for 123.45 and 32 to savings 021000021 for 500.00, the
 * first with a 05 addenda, entry hash 0003240155, padded to ten records) is accepted; the same with
 * a wrong entry hash in the batch control or the file control is refused naming the hash; the same
 * with a trace number repeated, in one batch or across two, is refused naming the trace number.
 * Skipped (with the reason) on a machine without Python 3.11-3.13, unless REQUIRE_NACHA_VALIDATOR=1 (CI).
 */
const SKIP = skipWithoutNachaValidator('test/unit/nacha-validator.test.ts');

const fixture = (name: string) => readFileSync(new URL(`../fixtures/nacha/${name}`, import.meta.url), 'utf8');

describe.skipIf(SKIP)('the independent NACHA validator (achlens)', () => {
  beforeAll(async () => {
    await ensureNachaValidator();
  }, 300_000);

  it('the fixtures are 10 records of exactly 94 characters', () => {
    for (const name of [
      'ppd-credit-valid.ach',
      'ppd-credit-wrong-batch-entry-hash.ach',
      'ppd-credit-wrong-file-entry-hash.ach',
      'ppd-credit-repeated-trace.ach',
      'ppd-credit-repeated-trace-across-batches.ach',
    ]) {
      const lines = fixture(name).split('\n');
      expect(lines.pop()).toBe('');
      expect(lines).toHaveLength(10);
      for (const line of lines) expect(line).toHaveLength(94);
    }
  });

  it('accepts the correct PPD credit file', async () => {
    await expect(validateNacha(fixture('ppd-credit-valid.ach'))).resolves.toEqual({ valid: true, errors: [] });
    await expect(validateNacha(fixture('ppd-credit-valid.ach'), { strict: true })).resolves.toEqual({ valid: true, errors: [] });
  });

  it('accepts it with CRLF line ends too', async () => {
    const crlf = fixture('ppd-credit-valid.ach').replace(/\n/g, '\r\n');
    await expect(validateNacha(crlf)).resolves.toEqual({ valid: true, errors: [] });
  });

  it('refuses a wrong entry hash in the batch control, naming the hash', async () => {
    const result = await validateNacha(fixture('ppd-credit-wrong-batch-entry-hash.ach'));
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      'BC003 line 6 position 11 entry_hash: Batch entry hash does not match. (expected 3240155, found 0003240156)',
    ]);
  });

  it('refuses a wrong entry hash in the file control, naming the hash', async () => {
    const result = await validateNacha(fixture('ppd-credit-wrong-file-entry-hash.ach'));
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      'FC004 line 7 position 22 entry_hash: File entry hash does not match. (expected 3240155, found 0003240154)',
    ]);
  });

  it('refuses a trace number repeated in one batch', async () => {
    const result = await validateNacha(fixture('ppd-credit-repeated-trace.ach'));
    expect(result.valid).toBe(false);
    expect(result.errors).toContain('ED013 line 5 position 80: Trace number is not unique within the file.');
    // the repeat is also out of order within the batch (ED012); nothing else is wrong
    expect(result.errors).toEqual([
      'ED012 line 5 position 80: Trace numbers must ascend within the batch.',
      'ED013 line 5 position 80: Trace number is not unique within the file.',
    ]);
  });

  it('refuses a trace number repeated across two batches (file-wide uniqueness)', async () => {
    const result = await validateNacha(fixture('ppd-credit-repeated-trace-across-batches.ach'));
    expect(result).toEqual({ valid: false, errors: ['ED013 line 6 position 80: Trace number is not unique within the file.'] });
  });

  it('refuses other broken controls and records of the correct file', async () => {
    const lines = fixture('ppd-credit-valid.ach').split('\n');
    // batch control total credit 623.46 instead of 623.45
    const credit = [...lines];
    credit[5] = credit[5].slice(0, 32) + '000000062346' + credit[5].slice(44);
    const r1 = await validateNacha(credit.join('\n'));
    expect(r1.valid).toBe(false);
    expect(r1.errors.map((e) => e.split(' ')[0])).toEqual(['BC005']);
    // a record one character short
    const short = [...lines];
    short[4] = short[4].slice(0, 93);
    const r2 = await validateNacha(short.join('\n'));
    expect(r2.valid).toBe(false);
    expect(r2.errors.map((e) => e.split(' ')[0])).toContain('S001');
  });

  it('reports warnings as errors only when strict (a Saturday effective date)', async () => {
    const saturday = fixture('ppd-credit-valid.ach').replace('PAYOUT          261127', 'PAYOUT          261128');
    expect(saturday).not.toBe(fixture('ppd-credit-valid.ach'));
    await expect(validateNacha(saturday)).resolves.toEqual({ valid: true, errors: [] });
    await expect(validateNacha(saturday, { strict: true })).resolves.toEqual({
      valid: false,
      errors: ['warning BH007 line 2 position 70: Effective entry date falls on a weekend.'],
    });
  });
});
