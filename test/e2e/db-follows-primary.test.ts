import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiKeyCache, startApiKeyCache } from '../../src/core/api-key-cache';
import { metricsRegistry } from '../../src/core/metrics/registry';
import '../../src/core/metrics/database';
import { pgHaMissing, type PgHaCluster, type PgHaNode, startPgHa } from '../../tools/pg-ha/cluster';
import { createHarness, type Harness } from '../helpers/harness';

/**
 * The service follows the primary of a pg_auto_failover cluster (issue #58; docs/architecture.md
 * "High availability"): on libpq's multi-host DATABASE_URL the pool, the LISTEN connections and
 * the API keep working across a SIGKILL of the primary. Skipped (with the reason) where
 * pg_auto_failover is not installed, unless REQUIRE_PG_AUTO_FAILOVER=1 (CI): tools/pg-ha/cluster.ts.
 */
const MISSING = pgHaMissing();
const SKIP = MISSING !== null && process.env.REQUIRE_PG_AUTO_FAILOVER !== '1';
if (SKIP) console.warn(`test/e2e/db-follows-primary.test.ts: skipped, ${MISSING}`);

let cluster: PgHaCluster;
let h: Harness;
let cache: ApiKeyCache | undefined;

const metric = async (name: string): Promise<number> => {
  const m = await metricsRegistry.getSingleMetric(name)?.get();
  return Number(m?.values[0]?.value ?? NaN);
};

const serverPort = async () => (await sql<{ port: number }>`select inet_server_port() as port`.execute(h.db)).rows[0]!.port;

async function until(what: string, check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  if (SKIP) return;
  cluster = await startPgHa();
  // The harness makes its database on the cluster's primary and opens it on the multi-host URL.
  process.env.DATABASE_URL = cluster.url;
  h = await createHarness({ worker: false });
}, 180_000);

afterAll(async () => {
  await cache?.stop();
  await h?.close().catch(() => {});
  cluster?.stop();
});

describe.skipIf(SKIP)('DATABASE_URL with several hosts follows the primary', () => {
  let first: PgHaNode;
  let second: PgHaNode;

  it('a query issued while the primary is dead succeeds on the promoted standby; the LISTEN connection follows', async () => {
    ({ primary: first, standby: second } = await cluster.waitForSteadyState());
    expect(h.databaseUrl).toContain(',');
    expect(await serverPort()).toBe(first.port);
    cache = await startApiKeyCache(h.db, h.databaseUrl!);
    expect(cache.listening()).toBe(true);
    const changesBefore = await metric('db_primary_changes_total');

    await first.kill();
    const t0 = Date.now();
    // Issued during the failover: acquiring waits for a writable host, then the write runs there.
    // (txid_current() assigns a transaction id: a standby refuses it.)
    const write = await sql<{ port: number; rec: boolean; xid: boolean }>`select inet_server_port() as port, pg_is_in_recovery() as rec, txid_current() > 0 as xid`.execute(h.db);
    const took = Date.now() - t0;
    expect(write.rows[0]).toEqual({ port: second.port, rec: false, xid: true });
    expect(took).toBeLessThan(30_000);
    expect(await metric('db_primary_changes_total')).toBe(changesBefore + 1);
    expect(await metric('db_seconds_since_failover')).toBeLessThan(took / 1000 + 5);

    // The api key cache's LISTEN connection came back, on the new primary, and hears a NOTIFY there.
    await until('the LISTEN connection is back', () => cache!.listening(), 20_000);
    const listeners = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where application_name = 'api_key_cache'`.execute(h.db);
    expect(listeners.rows[0]!.n).toBeGreaterThanOrEqual(1);
    const generation = cache.generation();
    await sql`select pg_notify('api_keys_changed', '*')`.execute(h.db);
    await until('the NOTIFY reached the listener', () => cache!.generation() > generation, 5_000);

    // The killed node rejoins as the standby.
    first.start();
    const steady = await cluster.waitForSteadyState(60_000);
    expect(steady.primary).toBe(second);
  }, 90_000);
});
