/**
 * `npm run pg-ha`: starts the high-availability PostgreSQL of tools/pg-ha/cluster.ts on this machine
 * (a pg_auto_failover monitor, a primary and its synchronous standby; docs/operations.md
 * "High-availability PostgreSQL"), prints the multi-host DATABASE_URL, the monitor's URL, the nodes'
 * states (what `pg_autoctl show state` prints) and how to point `npm run api` / `npm run worker` at
 * it, then prints every state change until Ctrl-C, which stops everything.
 *
 * Commands typed on standard input while it runs (each followed by Enter), to rehearse the runbooks:
 * - `switchover`: a planned switchover (the standby becomes primary; "Planned switchover");
 * - `kill-primary`: SIGKILL of the primary's whole machine, the monitor promotes the standby, then
 *   the killed node is started again and rejoins as the standby ("A failover happened");
 * - `state`: prints the states again.
 * `--switchover` / `--kill-primary` on the command line run that command once the cluster is up.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { type PgHaCluster, type PgHaNodeState, startPgHa } from './cluster';

const { values } = parseArgs({
  options: {
    switchover: { type: 'boolean', default: false },
    'kill-primary': { type: 'boolean', default: false },
  },
});

/** The nodes as a table, in the columns of `pg_autoctl show state`. */
function stateTable(states: PgHaNodeState[]): string {
  const rows = [
    ['Name', 'Host:Port', 'Reachable', 'Current State', 'Assigned State'],
    ...states.map((s) => [s.name, `127.0.0.1:${s.port}`, s.health === 1 ? 'yes' : s.health === 0 ? 'no' : 'unknown', s.reported, s.assigned]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('-+-'), ...rows.slice(1).map(line)].join('\n');
}

const t0 = Date.now();
const stamp = () => `[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s]`;

console.log('Starting a pg_auto_failover monitor and two data nodes (about 15-30 s)...');
const cluster: PgHaCluster = await startPgHa({ log: (l) => console.log(`${stamp()} ${l}`) });
const shutdown = () => {
  cluster.stop();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);

console.log(`
DATABASE_URL=${cluster.url}
monitor:     ${cluster.monitorUrl}
WAL archive: ${cluster.walArchive}
logs:        ${cluster.dir}

${stateTable(await cluster.states())}

The service follows the primary through the multi-host URL (target_session_attrs=read-write):
  DATABASE_URL='${cluster.url}' TEMPORAL_ADDRESS=<a Temporal server> SECRETS_KEYS=<k1:...> npm run api
  DATABASE_URL='${cluster.url}' TEMPORAL_ADDRESS=<a Temporal server> SECRETS_KEYS=<k1:...> npm run worker
(docs/configuration.md lists the settings; \`npm run stack\` prints a Temporal address.)
Type switchover, kill-primary or state (then Enter). Ctrl-C stops everything.
`);

// Prints the states whenever they change.
let last = JSON.stringify(await cluster.states());
setInterval(() => {
  cluster
    .states()
    .then((s) => {
      const now = JSON.stringify(s);
      if (now === last) return;
      last = now;
      console.log(`${stamp()} state changed\n${stateTable(s)}\n`);
    })
    .catch(() => {});
}, 500);

let busy = false;
async function command(cmd: string): Promise<void> {
  if (busy) return void console.log('busy with the previous command');
  busy = true;
  try {
    if (cmd === 'state') {
      console.log(stateTable(await cluster.states()));
    } else if (cmd === 'switchover') {
      const started = Date.now();
      const { primary } = await cluster.switchover();
      console.log(`${stamp()} switchover done in ${Date.now() - started} ms: ${primary.name} is the primary`);
    } else if (cmd === 'kill-primary') {
      const victim = await cluster.primary();
      if (!victim) return void console.log('no primary right now (a failover is under way)');
      const started = Date.now();
      await victim.kill();
      console.log(`${stamp()} SIGKILLed ${victim.name} (keeper, postmaster and backends)`);
      for (;;) {
        const p = await cluster.primary();
        if (p && p !== victim) {
          console.log(`${stamp()} ${p.name} promoted after ${Date.now() - started} ms`);
          break;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      victim.start();
      const { standby } = await cluster.waitForSteadyState(120_000);
      console.log(`${stamp()} ${standby.name} rejoined as the standby; ${Date.now() - started} ms in all`);
    } else if (cmd) {
      console.log(`unknown command ${JSON.stringify(cmd)}: switchover, kill-primary or state`);
    }
  } catch (err) {
    console.log(`${cmd} failed: ${(err as Error).message}`);
  } finally {
    busy = false;
  }
}

if (values.switchover) await command('switchover');
if (values['kill-primary']) await command('kill-primary');
createInterface({ input: process.stdin }).on('line', (line) => void command(line.trim()));
await new Promise(() => {});
