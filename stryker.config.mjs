/**
 * Mutation testing of the domain's money, pricing and rate code (docs/testing.md "Mutation
 * testing"): `npx stryker run`. `.ci/run` runs it and fails below `thresholds.break` (the floor).
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'stryker.vitest.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: ['src/domain/money.ts', 'src/domain/pricing.ts', 'src/domain/rates.ts', 'src/domain/rate-routes.ts'],
  ignorePatterns: ['/clients', '/docs', '/deploy', '/tools', '/.data', '/.tools', '/test/e2e', '/test/api', '/reports', '/.ci'],
  coverageAnalysis: 'perTest',
  // Static mutants (module-level constants) re-run every test; their code is covered by the tests anyway.
  ignoreStatic: true,
  concurrency: 2,
  timeoutMS: 20000,
  reporters: ['clear-text', 'dots', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 95, low: 90, break: 90 },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
