import { defineConfig } from 'vitest/config';

/**
 * The tests Stryker runs against each mutant of the money, pricing and rate code (stryker.config.mjs;
 * docs/testing.md "Mutation testing"): pure unit tests only, no Temporal or database.
 */
export default defineConfig({
  test: {
    pool: 'forks',
    include: ['test/unit/money.test.ts', 'test/unit/pricing.test.ts', 'test/unit/rates-properties.test.ts', 'test/unit/rates-domain.test.ts'],
    // Fewer generated cases per property per mutant (400 in the normal run): a mutant that breaks a
    // rule is found in the first few dozen; this keeps the run within CI's budget on 2 cores.
    env: { RATES_PROPERTY_RUNS: '60' },
  },
});
