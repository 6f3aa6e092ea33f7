/**
 * `npm run stack -- [--apis N] [--workers M] [--dev-server] [--temporal-nodes K] [--test-bank] [--ha-postgres]`:
 * starts the production-like stack of tools/stack (throwaway PostgreSQL (`--ha-postgres`: a
 * pg_auto_failover primary and synchronous standby, tools/stack/ha-postgres.ts), a two-node Temporal cluster on it
 * built from the Go module (tools/temporal-cluster; `--dev-server`: the CLI's dev server instead),
 * API and worker processes, round-robin proxy), creates a sandbox business, prints its key, the
 * proxy's URL and the Temporal cluster's members, and runs until Ctrl-C, which stops everything.
 * `--test-bank` also starts the test bank (tools/test-bank) with the live sepa_eur rail connected to
 * it and prints the live key, so live mode can be tried on one machine (docs/rails.md).
 */
import { parseArgs } from 'node:util';
import { startStack } from './index';

const { values } = parseArgs({
  options: {
    apis: { type: 'string', default: '2' },
    workers: { type: 'string', default: '2' },
    'dev-server': { type: 'boolean', default: false },
    'temporal-nodes': { type: 'string', default: '2' },
    'test-bank': { type: 'boolean', default: false },
    'ha-postgres': { type: 'boolean', default: false },
  },
});
const stack = await startStack({
  apis: Number(values.apis),
  workers: Number(values.workers),
  clusterNodes: values['dev-server'] ? 0 : Number(values['temporal-nodes']),
  testBank: values['test-bank'],
  haPostgres: values['ha-postgres'],
});
const b = await stack.createBusiness('Stack business', undefined, true);
const temporal = stack.cluster
  ? `Temporal cluster (${stack.cluster.nodes.length} nodes on PostgreSQL), members:\n${stack.cluster
      .members()
      .map((m) => `             ${m.role.padEnd(9)} ${m.address}`)
      .join('\n')}`
  : 'Temporal dev server';
console.log(
  `\nproxy:     ${stack.url}/sandbox/v1\nsandbox key: ${b.keys.sandbox}\n${stack.bank ? `live:      ${stack.url}/v1 (sepa_eur connected to the test bank)\nlive key:  ${b.keys.live}\nbank files: ${stack.bank.filesDir}\n` : ''}DATABASE_URL=${stack.databaseUrl}\n${stack.pgHa ? `primary:   ${stack.pgHa.primaryUrl} (the stack's proxy to the current primary; monitor ${stack.pgHa.cluster.monitorUrl})\n` : ''}TEMPORAL_ADDRESS=${stack.temporalAddress}\n${temporal}\nlogs:      ${stack.dir}\nCtrl-C stops everything.`,
);
await new Promise(() => {});
