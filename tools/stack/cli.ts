/**
 * `npm run stack -- [--apis N] [--workers M] [--dev-server] [--temporal-nodes K]`: starts the
 * production-like stack of tools/stack (throwaway PostgreSQL, a two-node Temporal cluster on it
 * built from the Go module (tools/temporal-cluster; `--dev-server`: the CLI's dev server instead),
 * API and worker processes, round-robin proxy), creates a sandbox business, prints its key, the
 * proxy's URL and the Temporal cluster's members, and runs until Ctrl-C, which stops everything.
 */
import { parseArgs } from 'node:util';
import { startStack } from './index';

const { values } = parseArgs({
  options: {
    apis: { type: 'string', default: '2' },
    workers: { type: 'string', default: '2' },
    'dev-server': { type: 'boolean', default: false },
    'temporal-nodes': { type: 'string', default: '2' },
  },
});
const stack = await startStack({
  apis: Number(values.apis),
  workers: Number(values.workers),
  clusterNodes: values['dev-server'] ? 0 : Number(values['temporal-nodes']),
});
const b = await stack.createBusiness('Stack business');
const temporal = stack.cluster
  ? `Temporal cluster (${stack.cluster.nodes.length} nodes on PostgreSQL), members:\n${stack.cluster
      .members()
      .map((m) => `             ${m.role.padEnd(9)} ${m.address}`)
      .join('\n')}`
  : 'Temporal dev server';
console.log(
  `\nproxy:     ${stack.url}/sandbox/v1\nsandbox key: ${b.keys.sandbox}\nDATABASE_URL=${stack.pg.url}\nTEMPORAL_ADDRESS=${stack.temporalAddress}\n${temporal}\nlogs:      ${stack.dir}\nCtrl-C stops everything.`,
);
await new Promise(() => {});
