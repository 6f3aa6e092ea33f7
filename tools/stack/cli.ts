/**
 * `npm run stack -- [--apis N] [--workers M]`: starts the production-like stack of tools/stack
 * (throwaway PostgreSQL, Temporal dev server, API and worker processes, round-robin proxy),
 * creates a sandbox business, prints its key and the proxy's URL, and runs until Ctrl-C, which
 * stops everything. For trying the chaos and bench set-up by hand.
 */
import { parseArgs } from 'node:util';
import { startStack } from './index';

const { values } = parseArgs({ options: { apis: { type: 'string', default: '2' }, workers: { type: 'string', default: '2' } } });
const stack = await startStack({ apis: Number(values.apis), workers: Number(values.workers) });
const b = await stack.createBusiness('Stack business');
console.log(`\nproxy:     ${stack.url}/sandbox/v1\nsandbox key: ${b.keys.sandbox}\nDATABASE_URL=${stack.pg.url}\nTEMPORAL_ADDRESS=${stack.temporalAddress}\nlogs:      ${stack.dir}\nCtrl-C stops everything.`);
await new Promise(() => {});
