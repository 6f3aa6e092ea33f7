import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/domain/durations';

describe('parseDuration (ISO 8601 durations or milliseconds)', () => {
  it.each([
    ['PT0.05S', 50],
    ['PT0.2S', 200],
    ['PT5S', 5000],
    ['PT5M', 300_000],
    ['PT1H', 3_600_000],
    ['P1D', 86_400_000],
    ['P30D', 30 * 86_400_000],
    ['P1DT12H', 36 * 3_600_000],
    ['P2W', 14 * 86_400_000],
    ['pt1,5s', 1500],
    ['250', 250],
    ['0', 0],
  ])('%s -> %i ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each(['', 'P', 'PT', 'P1Y', 'P1M', 'PT-1S', '1.5', 'five seconds', 'P1DT'])('refuses %j', (input) => {
    expect(() => parseDuration(input)).toThrow(/ISO 8601/);
  });
});
