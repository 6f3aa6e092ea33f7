/** The database's high-availability metrics (docs/operations.md "Metrics"). */
import { sql } from 'kysely';
import { Counter, Gauge } from 'prom-client';
import type { Db } from '../../db/schema';
import { primaryEvents } from '../../db/primary';
import { metricsRegistry } from './registry';

/** How long a `db_synchronous_standbys` sample is reused (ms). */
export const SYNC_SAMPLE_MS = 5000;

const processStart = Date.now();
let lastChange: number | null = null;

export const dbPrimaryChanges = new Counter({
  name: 'db_primary_changes_total',
  help: 'Times this process saw the writable PostgreSQL host change (a failover or switchover; multi-host DATABASE_URL).',
  registers: [metricsRegistry],
});

export const dbSecondsSinceFailover = new Gauge({
  name: 'db_seconds_since_failover',
  help: 'Seconds since this process last saw the writable PostgreSQL host change; since the process started when it never did.',
  registers: [metricsRegistry],
  collect() {
    this.set(Math.max(0, (Date.now() - (lastChange ?? processStart)) / 1000));
  },
});

export const dbSynchronousStandbys = new Gauge({
  name: 'db_synchronous_standbys',
  help: "Standbys the primary commits synchronously to (pg_stat_replication rows with sync_state sync or quorum); -1 when unknown (no PostgreSQL, an error, or a role that may not read pg_stat_replication).",
  registers: [metricsRegistry],
});
dbSynchronousStandbys.set(-1);

primaryEvents.on('primary-change', (c) => {
  dbPrimaryChanges.inc();
  lastChange = c.at.getTime();
});

let sampledAt = 0;

/** Samples `db_synchronous_standbys` on `db` at most every {@link SYNC_SAMPLE_MS}; never throws (unknown: -1). */
export async function refreshDatabaseGauges(db: Db, now = Date.now()): Promise<void> {
  if (now - sampledAt < SYNC_SAMPLE_MS) return;
  sampledAt = now;
  try {
    const { rows } = await sql<{ sync: number; hidden: number; version: string }>`
      select count(*) filter (where sync_state in ('sync', 'quorum'))::int as sync,
             count(*) filter (where sync_state is null)::int as hidden,
             (select version()) as version
        from pg_stat_replication`.execute(db);
    const r = rows[0];
    dbSynchronousStandbys.set(!r || r.hidden > 0 || /pglite|emscripten/i.test(r.version) ? -1 : r.sync);
  } catch {
    dbSynchronousStandbys.set(-1);
  }
}
